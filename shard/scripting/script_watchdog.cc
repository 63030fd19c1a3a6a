#include "shard/scripting/script_watchdog.h"

#include "core/log.h"
#include "shard/command/busy_refusal.h"
#include "shard/runtime/shard_set.h"
#include "shard/scripting/lua_engine.h"
#include "shard/scripting/script_errors.h"
#include "shard/state/server_state.h"
#include "timers/clock.h"

namespace rc {

void ScriptWatchdog::Start(ScriptRun& run) {
  if (run.start_ns == 0) run.start_ns = MonotonicNanos();
}

bool ScriptWatchdog::Interrupted(ScriptRun& run) {
  ScriptBusy& busy = thread_.script_busy();
  const bool stopping = server_.shutdown_requested.load(std::memory_order_relaxed);
  if (busy.killed() || stopping) return true;
  if (!busy.busy()) {
    const int64_t threshold_ms = server_.config.busy_reply_threshold;
    if (threshold_ms <= 0) return false;
    const int64_t elapsed_ms = (MonotonicNanos() - run.start_ns) / 1'000'000;
    if (elapsed_ms < threshold_ms) return false;
    Log(LogLevel::kWarning, "Slow script detected: still in execution after ", elapsed_ms,
        " milliseconds. You can try killing the script using the ",
        run.function ? "FUNCTION KILL" : "SCRIPT KILL", " command.");
    ScriptBusy::Running running{std::string(run.name), {}, run.start_ns};
    for (std::string_view a : run.command) running.command.emplace_back(a);
    busy.Enter(run.wrote, run.function, std::move(running));
  }
  if (BusyTurn* turn = thread_.busy_turn()) turn->ServeWhileBusy();
  return busy.killed() || server_.shutdown_requested.load(std::memory_order_relaxed);
}

bool ScriptWatchdog::MayWrite(ScriptRun& run) {
  run.wrote = true;
  ScriptBusy& busy = thread_.script_busy();
  return !busy.busy() || busy.Write();
}

void ScriptWatchdog::Stop() {
  ScriptBusy& busy = thread_.script_busy();
  if (!busy.busy()) return;
  if (busy.killed()) Log(LogLevel::kWarning, "Lua script killed by user with SCRIPT KILL.");
  busy.Leave();
}

void KillBusyScripts(ShardSet& shards, bool eval, ReplyBuilder& reply) {
  bool killed = false, wrote = false;
  const ScriptBusy* other = nullptr;
  for (uint32_t t = 0; t < shards.size(); ++t) {
    ScriptBusy& busy = shards.thread(t).script_busy();
    switch (busy.Kill(eval)) {
      case ScriptBusy::KillResult::kKilled:
        killed = true;
        break;
      case ScriptBusy::KillResult::kWrote:
        wrote = true;
        break;
      case ScriptBusy::KillResult::kOtherKind:
        other = &busy;
        break;
      case ScriptBusy::KillResult::kNotBusy:
        break;
    }
  }
  if (killed) return reply.Ok();
  if (wrote) return reply.Error(script_err::kUnkillable);
  if (other != nullptr) return reply.Error(BusyError(*other));
  reply.Error(script_err::kNotBusy);
}

}  // namespace rc
