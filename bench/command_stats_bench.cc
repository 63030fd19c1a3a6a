// What timing and counting every command costs (INFO commandstats, latencystats, SLOWLOG,
// LATENCY): the dispatcher's two CycleClock reads around the handler, the conversion to
// ns and CountCommand, against the counting alone and against the clock reads alone,
// rdtsc or vDSO clock_gettime: build/bench/command_stats_bench (docs/PERFORMANCE.md,
// "Cost of per-command statistics").

#include <benchmark/benchmark.h>
#include <time.h>

#include <cstdint>
#include <string>

#include "shard/wire/command_stats.h"
#include "timers/cycle_clock.h"

namespace {

// A reply the handler appended, and any command's stat id.
const std::string kReply = "+OK\r\n";
constexpr uint32_t kStatId = 12;

void BM_TimeAndCount(benchmark::State& state) {
  rc::CommandStats stats;
  for (auto _ : state) {
    uint64_t start = rc::CycleClock::Now();
    uint64_t end = rc::CycleClock::Now();
    rc::CountCommand(stats, kStatId, rc::CycleClock::ToNanos(end - start), kReply, 0, true);
  }
  benchmark::DoNotOptimize(stats);
}
BENCHMARK(BM_TimeAndCount);

void BM_CountOnly(benchmark::State& state) {
  rc::CommandStats stats;
  uint64_t ns = 100;
  for (auto _ : state) {
    rc::CountCommand(stats, kStatId, ns, kReply, 0, true);
    ns = ns * 7 % 100003;  // latencies spread over the histogram's buckets
  }
  benchmark::DoNotOptimize(stats);
}
BENCHMARK(BM_CountOnly);

void BM_CycleClockRead(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(rc::CycleClock::Now());
}
BENCHMARK(BM_CycleClockRead);

void BM_ClockGettimeRead(benchmark::State& state) {
  timespec ts;
  for (auto _ : state) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    benchmark::DoNotOptimize(ts);
  }
}
BENCHMARK(BM_ClockGettimeRead);

}  // namespace
