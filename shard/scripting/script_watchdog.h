#pragma once
// Watches the script running on one thread (Redis's scriptInterrupt): past
// busy-reply-threshold its thread turns busy (shard/runtime/script_busy.h) and, from
// then on, serves its clients from inside the script at every check (BusyTurn); SCRIPT
// KILL or SHUTDOWN ends the script at the next check. Owner thread only, except
// KillBusyScripts.
//
//   LuaEngine::Run / Resume ─▶ Start ─▶ the script runs; every 100000 Lua instructions
//     the engine's count hook ─▶ Interrupted: the time since the run began
//        ├─ under the threshold (or threshold 0) ─▶ goes on
//        └─ past it ─▶ busy (logged once) ─▶ BusyTurn::ServeWhileBusy ─▶ killed? raise
//   ─▶ Stop when the run ends, or a multi-shard script suspends: the thread is not busy
//      while it waits (it serves everyone), and is busy again at its next check past the
//      threshold.

#include <cstdint>

#include "core/reply_builder.h"

namespace rc {

class ShardSet;
class ShardThread;
struct ScriptRun;
struct ServerState;

class ScriptWatchdog {
 public:
  ScriptWatchdog(ShardThread& thread, const ServerState& server)
      : thread_(thread), server_(server) {}

  // A run, or a step of a multi-shard script's run, begins; its clock starts with the
  // first.
  void Start(ScriptRun& run);
  // From the engine's count hook: true when the run must end now (killed, or the server
  // shuts down). It may serve the thread's clients first.
  bool Interrupted(ScriptRun& run);
  // The run is about to call a write command (after which SCRIPT KILL answers
  // UNKILLABLE): false when it was killed first, and the write must not run.
  bool MayWrite(ScriptRun& run);
  // The run (or step) ended or suspended.
  void Stop();

 private:
  ShardThread& thread_;
  const ServerState& server_;
};

// SCRIPT KILL (`eval`) or FUNCTION KILL, from any thread: kills every busy script of that
// kind that has not written, and answers as Redis: OK, UNKILLABLE when every busy one
// wrote, the other kind's -BUSY, or NOTBUSY.
void KillBusyScripts(ShardSet& shards, bool eval, ReplyBuilder& reply);

}  // namespace rc
