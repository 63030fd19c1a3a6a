#include "timers/clock.h"

#include <time.h>

#include "timers/cycle_clock.h"

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

namespace rc {

double CycleClock::NanosPerTick() {
  static const double rate = [] {
#if defined(__x86_64__) || defined(__i386__)
    int64_t ns0 = MonotonicNanos();
    uint64_t t0 = Now();
    int64_t ns1 = ns0;
    while (ns1 - ns0 < 2'000'000) ns1 = MonotonicNanos();
    uint64_t t1 = Now();
    return t1 > t0 ? double(ns1 - ns0) / double(t1 - t0) : 1.0;
#else
    return 1.0;
#endif
  }();
  return rate;
}

}  // namespace rc
