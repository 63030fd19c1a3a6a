#pragma once
// One thread's busy script: Redis's busy-reply-threshold and SCRIPT KILL
// (docs/SCRIPTING.md, "Busy scripts"). A script that has run past the threshold makes its
// thread busy: the thread then serves its clients only from inside the script (BusyTurn),
// answering -BUSY to all but the allow_busy commands, and the other threads answer -BUSY
// for the commands that would need it.
//
// The state is one atomic byte, so SCRIPT KILL (any thread) and the script's first write
// (its own thread) cannot both win:
//
//   idle ─(its run passes the threshold)─▶ busy ─(it writes)─▶ busy, wrote   UNKILLABLE
//                                            └─(SCRIPT KILL)──▶ killed        it raises
//   any ─(the run ends, or suspends: a script over several shards)─▶ idle
//
// Only the script's own thread leaves idle or returns to it; other threads only turn
// busy into killed.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rc {

// Implemented by the thread's reactor (net/): one restricted loop turn run from inside
// the thread's busy script. Its own thread only.
class BusyTurn {
 public:
  virtual ~BusyTurn() = default;
  virtual void ServeWhileBusy() = 0;
};

class ScriptBusy {
 public:
  enum class KillResult : uint8_t {
    kKilled,     // it had not written: it raises at its next check
    kWrote,      // UNKILLABLE
    kOtherKind,  // a function for SCRIPT KILL, a script for FUNCTION KILL
    kNotBusy,
  };

  // `busy_threads` counts the busy threads of the process (ShardSet::AnyScriptBusy).
  explicit ScriptBusy(std::atomic<int>& busy_threads) : busy_threads_(busy_threads) {}

  // Any thread.
  bool busy() const { return Phase(state_.load(std::memory_order_acquire)) != kIdle; }
  // An FCALL's function rather than an EVAL's script: the -BUSY text names FUNCTION KILL.
  bool function() const { return state_.load(std::memory_order_acquire) & kFunction; }
  // SCRIPT KILL (`eval`) or FUNCTION KILL.
  KillResult Kill(bool eval);

  // What FUNCTION STATS shows of a busy function: its name, the command that called it
  // and when it began (monotonic ns).
  struct Running {
    std::string name;
    std::vector<std::string> command;
    int64_t start_ns = 0;
  };
  // Any thread: the busy run's, or nothing when the thread is not busy.
  std::optional<Running> running() const;

  // The script's thread.
  void Enter(bool wrote, bool function, Running running);
  // The busy run is about to run a write command: false when a kill came first (the
  // write must not run).
  bool Write();
  bool killed() const { return Phase(state_.load(std::memory_order_acquire)) == kKilled; }
  void Leave();

 private:
  enum : uint8_t { kIdle = 0, kBusy = 1, kWrote = 2, kKilled = 3, kPhase = 3, kFunction = 4 };
  static uint8_t Phase(uint8_t s) { return s & kPhase; }

  std::atomic<uint8_t> state_{kIdle};
  mutable std::mutex mu_;
  std::optional<Running> running_;  // guarded by mu_
  std::atomic<int>& busy_threads_;
};

}  // namespace rc
