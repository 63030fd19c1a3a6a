#include "timers/clock.h"

#include <time.h>

namespace rc {

int64_t SystemClock::NowUnixMicros() const {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
}

SystemClock& SystemClock::Instance() {
  static SystemClock clock;
  return clock;
}

int64_t MonotonicNanos() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace rc
