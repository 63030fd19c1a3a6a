#pragma once
// The one entry point the network layer calls: checks a parsed command against the
// table and runs it where its keys live.
//
//   Dispatch (connection's thread): resolves a Request once, then works only with it
//     ├─ unknown name / subcommand, bad arity ──▶ error reply inline
//     ├─ keys all on this thread's shard ───────▶ on_shard inline
//     ├─ keys all on one other shard ───────────▶ joins the batch for the owner ─▶ on_shard
//     │                                            there ─▶ the batch's replies come back
//     └─ keyless, or keys on several shards ────▶ on_coord inline (may fan out)
//
// The row a request runs is the subcommand's own for a container (CONFIG GET runs the
// row "config|get": its flags, keys, handler, statistics), else the command's.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/functional/any_invocable.h"
#include "shard/command/command.h"
#include "shard/command/hop_batch.h"
#include "shard/command/owned_args.h"
#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"
#include "timers/cycle_clock.h"

namespace rc {

// No single shard: a request that is keyless, has keys on several shards, or runs on a
// row only a coordinator can run.
inline constexpr uint32_t kNoShard = UINT32_MAX;

// The shard that owns every key `keys` names in `args`; kNoShard for none or several.
// Any thread; inline, as it runs for every keyed request.
inline uint32_t OwnerOf(const ShardSet& shards, ArgList args, KeySpan keys) {
  if (keys.empty()) return kNoShard;
  const uint32_t owner = shards.ShardOf(args[keys.first]);
  for (size_t i = keys.first + keys.step; i <= keys.last; i += keys.step) {
    if (shards.ShardOf(args[i]) != owner) return kNoShard;
  }
  return owner;
}

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
  // Connection's thread, before Dispatch, while replies of the client's earlier commands
  // are owed by other threads: true when `args` must wait for them (kCmdAfterEarlier).
  // The connection stops reading there until the last of them arrives.
  bool WaitsForEarlier(const ClientState& client, ArgList args) const;

  // Connection's thread, before Dispatch: true while CLIENT PAUSE holds this command;
  // the connection then parks until the pause ends. One relaxed load when none is set.
  // The held command is the client's current one (CLIENT LIST's cmd=), as in Redis.
  bool MustPause(ClientState& client, ArgList args) const {
    return server_.introspect.pause.Requested() && Paused(client, args);
  }

  // Connection's thread, before the requests it names are parsed: `keys` (the second
  // argument of each, net/resp_peek.h) that this thread's shard owns are hinted to its
  // table, so their lookups overlap rather than wait one after another.
  void Prefetch(ShardThread& self, const std::string_view* keys, size_t n) const;

  // Owner's thread, from inside its busy script (BusyTurn), for the hop batch that runs
  // the script: the replies of the commands before it leave now, and the commands after
  // it answer -BUSY now, each on its own, rather than wait for the script with their
  // batch; those of the script's own client wait, as Redis reads nothing from that
  // client meanwhile.
  void AnswerAroundBusyScript(ShardThread& there) const;

  const CommandTable& table() const { return table_; }

 private:
  // One request on the connection's thread, resolved once by Dispatch: who asked, the
  // row that runs, its keys' positions and the shard that owns them. Lives on Dispatch's
  // stack; what another thread needs travels as a ShardJob.
  struct Request {
    ShardThread& self;
    ClientState& client;
    ReplySink& sink;
    ReplyBuilder& reply;
    ArgList args;
    const CommandSpec* spec = nullptr;  // CONFIG GET's own row, or GET's
    // Filled by Execute for rows with an on_shard handler: where the keys are, and the
    // shard that owns them all (kNoShard: on_coord runs here).
    KeySpan keys = {};
    uint32_t owner = kNoShard;
    // The one slot of every key, when a cluster node's check computed it (ClusterRedirect):
    // Execute then takes the owner from it rather than hashing the keys again.
    int slot = -1;
  };

  // A request sent to its keys' shard, with its own copy of the arguments.
  struct ShardJob {
    const CommandSpec* spec;
    KeySpan keys;
    bool resp3;  // the client's protocol, read on the connection's thread
    std::unique_ptr<OwnedArgs> args;
  };

  // Gets the reply bytes, the command's run time and, when it was slow enough for the
  // slow log, its arguments; on the thread that ran it.
  using Deliver = absl::AnyInvocable<void(std::string, uint64_t, std::unique_ptr<OwnedArgs>)>;

  // Runs a request that passed every check: here, on its key's shard, or as a
  // coordinator.
  void Execute(Request& req) const;
  // Sends the request to req.owner and its reply back into a slot of req.sink.
  // Connection's thread: the request joins this turn's batch for its owner (hop_batch.h).
  void RunRemote(Request& req) const;
  // Owner's thread: runs a batch's commands, then sends the batch home with the replies.
  void RunBatch(std::unique_ptr<HopBatch> batch) const;
  void RunBatched(ShardThread& there, HopBatch& batch) const;
  // Owner's thread, its script busy: every command of the batch gets -BUSY.
  void AnswerBusy(ShardThread& there, HopBatch& batch) const;
  // Connection's thread: hands a batch's replies to their connections.
  void DeliverBatch(std::unique_ptr<HopBatch> batch) const;
  // Owner's thread: a batched command whose keys multi-shard locks hold waits with its
  // own copy of the arguments, and its reply travels home on its own.
  void WaitForKeys(ShardThread& there, uint32_t home, const HopRequest& r, ArgList args) const;
  // On the shard's thread: runs the job now, or once multi-shard commands have released
  // its keys; `deliver` gets the reply on this thread.
  void RunWhenFree(ShardThread& thread, ShardJob job, Deliver deliver) const;
  // Runs `handler` on the connection's thread between one pair of clock reads and counts
  // it: calls, time, failure (the reply it appended starts with an error), latency, slow
  // log. Commands that fan out are timed for their synchronous part only.
  template <typename Handler>
  void Timed(Request& req, Handler&& handler) const {
    size_t from = req.reply.out()->size();
    uint64_t start = CycleClock::Now();
    handler();
    uint64_t ns = CycleClock::ToNanos(CycleClock::Now() - start);
    Record(req.self, *req.spec, ns, *req.reply.out(), from);
    if (SlowEnough(ns) && !(req.spec->flags & kCmdSkipSlowlog)) {
      MaybeSlowLog(req.client, req.args, ns);
    }
  }
  // Counts one run of `spec` on `thread`, the thread it ran on; its reply is out[from...].
  void Record(ShardThread& thread, const CommandSpec& spec, uint64_t ns, const std::string& out,
              size_t from) const;
  bool SlowEnough(uint64_t ns) const { return server_.SlowEnough(ns); }
  void MaybeSlowLog(const ClientState& client, ArgList args, uint64_t ns) const;
  // Refuses a request before it runs: a transaction being queued is doomed, the refusal
  // counts as rejected (a known row's, `stat_id` >= 0) and in errorstats.
  void Refuse(Request& req, int64_t stat_id, std::string_view error) const;
  bool Paused(ClientState& client, ArgList args) const;
  // Over maxmemory with nothing to evict: whether this command gets the OOM error.
  bool OomRefuses(const Request& req) const;
  // stop-writes-on-bgsave-error refuses `spec` now (the last save failed).
  bool MisconfRefuses(const CommandSpec& spec) const;
  // On a cluster node's connection: the error that sends the request elsewhere (MOVED,
  // CROSSSLOT, CLUSTERDOWN), or "" when this node serves every key it names.
  std::string ClusterRedirect(Request& req) const;

  const CommandTable& table_;
  ShardSet& shards_;
  ServerState& server_;
};

// MONITOR: sends the line of `args`, run by the client at `addr`, to every monitoring
// client, each on its own thread. Runs on the command's connection thread.
void FeedMonitors(ShardThread& self, ShardSet& shards, const ServerState& server,
                  std::string_view addr, ArgList args);

// Redis's reply for a name it does not know, quoting the first arguments.
std::string UnknownCommandError(ArgList args);
std::string WrongArityError(std::string_view command_name);

}  // namespace rc
