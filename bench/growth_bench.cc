// Does a growing keyspace stall? Inserts N new keys (12-byte keys, 32-byte values) into
// one shard through Shard::SetString, as a SET of a new key does, and times every window
// of 10k inserts in the thread's own CPU time (CLOCK_THREAD_CPUTIME_ID: preemption by
// other processes does not count, so the figure holds on a loaded machine). The table
// doubles at 2^k keys and moves its nodes to the new array a few per operation; if that
// work per operation is too large, the windows around a doubling cost many times the
// median one, which a client sees as a dip in throughput and a latency spike.
//
//   build/bench/growth_bench
//
// Counters: median and worst window in µs per 10k inserts, worst / median, and the key
// count where the worst window ended.

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_size.h"
#include "benchmark/benchmark.h"
#include "core/malloc_tuning.h"
#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"
#include "timers/clock.h"

namespace rc {
namespace {

double ThreadCpuMicros() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e6 + double(ts.tv_nsec) / 1e3;
}

void BM_GrowingInserts(benchmark::State& state) {
  const int64_t total = state.range(0);
  constexpr int64_t kWindow = 10000;
  TuneMalloc();
  for (auto _ : state) {
    ManualClock clock;
    ServerState server;
    server.clock = &clock;
    ShardSet shards(1, &server);
    Shard& shard = shards.thread(0).shard();
    const std::string value(32, 'v');
    char key[32];
    std::vector<double> windows;
    std::vector<int64_t> ends;
    double start = ThreadCpuMicros();
    for (int64_t i = 0; i < total; ++i) {
      std::snprintf(key, sizeof(key), "key:%08lld", static_cast<long long>(i));
      shard.SetString(key, value);
      if ((i + 1) % kWindow == 0) {
        const double now = ThreadCpuMicros();
        windows.push_back(now - start);
        ends.push_back(i + 1);
        start = now;
      }
    }
    const size_t worst = size_t(std::max_element(windows.begin(), windows.end()) - windows.begin());
    std::vector<double> sorted = windows;
    std::nth_element(sorted.begin(), sorted.begin() + long(sorted.size() / 2), sorted.end());
    const double median = sorted[sorted.size() / 2];
    state.counters["median_us"] = median;
    state.counters["worst_us"] = windows[worst];
    state.counters["worst_x"] = windows[worst] / median;
    state.counters["worst_at_keys"] = double(ends[worst]);
  }
}

BENCHMARK(BM_GrowingInserts)
    ->Arg(bench::BenchSize(6'000'000))
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rc
