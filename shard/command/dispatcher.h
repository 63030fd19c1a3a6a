#pragma once
// The one entry point the network layer calls: checks a parsed command against the
// table and runs it where its keys live.
//
//   Dispatch (connection's thread)
//     ├─ unknown name / bad arity ──────────────▶ error reply inline
//     ├─ keys all on this thread's shard ───────▶ on_shard inline
//     ├─ keys all on one other shard ───────────▶ post to owner ─▶ on_shard ─▶ post reply back
//     └─ keyless, or keys on several shards ────▶ on_coord inline (may fan out)

#include <memory>
#include <string>

#include "absl/functional/any_invocable.h"
#include "shard/command/command.h"
#include "shard/command/owned_args.h"
#include "shard/runtime/shard_set.h"
#include "shard/server/server_state.h"
#include "timers/cycle_clock.h"

namespace rc {

class Dispatcher {
 public:
  Dispatcher(const CommandTable& table, ShardSet& shards, ServerState& server)
      : table_(table), shards_(shards), server_(server) {}

  // Runs on `self`, the connection's thread. The reply goes through `reply` when it is
  // ready now, or through `sink` when another thread must answer.
  void Dispatch(ShardThread& self, ClientState& client, ReplySink& sink, ReplyBuilder& reply,
                ArgList args) const;

  // Connection's thread, before Dispatch: true when this command must not run yet
  // because an earlier multi-shard command of the same client is still taking locks on
  // keys it names. The connection stops reading there (keeping the bytes) until
  // ReplySink::Resume.
  bool MustWait(const ClientState& client, ArgList args) const;

  // Connection's thread, before Dispatch: true while CLIENT PAUSE holds this command;
  // the connection then parks until the pause ends. One relaxed load when none is set.
  bool MustPause(ArgList args) const {
    return server_.introspect.pause.Requested() && Paused(args);
  }

  const CommandTable& table() const { return table_; }

 private:
  // Gets the reply bytes, the command's run time and, when it was slow enough for the
  // slow log, its arguments; on the thread that ran it.
  using Deliver = absl::AnyInvocable<void(std::string, uint64_t, std::unique_ptr<OwnedArgs>)>;

  // `client` is read on the connection's thread only (its resp3, and for the slow log).
  void RunRemote(ShardThread& self, uint32_t owner, const CommandSpec& spec, uint32_t stat_id,
                 ClientState& client, ReplySink& sink, ArgList args) const;
  // On the shard's thread: runs the command now, or once multi-shard commands have released
  // its keys; `deliver` gets the reply on this thread.
  void RunWhenFree(ShardThread& thread, const CommandSpec& spec, uint32_t stat_id,
                   std::unique_ptr<OwnedArgs> owned, bool resp3, Deliver deliver) const;
  // Runs `handler` on the connection's thread between one pair of clock reads and counts
  // it: calls, time, failure (the reply it appended starts with an error), latency, slow
  // log. Commands that fan out are timed for their synchronous part only.
  template <typename Handler>
  void Timed(ShardThread& self, ClientState& client, const CommandSpec& spec, uint32_t stat_id,
             ArgList args, ReplyBuilder& reply, Handler&& handler) const {
    size_t from = reply.out()->size();
    uint64_t start = CycleClock::Now();
    handler();
    uint64_t ns = CycleClock::ToNanos(CycleClock::Now() - start);
    Record(self, spec, stat_id, ns, *reply.out(), from);
    if (SlowEnough(ns) && !(spec.flags & kCmdSkipSlowlog)) MaybeSlowLog(client, args, ns);
  }
  void Record(ShardThread& thread, const CommandSpec& spec, uint32_t stat_id, uint64_t ns,
              const std::string& out, size_t from) const;
  bool SlowEnough(uint64_t ns) const {
    int64_t threshold_us = server_.config.slowlog_log_slower_than;
    return threshold_us >= 0 && int64_t(ns / 1000) >= threshold_us;
  }
  void MaybeSlowLog(const ClientState& client, ArgList args, uint64_t ns) const;
  void Reject(ShardThread& self, int64_t stat_id, ReplyBuilder& reply,
              std::string_view error) const;
  bool Paused(ArgList args) const;
  // Runs a command that passed Dispatch's checks: here, on its key's shard, or as a
  // coordinator.
  void Execute(ShardThread& self, ClientState& client, ReplySink& sink, ReplyBuilder& reply,
               const CommandSpec* spec, uint32_t stat_id, ArgList args) const;
  // MONITOR: sends the command's line to every monitoring client, each on its thread.
  void FeedMonitors(ShardThread& self, const ClientState& client, ArgList args) const;

  const CommandTable& table_;
  ShardSet& shards_;
  ServerState& server_;
};

// Redis's reply for a name it does not know, quoting the first arguments.
std::string UnknownCommandError(ArgList args);
std::string WrongArityError(std::string_view command_name);

}  // namespace rc
