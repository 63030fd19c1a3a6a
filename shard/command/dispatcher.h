#pragma once
// The network layer's two calls: Admit looks a parsed command up in the table once and
// says whether it must wait; Dispatch checks it and runs it where its keys live, through
// the invoker (invoke.h) every path shares.
//
//   Dispatch (connection's thread): builds a Request once, then works only with it
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
#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"
#include "shard/wire/command.h"
#include "shard/wire/hop_batch.h"
#include "shard/wire/owned_args.h"

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

  // The rows a request names, looked up once by Admit for Dispatch.
  struct Resolved {
    const CommandSpec* command = nullptr;  // args[0]'s row; null: an unknown command
    // The row that runs: a container's subcommand's own when called with one (null: an
    // unknown subcommand), else `command`.
    const CommandSpec* row = nullptr;
  };
  // Why a parsed request may not run yet. The caller stops reading there, keeping the
  // request's bytes, and parses it again when the hold ends.
  enum class Hold : uint8_t {
    kNone,        // run it now: Dispatch
    kForLocks,    // an earlier multi-shard command of the client is still taking locks
                  // on keys it names; until ReplySink::Resume
    kForEarlier,  // kCmdAfterEarlier while replies of the client's earlier commands are
                  // owed by other threads; until the last of them arrives
    kForPause,    // CLIENT PAUSE holds it; until the pause ends. The held command is the
                  // client's current one (CLIENT LIST's cmd=), as in Redis
  };
  struct Admission {
    Hold hold = Hold::kNone;
    Resolved command;
  };

  // The connection's thread, for each parsed request before it runs: looks its rows up
  // and says whether it must wait. `replies_owed`: replies of the client's earlier
  // commands are still owed by other threads. One relaxed load for the pause check when
  // none is set.
  Admission Admit(ClientState& client, ArgList args, bool replies_owed) const;

  // Runs on `self`, the connection's thread, a request that Admit let through (with the
  // rows it resolved). The reply goes through `reply` when it is ready now, or through
  // `sink` when another thread must answer.
  void Dispatch(ShardThread& self, ClientState& client, ReplySink& sink, ReplyBuilder& reply,
                ArgList args, const Resolved& command) const;

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
  // Refuses a request before it runs: a transaction being queued is doomed, the refusal
  // counts as rejected (a known row's, `stat_id` >= 0) and in errorstats.
  void Refuse(Request& req, int64_t stat_id, std::string_view error) const;
  // Admit's holds, for a known row called with a valid arity (Paused: any row or none).
  bool WaitsForLocks(const ClientState& client, const CommandSpec& row, ArgList args) const;
  bool WaitsForEarlier(const ClientState& client, const CommandSpec& row) const;
  bool Paused(ClientState& client, const CommandSpec* row) const;
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
