// What reading the process's malloc'd bytes costs after a mass free, as a shard leaves
// behind when maxmemory is lowered: glibc's mallinfo2, which walks every free chunk (INFO
// and the memory limit's overhead sample once called it), against the counters that
// replaced it (core/malloc_counter.h): build/bench/malloc_stats_bench (docs/EVICTION.md,
// "Time per loop turn spent evicting").

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <vector>

#include "bench/bench_size.h"
#include "core/malloc_counter.h"

namespace {

// n blocks of an entry's size, allocated in order and half of them freed at random.
class HalfFreed {
 public:
  explicit HalfFreed(size_t n) {
    for (size_t i = 0; i < n; ++i) blocks_.push_back(std::malloc(56));
    std::shuffle(blocks_.begin(), blocks_.end(), std::mt19937_64(1));
    for (size_t i = 0; i < n / 2; ++i) std::free(blocks_[i]);
    blocks_.erase(blocks_.begin(), blocks_.begin() + n / 2);
  }
  ~HalfFreed() {
    for (void* p : blocks_) std::free(p);
  }

 private:
  std::vector<void*> blocks_;
};

void BM_Mallinfo2(benchmark::State& state) {
  HalfFreed heap(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(mallinfo2());
}
BENCHMARK(BM_Mallinfo2)->Arg(rc::bench::BenchSize(500'000))->Unit(benchmark::kMillisecond);

void BM_CountedBytes(benchmark::State& state) {
  HalfFreed heap(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(rc::MallocCountedBytes());
}
BENCHMARK(BM_CountedBytes)->Arg(rc::bench::BenchSize(500'000));

}  // namespace
