#include "shard/command/dispatcher.h"

#include <cctype>
#include <memory>

#include "core/strings.h"
#include "shard/command/client_state.h"
#include "shard/command/errors.h"
#include "shard/command/owned_args.h"
#include "shard/command/reply_sink.h"
#include "shard/server/auth.h"
#include "shard/server/server_state.h"
#include "timers/cycle_clock.h"

namespace rc {

std::string UnknownCommandError(ArgList args) {
  // Same truncation as Redis: the name to 128 bytes, the quoted arguments to ~128 bytes.
  std::string quoted;
  for (size_t i = 1; i < args.size() && quoted.size() < 128; ++i) {
    StrAppend(&quoted, "'", args[i].substr(0, 128 - quoted.size()), "' ");
  }
  return StrCat("ERR unknown command '", args[0].substr(0, 128),
                "', with args beginning with: ", quoted);
}

std::string WrongArityError(std::string_view command_name) {
  return StrCat("ERR wrong number of arguments for '", command_name, "' command");
}

bool Dispatcher::MustWait(const ClientState& client, ArgList args) const {
  if (!client.Locking()) return false;
  const CommandSpec* spec = table_.Find(args[0]);
  if (spec == nullptr || !spec->ArityOk(args.size())) return false;  // just an error reply
  // Between MULTI and EXEC commands are only queued; EXEC is what runs them.
  if (client.multi && !(spec->flags & kCmdNotQueued)) return false;
  if (spec->flags & kCmdWaitsForLocks) return true;
  if (spec->keys.none()) {
    // Keyless commands that touch the keyspace as a whole (KEYS, FLUSHALL, ...) wait for
    // everything; connection and server commands wait for nothing.
    return (spec->flags & (kCmdWrite | kCmdReadOnly)) != 0;
  }
  // Keys beyond the row's triple (ZUNIONSTORE's follow numkeys) are not known here: such
  // coordinator-only rows wait for everything too.
  if (spec->on_shard == nullptr) return true;
  if (client.locking_whole > 0) return true;
  for (std::string_view k : spec->KeysOf(args)) {
    if (client.locking_keys.contains(absl::string_view(k.data(), k.size()))) return true;
  }
  return false;
}

void Dispatcher::Reject(ShardThread& self, int64_t stat_id, ReplyBuilder& reply,
                        std::string_view error) const {
  if (stat_id >= 0) self.command_stats().Rejected(uint32_t(stat_id));
  self.command_stats().ErrorReply(error);
  reply.Error(error);
}

bool Dispatcher::Paused(ArgList args) const {
  ClientPause& pause = server_.introspect.pause;
  int64_t now_ms = server_.clock->NowUnixMillis();
  if (!pause.Active(now_ms)) {
    pause.ClearIfExpired(now_ms);
    return false;
  }
  const CommandSpec* spec = table_.Find(args[0]);
  return pause.Holds(spec != nullptr ? spec->flags : 0, now_ms);
}

void Dispatcher::Record(ShardThread& thread, const CommandSpec& spec, uint32_t stat_id, uint64_t ns,
                        const std::string& out, size_t from) const {
  CountCommand(thread.command_stats(), stat_id, ns, out, from,
               server_.config.latency_tracking.get() != 0);
  int64_t threshold_ms = server_.config.latency_monitor_threshold;
  if (threshold_ms > 0 && int64_t(ns / 1'000'000) >= threshold_ms) {
    server_.introspect.latency.Add((spec.flags & kCmdFast) ? "fast-command" : "command",
                                   ns / 1'000'000, server_.clock->NowUnixMillis() / 1000);
  }
}

void Dispatcher::MaybeSlowLog(const ClientState& client, ArgList args, uint64_t ns) const {
  if (!SlowEnough(ns)) return;
  server_.introspect.slowlog.Add(args, ns / 1000, server_.clock->NowUnixMillis() / 1000,
                                 client.addr, client.name,
                                 size_t(server_.config.slowlog_max_len.get()));
}

void Dispatcher::FeedMonitors(ShardThread& self, const ClientState& client, ArgList args) const {
  auto line = std::make_shared<const std::string>(
      MonitorLine(server_.clock->NowUnixMicros(), client.addr, args));
  for (uint32_t t = 0; t < shards_.size(); ++t) {
    auto deliver = [shards = &shards_, t, line] {
      for (const auto& [id, monitor] : shards->thread(t).clients().monitors()) {
        monitor->Push(*line);
      }
    };
    if (t == self.id()) {
      deliver();
    } else {
      self.Post(t, deliver);
    }
  }
}

void Dispatcher::Dispatch(ShardThread& self, ClientState& client, ReplySink& sink,
                          ReplyBuilder& reply, ArgList args) const {
  ++self.stats().commands_processed;
  // A refused command also dooms the transaction being queued, as in Redis; it counts as
  // rejected (stat_id >= 0) and in errorstats.
  auto refuse = [&](int64_t stat_id, std::string_view error) {
    if (client.multi) client.multi->aborted = true;
    Reject(self, stat_id, reply, error);
  };
  const CommandSpec* spec = table_.Find(args[0]);
  if (spec == nullptr) return refuse(-1, UnknownCommandError(args));
  uint32_t stat_id = spec->stat_id;
  uint32_t flags = spec->flags;  // a container's: its subcommand's, once known
  client.last_cmd = stat_id;
  if (!spec->ArityOk(args.size())) return refuse(stat_id, WrongArityError(spec->name));
  if (!spec->subcommands.empty() && args.size() >= 2) {
    int sub = spec->FindSubcommand(args[1]);
    if (sub < 0) {
      std::string upper = spec->name;
      for (char& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
      return refuse(-1, StrCat("ERR unknown subcommand '", args[1].substr(0, 128), "'. Try ", upper,
                               " HELP."));
    }
    stat_id = spec->sub_stat_ids[size_t(sub)];
    if (size_t(sub) < spec->sub_info.size()) flags = spec->sub_info[size_t(sub)].flags;
    client.last_cmd = stat_id;
    int arity = spec->subcommands[size_t(sub)].second;
    if (arity >= 0 ? args.size() != size_t(arity) : args.size() < size_t(-arity)) {
      return refuse(stat_id, WrongArityError(spec->FullName(args)));
    }
  }
  // After the name and arity checks, as Redis: an unknown command is reported as such.
  if (!(spec->flags & kCmdNoAuth) && AuthRequired(server_, client)) {
    return refuse(stat_id, err::kNoAuth);
  }
  if (client.Subscriptions() > 0 && !client.resp3 && !(spec->flags & kCmdSubscribeOk)) {
    return refuse(stat_id,
                  StrCat("ERR Can't execute '", spec->FullName(args),
                         "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
                         "allowed in this context"));
  }
  // Redis flags a MONITOR client as a replica, which may not touch the keyspace.
  if (client.monitor && (flags & (kCmdWrite | kCmdReadOnly | kCmdMayReplicate))) {
    return refuse(stat_id, "ERR Replica can't interact with the keyspace");
  }
  if (client.multi && !(spec->flags & kCmdNotQueued)) {
    // As Redis, nothing is kept once EXEC is bound to fail: a refused command doomed
    // it, or a watched key changed (that flag stays set until EXEC, DISCARD or UNWATCH).
    const bool doomed =
        client.multi->aborted ||
        (client.watching.state && client.watching.state->dirty.load(std::memory_order_relaxed));
    if (!doomed) {
      client.multi->queued.push_back(QueuedCommand{spec, std::make_unique<OwnedArgs>(args)});
    }
    reply.SimpleString("QUEUED");
    return;
  }
  // As Redis, admin commands are not shown to monitors (they may carry secrets), and a
  // command is shown after it ran: a monitor sees its own command's reply first.
  const bool feed =
      server_.introspect.monitors.load(std::memory_order_relaxed) > 0 && !(flags & kCmdAdmin);
  Execute(self, client, sink, reply, spec, stat_id, args);
  if (feed) FeedMonitors(self, client, args);
}

void Dispatcher::Execute(ShardThread& self, ClientState& client, ReplySink& sink,
                         ReplyBuilder& reply, const CommandSpec* spec, uint32_t stat_id,
                         ArgList args) const {
  // A row with key positions routes by its first key; a shorter invocation (OBJECT HELP,
  // MEMORY STATS) names no key and runs on the connection's thread.
  const KeyRange& keys = spec->keys;
  if (spec->on_shard != nullptr && !keys.none() && int(args.size()) > keys.first) {
    int last = keys.last < 0 ? int(args.size()) + keys.last : keys.last;
    if (last >= int(args.size())) last = int(args.size()) - 1;
    uint32_t owner = shards_.ShardOf(args[keys.first]);
    bool one_shard = true;
    for (int i = keys.first + keys.step; one_shard && i <= last; i += keys.step) {
      one_shard = shards_.ShardOf(args[i]) == owner;
    }
    if (one_shard) {
      if (owner != self.id()) return RunRemote(self, owner, *spec, stat_id, client, sink, args);
      Shard& shard = self.shard();
      if (shard.locks().Idle()) {
        ShardCmd cmd{shard, args, reply, server_};
        return Timed(self, client, *spec, stat_id, args, reply, [&] { spec->on_shard(cmd); });
      }
      // A multi-shard command holds or awaits some keys here: check ours.
      uint64_t slot = sink.Defer();
      ReplySink* reply_to = &sink;
      ClientState* who = &client;
      RunWhenFree(self, *spec, stat_id, std::make_unique<OwnedArgs>(args), client.resp3,
                  [this, reply_to, who, slot](std::string out, uint64_t ns,
                                              std::unique_ptr<OwnedArgs> slow) {
                    if (slow) MaybeSlowLog(*who, slow->view(), ns);
                    reply_to->Fulfill(slot, std::move(out));
                  });
      return;
    }
  }
  CoordCmd cmd{self, shards_, server_, client, sink, table_, args, reply};
  Timed(self, client, *spec, stat_id, args, reply, [&] { spec->on_coord(cmd); });
}

void Dispatcher::RunWhenFree(ShardThread& thread, const CommandSpec& spec, uint32_t stat_id,
                             std::unique_ptr<OwnedArgs> owned, bool resp3, Deliver deliver) const {
  // Keys view owned's buffer, which stays put when `owned` moves into the task.
  KeyLocks& locks = thread.shard().locks();
  KeyLocks::Keys keys;
  if (!locks.Idle()) keys = spec.KeysOf(owned->view());
  auto run = [this, &thread, &spec, stat_id, resp3, owned = std::move(owned),
              deliver = std::move(deliver)]() mutable {
    std::string out;
    ReplyBuilder rb(&out, resp3);
    ShardCmd cmd{thread.shard(), owned->view(), rb, server_};
    uint64_t start = CycleClock::Now();
    spec.on_shard(cmd);
    uint64_t ns = CycleClock::ToNanos(CycleClock::Now() - start);
    // Counted here, on the thread where it ran. The slow log wants the client, which only
    // the connection's thread may read, so a slow command's arguments travel back.
    Record(thread, spec, stat_id, ns, out, 0);
    bool slow = SlowEnough(ns) && !(spec.flags & kCmdSkipSlowlog);
    deliver(std::move(out), ns, slow ? std::move(owned) : nullptr);
  };
  if (locks.Idle() || locks.MayRun(keys, false)) return run();
  locks.Enqueue(std::move(keys), false, std::move(run));
}

void Dispatcher::RunRemote(ShardThread& self, uint32_t owner, const CommandSpec& spec,
                           uint32_t stat_id, ClientState& client, ReplySink& sink,
                           ArgList args) const {
  ++self.stats().remote_commands;
  uint64_t slot = sink.Defer();
  const uint32_t home = self.id();
  ShardSet* shards = &shards_;
  const CommandSpec* command = &spec;
  ReplySink* reply_to = &sink;
  ClientState* who = &client;
  const bool resp3 = client.resp3;
  self.Post(owner, [this, shards, command, stat_id, owner, home, slot, reply_to, who, resp3,
                    owned = std::make_unique<OwnedArgs>(args)]() mutable {
    ShardThread& there = shards->thread(owner);
    RunWhenFree(there, *command, stat_id, std::move(owned), resp3,
                [this, &there, home, reply_to, who, slot](std::string out, uint64_t ns,
                                                          std::unique_ptr<OwnedArgs> slow) {
                  // reply_to and who are dereferenced only back on the connection's thread.
                  there.Post(home, [this, reply_to, who, slot, ns, slow = std::move(slow),
                                    out = std::move(out)]() mutable {
                    if (slow) MaybeSlowLog(*who, slow->view(), ns);
                    reply_to->Fulfill(slot, std::move(out));
                  });
                });
  });
}

}  // namespace rc
