#pragma once
// One way to run a command's handler. Every path that runs a handler goes through
// InvokeOnShard or InvokeOnCoord, so a command is recorded, timed, counted and slow-logged
// alike wherever it came from; what differs between the paths is the InvokeAs it runs as:
//
//   path        who runs it                          slow log
//   kClient     the connection's thread (Dispatch)   here, the client as its peer
//   kForwarded  its keys' owner, for a client        Ran::slow: the client's thread logs it
//   kExec       EXEC, here or on the keys' owner     Ran::slow: EXEC logs it at its end
//   kScript     a script, here or on the owner       here, as Redis's script client "?:0"
//   kInternal   the metrics endpoint's INFO          not logged, not counted
//
// Every counted path: an on_shard handler's changes reach the append-only log (into
// InvokeAs::records when given), the run counts in its thread's command stats (calls, time,
// a failure when its reply is an error, latency percentiles) and in the latency monitor.
// A client's command forwarded to its owner is a top-level command there, so clients
// blocked on keys it filled are served after it, as after one run on its own thread.

#include <cstdint>
#include <string>

#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"
#include "shard/wire/command.h"

namespace rc {

enum class InvokePath : uint8_t { kClient, kForwarded, kExec, kScript, kInternal };

struct InvokeAs {
  InvokePath path;
  // kClient: the slow log's peer, read on the connection's thread.
  const ClientState* client = nullptr;
  // With the log on: where an on_shard handler's records go instead of its shard's own
  // (EXEC and a script gather theirs, to hand them to the journal whole).
  std::string* records = nullptr;
};

struct Ran {
  uint64_t ns = 0;  // the handler's run (a coordinator's synchronous part)
  bool slow = false;  // due in the slow log and not there yet: the caller logs it at home
};

// `thread`'s thread, the owner of args' keys: spec.on_shard, answering into `reply`.
Ran InvokeOnShard(ShardThread& thread, ServerState& server, const CommandSpec& spec, ArgList args,
                  ReplyBuilder& reply, const InvokeAs& as);

// cmd.self's thread: spec.on_coord. What a coordinator changes reaches the log by its own
// path (multi_shard.cc; EXEC and scripts record theirs when the reply is complete).
Ran InvokeOnCoord(CoordCmd& cmd, const CommandSpec& spec, const InvokeAs& as);

// The connection's thread: the slow log's entry for a run that came back Ran::slow.
void LogSlowRun(ServerState& server, const ClientState& client, ArgList args, uint64_t ns);

}  // namespace rc
