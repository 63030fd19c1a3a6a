#pragma once
// Time sources for the server. Deadlines and TIME replies are absolute Unix time, so
// expiry survives clock jumps the same way Redis's does; tests inject a manual clock so
// TTL logic runs without sleeping.

#include <atomic>
#include <cstdint>

namespace rc {

class Clock {
 public:
  virtual ~Clock() = default;
  // Any thread.
  virtual int64_t NowUnixMicros() const = 0;
  int64_t NowUnixMillis() const { return NowUnixMicros() / 1000; }
  int64_t NowUnixSeconds() const { return NowUnixMicros() / 1000000; }
};

class SystemClock final : public Clock {
 public:
  int64_t NowUnixMicros() const override;
  static SystemClock& Instance();
};

// A clock that moves only when told to.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_micros = 1'700'000'000'000'000) : now_(start_micros) {}
  int64_t NowUnixMicros() const override { return now_.load(std::memory_order_relaxed); }
  void AdvanceMillis(int64_t ms) { now_.fetch_add(ms * 1000, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> now_;
};

// Monotonic nanoseconds, for measuring how long work took (budgets, latency).
int64_t MonotonicNanos();

}  // namespace rc
