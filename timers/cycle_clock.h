#pragma once
// A cheap timestamp for timing every command (INFO commandstats, SLOWLOG, LATENCY).
// On x86 it reads the TSC (~20 ns here against ~30 ns for a vDSO clock_gettime, and a
// command is timed with two reads); the kernel only picks the TSC as its clocksource when
// it is invariant and synchronized across cores, so ticks compare between threads.
// Elsewhere it falls back to MonotonicNanos.

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "timers/clock.h"

namespace rc {

class CycleClock {
 public:
  // Any thread.
  static uint64_t Now() {
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return uint64_t(MonotonicNanos());
#endif
  }
  // Converts a difference of Now() values to nanoseconds. The rate is measured once,
  // on first use (about 2 ms against CLOCK_MONOTONIC).
  static uint64_t ToNanos(uint64_t ticks) { return uint64_t(double(ticks) * NanosPerTick()); }
  static double NanosPerTick();
};

}  // namespace rc
