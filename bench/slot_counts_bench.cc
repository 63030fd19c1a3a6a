// What cluster mode's keys per slot (core/slot_counts.h) add to the keyspace's inserts and
// detaches: EntryTable with and without CountSlots(). Arg 0: no counts (what a server
// without cluster-enabled runs: one null check), 1: counted (a KeySlot and an increment
// per insert and per detach). BM_Churn: a table of 1M keys of 16 bytes in steady state,
// each iteration one new key inserted (its entry allocated) and the oldest detached and
// freed, as a cache under eviction; BM_Insert, BM_Detach: 1M keys into an empty table
// (growing it, as a load does) and out again.
//
//   build/bench/slot_counts_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true        (docs/CLUSTER.md, "Keys per slot")
// (one command line)

#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_size.h"
#include "core/entry_table.h"

namespace {

const size_t kKeys = size_t(rc::bench::BenchSize(1 << 20));

std::vector<std::string> Keys() {
  std::vector<std::string> keys;
  keys.reserve(kKeys);
  char buf[32];
  for (size_t i = 0; i < kKeys; ++i) {
    std::snprintf(buf, sizeof(buf), "key:%012zu", i * 2654435761u % 1000000000000u);
    keys.emplace_back(buf);
  }
  return keys;
}

std::vector<rc::EntryPtr> Entries(const std::vector<std::string>& keys) {
  std::vector<rc::EntryPtr> out;
  out.reserve(keys.size());
  for (const std::string& k : keys) out.push_back(rc::Entry::MakeString(k, "v"));
  return out;
}

// Arg 1: counting slots.
std::unique_ptr<rc::EntryTable> Table(const benchmark::State& state) {
  auto table = std::make_unique<rc::EntryTable>();
  if (state.range(0) != 0) table->CountSlots();
  return table;
}

void BM_Churn(benchmark::State& state) {
  std::vector<std::string> keys = Keys();
  const std::vector<std::string> more = Keys();
  for (const std::string& k : more) keys.push_back("x" + k.substr(1));
  std::unique_ptr<rc::EntryTable> table = Table(state);
  for (size_t i = 0; i < kKeys; ++i) table->Insert(rc::Entry::MakeString(keys[i], "v"));
  size_t oldest = 0;
  for (auto _ : state) {
    const size_t next = (oldest + kKeys) % keys.size();
    table->Insert(rc::Entry::MakeString(keys[next], "v"));
    benchmark::DoNotOptimize(table->Detach(keys[oldest]));
    oldest = (oldest + 1) % keys.size();
  }
  state.SetItemsProcessed(int64_t(state.iterations()));
}
BENCHMARK(BM_Churn)->Arg(0)->Arg(1);

void BM_Insert(benchmark::State& state) {
  const std::vector<std::string> keys = Keys();
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<rc::EntryTable> table = Table(state);
    std::vector<rc::EntryPtr> entries = Entries(keys);
    state.ResumeTiming();
    for (rc::EntryPtr& e : entries) table->Insert(std::move(e));
    state.PauseTiming();
    table.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(int64_t(state.iterations() * kKeys));
}
BENCHMARK(BM_Insert)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_Detach(benchmark::State& state) {
  const std::vector<std::string> keys = Keys();
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<rc::EntryTable> table = Table(state);
    for (rc::EntryPtr& e : Entries(keys)) table->Insert(std::move(e));
    std::vector<rc::EntryPtr> gone;
    gone.reserve(kKeys);
    state.ResumeTiming();
    for (const std::string& k : keys) gone.push_back(table->Detach(k));
    state.PauseTiming();
    gone.clear();
    table.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(int64_t(state.iterations() * kKeys));
}
BENCHMARK(BM_Detach)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
