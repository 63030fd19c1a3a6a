// Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH. Queueing happens in the dispatcher
// (Dispatcher::Dispatch); EXEC's cross-shard execution is shard/transaction.cc.

#include "core/strings.h"
#include "shard/command/dispatcher.h"
#include "shard/command/errors.h"
#include "shard/command/transaction.h"
#include "shard/runtime/memory_limit.h"
#include "shard/runtime/shard_set.h"
#include "shard/runtime/watch.h"
#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

void Multi(CoordCmd& cmd) {
  if (cmd.client.multi) return cmd.reply.Error("ERR MULTI calls can not be nested");
  cmd.client.multi = std::make_unique<MultiState>();
  cmd.reply.Ok();
}

// EXEC shows itself to monitors after its commands (kCmdExec): here when it runs none.
void ShowExec(CoordCmd& cmd) {
  if (cmd.server.introspect.monitors.load(std::memory_order_relaxed) > 0) {
    FeedMonitors(cmd.self, cmd.shards, cmd.server, cmd.client.addr, cmd.args);
  }
}

void Exec(CoordCmd& cmd) {
  if (!cmd.client.multi) {
    cmd.reply.Error("ERR EXEC without MULTI");
    return ShowExec(cmd);
  }
  // As Redis: a transaction that queued a denyoom command is discarded over maxmemory.
  if ((cmd.client.multi->flags & kCmdDenyOom) && cmd.server.config.maxmemory.get() > 0 &&
      OutOfMemory(cmd.shards, cmd.self.id(), cmd.server)) {
    cmd.client.multi.reset();
    UnwatchAll(cmd.self, cmd.shards, cmd.client);
    return cmd.reply.Error(StrCat("EXECABORT Transaction discarded because of: ", err::kOom));
  }
  if (cmd.client.multi->aborted) {
    cmd.client.multi.reset();
    UnwatchAll(cmd.self, cmd.shards, cmd.client);
    cmd.reply.Error("EXECABORT Transaction discarded because of previous errors.");
    return ShowExec(cmd);
  }
  ExecTransaction(cmd);
}

void Discard(CoordCmd& cmd) {
  if (!cmd.client.multi) return cmd.reply.Error("ERR DISCARD without MULTI");
  cmd.client.multi.reset();
  UnwatchAll(cmd.self, cmd.shards, cmd.client);
  cmd.reply.Ok();
}

void Watch(CoordCmd& cmd) {
  if (cmd.client.multi) return cmd.reply.Error("ERR WATCH inside MULTI is not allowed");
  std::vector<std::string_view> keys(cmd.args.begin() + 1, cmd.args.end());
  WatchKeys(cmd.self, cmd.shards, cmd.client, keys);
  cmd.reply.Ok();
}

void Unwatch(CoordCmd& cmd) {
  UnwatchAll(cmd.self, cmd.shards, cmd.client);
  cmd.reply.Ok();
}

}  // namespace

void RegisterTransactionCommands(CommandTable& t) {
  constexpr uint32_t kBase = kCmdNoScript | kCmdLoading | kCmdStale;
  CommandTable::Family f = t.StartFamily("@transaction");
  f.Add({.name = "multi",
         .arity = 1,
         .flags = kBase | kCmdFast | kCmdAllowBusy | kCmdNotQueued,
         .on_coord = Multi});
  f.Add({.name = "exec",
         .arity = 1,
         .flags = kBase | kCmdSkipSlowlog | kCmdNotQueued | kCmdWaitsForLocks | kCmdExec,
         .on_coord = Exec});
  f.Add({.name = "discard",
         .arity = 1,
         .flags = kBase | kCmdFast | kCmdAllowBusy | kCmdNotQueued,
         .on_coord = Discard});
  f.Add({.name = "watch",
         .arity = -2,
         .flags = kBase | kCmdFast | kCmdAllowBusy | kCmdNotQueued,
         .keys = {1, -1, 1},
         .on_coord = Watch});
  f.Add({.name = "unwatch",
         .arity = 1,
         .flags = kBase | kCmdFast | kCmdAllowBusy,
         .on_coord = Unwatch});
}

}  // namespace rc
