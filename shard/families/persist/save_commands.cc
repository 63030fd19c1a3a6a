// SAVE, BGSAVE, LASTSAVE (docs/PERSISTENCE.md). The snapshot itself: shard/persist/save.h.

#include <string>

#include "core/strings.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/errors.h"
#include "shard/persist/aof.h"
#include "shard/persist/save.h"
#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

// Unlike Redis's SAVE, nothing stops meanwhile: the reply waits for the file, other
// clients go on. It is the state at the command's point that is saved, as with Redis.
void Save(CoordCmd& cmd) {
  DeferredReply reply(cmd);
  std::string error;
  const bool started = StartSave(
      cmd.self, cmd.shards, cmd.server, &cmd.client, &cmd.sink, SaveReason::kCommand,
      [reply](bool ok) {
        reply.Send([ok](ReplyBuilder& rb) { ok ? rb.Ok() : rb.Error("ERR"); });
      },
      &error);
  if (!started) reply.Send([&error](ReplyBuilder& rb) { rb.Error(error); });
}

void BgSave(CoordCmd& cmd) {
  if (cmd.args.size() > 2 || (cmd.args.size() == 2 && ToLower(cmd.args[1]) != "schedule")) {
    return cmd.reply.Error(err::kSyntax);
  }
  // SCHEDULE waits only for an append-only rewrite, which ringcache does not have: with
  // a snapshot running it answers as plain BGSAVE does.
  if (cmd.client.exec_nested) {
    // Inside EXEC the transaction holds its locks: the snapshot's point is right after
    // it, taken on the server's behalf once EXEC is done.
    if (cmd.server.persist.saving.load()) return cmd.reply.Error("ERR Background save already in progress");
    ShardThread* self = &cmd.self;
    ShardSet* shards = &cmd.shards;
    ServerState* server = &cmd.server;
    cmd.self.Post(cmd.self.id(), [self, shards, server] {
      std::string error;
      StartSave(*self, *shards, *server, nullptr, nullptr, SaveReason::kCommand, nullptr, &error);
    });
    return cmd.reply.SimpleString("Background saving started");
  }
  std::string error;
  if (!StartSave(cmd.self, cmd.shards, cmd.server, &cmd.client, &cmd.sink, SaveReason::kCommand,
                 nullptr, &error)) {
    return cmd.reply.Error(error);
  }
  cmd.reply.SimpleString("Background saving started");
}

// The log's rewrite: a snapshot of one point as the new base, the incr files after it
// (shard/persist/aof.h). Inside EXEC it starts once EXEC is done, as BGSAVE.
void BgRewriteAof(CoordCmd& cmd) {
  if (cmd.client.exec_nested) {
    if (cmd.server.persist.aof_rewriting.load()) {
      return cmd.reply.Error("ERR Background append only file rewriting already in progress");
    }
    ShardThread* self = &cmd.self;
    ShardSet* shards = &cmd.shards;
    ServerState* server = &cmd.server;
    cmd.self.Post(cmd.self.id(), [self, shards, server] { StartAofRewrite(*self, *shards, *server); });
    return cmd.reply.SimpleString("Background append only file rewriting started");
  }
  const std::string answer = StartAofRewrite(cmd.self, cmd.shards, cmd.server);
  if (answer.rfind("ERR", 0) == 0) return cmd.reply.Error(answer);
  cmd.reply.SimpleString(answer);
}

void LastSave(CoordCmd& cmd) {
  cmd.reply.Integer(cmd.server.persist.lastsave_unix.load(std::memory_order_relaxed));
}

}  // namespace

void RegisterSaveCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily();
  f.Add({.name = "save",
         .arity = 1,
         .flags = kCmdAdmin | kCmdNoScript | kCmdNoAsyncLoading | kCmdNoMulti,
         .on_coord = Save,
         .categories = {"@dangerous"}});
  f.Add({.name = "bgsave",
         .arity = -1,
         .flags = kCmdAdmin | kCmdNoScript | kCmdNoAsyncLoading,
         .on_coord = BgSave,
         .categories = {"@dangerous"}});
  f.Add({.name = "bgrewriteaof",
         .arity = 1,
         .flags = kCmdAdmin | kCmdNoScript | kCmdNoAsyncLoading,
         .on_coord = BgRewriteAof,
         .categories = {"@dangerous"}});
  f.Add({.name = "lastsave",
         .arity = 1,
         .flags = kCmdLoading | kCmdStale | kCmdFast,
         .on_coord = LastSave,
         .categories = {"@admin", "@dangerous"}});
}

}  // namespace rc
