#pragma once
// Server-wide diagnostic state that any worker thread may add to: the slow log, the
// latency monitor's events and CLIENT PAUSE. The logs take a mutex, but only for
// commands slower than their thresholds (10 ms and off by default), never on the common
// path; the pause is two atomics every connection reads before running a command.

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "shard/wire/command.h"

namespace rc {

struct SlowLogEntry {
  uint64_t id = 0;
  int64_t unix_seconds = 0;
  uint64_t micros = 0;
  std::vector<std::string> args;  // truncated as Redis does (SlowLog::Add)
  std::string addr;
  std::string name;
};

class SlowLog {
 public:
  // Any thread. Copies at most 32 arguments and 128 bytes of each, as Redis.
  void Add(ArgList args, uint64_t micros, int64_t unix_seconds, const std::string& addr,
           const std::string& name, size_t max_len);
  // Newest first; count < 0: all.
  std::vector<SlowLogEntry> Get(int64_t count) const;
  size_t Len() const;
  void Reset();
  // CONFIG SET slowlog-max-len: drops the oldest entries beyond `max_len`.
  void Trim(size_t max_len);

 private:
  mutable std::mutex mu_;
  std::deque<SlowLogEntry> entries_;  // newest first
  uint64_t next_id_ = 0;
};

// The latency monitor's events: "command" (slow non-fast commands) and "fast-command".
// Each keeps Redis's history: one sample per second (that second's worst), the last 160.
class LatencyMonitor {
 public:
  static constexpr size_t kHistory = 160;  // Redis's LATENCY_TS_LEN
  struct Sample {
    int64_t unix_seconds = 0;  // 0: an unused slot
    uint64_t ms = 0;
  };
  struct Event {
    std::array<Sample, kHistory> samples{};
    size_t next = 0;      // the slot a new second's sample goes to
    uint64_t max_ms = 0;  // worst since the event was created or reset
    const Sample& Latest() const { return samples[(next + kHistory - 1) % kHistory]; }
    // Used slots, oldest first.
    std::vector<Sample> History() const;
  };
  void Add(const std::string& event, uint64_t ms, int64_t unix_seconds);
  // A copy of every event, by name.
  std::map<std::string, Event> Snapshot() const;
  // Resets the named events (all when `events` is empty); returns how many existed.
  size_t Reset(const std::vector<std::string>& events);

 private:
  mutable std::mutex mu_;
  std::map<std::string, Event> events_;
};

// CLIENT PAUSE: while now < end_ms, connections hold back every command (ALL) or the
// ones that write (WRITE); each reactor re-checks its parked connections every loop turn.
class ClientPause {
 public:
  enum Mode : int { kNone = 0, kWrite = 1, kAll = 2 };
  // Redis keeps the later deadline and the stricter mode while pauses overlap.
  void Pause(int64_t end_ms, Mode mode);
  void Unpause() {
    end_ms_.store(0, std::memory_order_release);
    mode_.store(kNone, std::memory_order_release);
  }
  // Hot path: one relaxed load; false once an expired pause has been cleared.
  bool Requested() const { return end_ms_.load(std::memory_order_relaxed) != 0; }
  // Forgets a pause whose deadline has passed, so Requested() is cheap again.
  void ClearIfExpired(int64_t now_ms) {
    int64_t end = end_ms_.load(std::memory_order_acquire);
    if (end != 0 && now_ms >= end) end_ms_.compare_exchange_strong(end, 0);
  }
  bool Holds(uint32_t cmd_flags, int64_t now_ms) const {
    int64_t end = end_ms_.load(std::memory_order_relaxed);
    if (end == 0) return false;
    return HoldsSlow(cmd_flags, now_ms, end);
  }
  bool Active(int64_t now_ms) const {
    int64_t end = end_ms_.load(std::memory_order_acquire);
    return end != 0 && now_ms < end;
  }

 private:
  bool HoldsSlow(uint32_t cmd_flags, int64_t now_ms, int64_t end) const;
  std::mutex mu_;  // serializes Pause's read-modify-write of the pair
  std::atomic<int64_t> end_ms_{0};
  std::atomic<int> mode_{kNone};
};

struct Introspection {
  SlowLog slowlog;
  LatencyMonitor latency;
  ClientPause pause;
  // MONITOR clients on all threads: while zero, commands skip the feed (one relaxed load).
  std::atomic<int64_t> monitors{0};
};

// Redis's MONITOR line for a command: +<unix s>.<us> [0 <addr>] "arg" "arg"...\r\n, each
// argument quoted and escaped as sdscatrepr does.
std::string MonitorLine(int64_t unix_us, std::string_view addr, ArgList args);

}  // namespace rc
