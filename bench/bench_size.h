#pragma once
// The sizes of the micro-benchmarks that build big tables. bench/smoke.sh sets
// RINGCACHE_BENCH_SMOKE to run each binary once in seconds, to see it still runs: every
// size is then a hundredth (at least 1000), and the figures mean nothing.

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace rc::bench {

inline int64_t BenchSize(int64_t n) {
  static const bool smoke = std::getenv("RINGCACHE_BENCH_SMOKE") != nullptr;
  return smoke ? std::max<int64_t>(n / 100, 1000) : n;
}

}  // namespace rc::bench
