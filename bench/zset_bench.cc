// ZSet at 1M members named `member:%08d` (15 bytes, as in docs/ZSET.md's Redis
// comparison), loaded two ways:
//   ordered: score i for member i, inserted in that order (a leaderboard built by time);
//   random:  uniform random scores, inserted in a shuffled order.
//
// Counters: ns/op per member; total_B/member is heap bytes held after the load, measured
// with mallinfo2 (uordblks + hblkhd, so mmapped bucket arrays count too); counted_B/member
// is what ZSet::MemoryBytes() reports. Query benchmarks probe members in a shuffled order
// so they do not walk memory in insertion order.

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "bench/bench_size.h"
#include "benchmark/benchmark.h"
#include "core/zset.h"

namespace rc {
namespace {

const size_t kMembers = size_t(bench::BenchSize(1'000'000));

struct Load {
  std::vector<std::pair<std::string, double>> adds;  // in insertion order
  std::vector<std::string> probes;                   // every member, shuffled
};

const Load& LoadFor(bool random) {
  static auto* cache = new std::map<bool, Load>();
  auto [it, inserted] = cache->try_emplace(random);
  Load& l = it->second;
  if (!inserted) return l;
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> score(0, 1e9);
  for (size_t i = 0; i < kMembers; ++i) {
    l.adds.emplace_back(absl::StrFormat("member:%08d", i), random ? score(rng) : double(i));
    l.probes.push_back(l.adds.back().first);
  }
  if (random) std::shuffle(l.adds.begin(), l.adds.end(), rng);
  std::shuffle(l.probes.begin(), l.probes.end(), rng);
  return l;
}

size_t HeapInUse() {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

std::unique_ptr<ZSet> Fill(const Load& l) {
  auto z = std::make_unique<ZSet>();
  for (const auto& [member, score] : l.adds) z->Add(member, score);
  return z;
}

const ZSet& SetFor(bool random) {
  static auto* cache = new std::map<bool, std::unique_ptr<ZSet>>();
  auto& z = (*cache)[random];
  if (!z) z = Fill(LoadFor(random));
  return *z;
}

void PerMember(benchmark::State& state, size_t n) {
  state.counters["ns/op"] = benchmark::Counter(
      double(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// ZADD of new members into a set growing from 0 to 1M.
void BM_ZAdd(benchmark::State& state) {
  const Load& l = LoadFor(state.range(0));
  for (auto _ : state) {
    auto z = Fill(l);
    state.PauseTiming();
    z.reset();
    state.ResumeTiming();
  }
  PerMember(state, kMembers);
  const size_t before = HeapInUse();
  auto z = Fill(l);
  state.counters["total_B/member"] = double(HeapInUse() - before) / kMembers;
  state.counters["counted_B/member"] = double(z->MemoryBytes()) / kMembers;
}

void BM_Rank(benchmark::State& state) {
  const ZSet& z = SetFor(state.range(0));
  const Load& l = LoadFor(state.range(0));
  for (auto _ : state) {
    size_t sum = 0;
    for (const std::string& m : l.probes) sum += *z.Rank(m);
    benchmark::DoNotOptimize(sum);
  }
  PerMember(state, kMembers);
}

void BM_Score(benchmark::State& state) {
  const ZSet& z = SetFor(state.range(0));
  const Load& l = LoadFor(state.range(0));
  for (auto _ : state) {
    double sum = 0;
    for (const std::string& m : l.probes) sum += *z.Score(m);
    benchmark::DoNotOptimize(sum);
  }
  PerMember(state, kMembers);
}

// ZRANGE key mid mid: the descent by subtree counts plus reading the member.
void BM_AtRankMiddle(benchmark::State& state) {
  const ZSet& z = SetFor(state.range(0));
  for (auto _ : state) {
    ZSet::Iterator it = z.AtRank(z.size() / 2);
    benchmark::DoNotOptimize(it.member().data());
  }
}

// AtRank at shuffled ranks: the cache-cold case.
void BM_AtRankRandom(benchmark::State& state) {
  const ZSet& z = SetFor(state.range(0));
  std::vector<size_t> ranks(kMembers);
  for (size_t i = 0; i < kMembers; ++i) ranks[i] = i;
  std::shuffle(ranks.begin(), ranks.end(), std::mt19937_64(7));
  for (auto _ : state) {
    size_t sum = 0;
    for (size_t r : ranks) sum += z.AtRank(r).member().size();
    benchmark::DoNotOptimize(sum);
  }
  PerMember(state, kMembers);
}

// Arg: 0 = ordered load, 1 = random load.
// Destroying a 1M-member set (random load), on the thread that built it or on another
// one, as the lazyfree pool does: glibc frees a chunk from another thread's arena under
// that arena's lock, chunk by chunk, so the cross-thread case shows what that costs.
void BM_Destroy(benchmark::State& state) {
  const bool other_thread = state.range(0) != 0;
  for (auto _ : state) {
    std::unique_ptr<ZSet> z = Fill(LoadFor(true));
    auto start = std::chrono::steady_clock::now();
    if (other_thread) {
      std::thread([z = std::move(z)]() mutable { z.reset(); }).join();
    } else {
      z.reset();
    }
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  state.counters["ns/member"] = benchmark::Counter(
      double(kMembers) * double(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Many small sets (rate limiters, per-user recent items): 100k sets of N members named
// `member:%08d` (15 bytes), score = index. B/set is the mallinfo2 delta per set, the ZSet
// object itself included (what a keyspace entry points at); B/member divides it by N.
void BM_SmallSets(benchmark::State& state) {
  const size_t kSets = size_t(bench::BenchSize(100'000));
  const size_t n = size_t(state.range(0));
  std::vector<std::string> members;
  for (size_t i = 0; i < n; ++i) members.push_back(absl::StrFormat("member:%08d", i));
  std::vector<std::unique_ptr<ZSet>> sets;
  sets.reserve(kSets);
  double bytes = 0;
  for (auto _ : state) {
    const size_t before = HeapInUse();
    for (size_t s = 0; s < kSets; ++s) {
      auto z = std::make_unique<ZSet>();
      for (size_t i = 0; i < n; ++i) z->Add(members[i], double(i));
      sets.push_back(std::move(z));
    }
    bytes = double(HeapInUse() - before);
    state.PauseTiming();
    sets.clear();
    state.ResumeTiming();
  }
  state.counters["B/set"] = bytes / kSets;
  if (n > 0) state.counters["B/member"] = bytes / double(kSets * n);
  if (n > 0) {
    state.counters["ns/add"] = benchmark::Counter(
        double(kSets * n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  }
}

BENCHMARK(BM_SmallSets)
    ->ArgName("members")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Arg(5)
    ->Arg(10)
    ->Arg(50)
    ->Arg(128)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_Destroy)
    ->ArgName("other_thread")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(3)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_ZAdd)->ArgName("random")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Rank)->ArgName("random")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Score)->ArgName("random")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AtRankMiddle)->ArgName("random")->Arg(0)->Arg(1);
BENCHMARK(BM_AtRankRandom)->ArgName("random")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rc
