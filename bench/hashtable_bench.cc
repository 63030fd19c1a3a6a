// IntrusiveTable against absl::flat_hash_map and std::unordered_map on the keyspace's
// operations: insert, find (hit and miss), detach. The intrusive table's nodes are single
// malloc'd blocks holding link, key and value, as the shard's entries are; the maps store
// std::string pairs (keys and values here fit in SSO, so the maps make no extra
// allocations: that favours them).
//
// Counters: ns/op per key; total_B/key is heap bytes held after inserting N keys, measured
// with mallinfo2 (nodes and arrays together); index_B/key is the intrusive table's bucket
// arrays alone (BucketBytes()/size()).

#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_format.h"
#include "bench/bench_size.h"
#include "benchmark/benchmark.h"
#include "core/intrusive_table.h"

namespace rc {
namespace {

struct BenchNode {
  BenchNode* next;
  uint32_t key_len;
  uint32_t value_len;

  static BenchNode* Make(std::string_view key, std::string_view value) {
    auto* n = static_cast<BenchNode*>(std::malloc(sizeof(BenchNode) + key.size() + value.size()));
    n->next = nullptr;
    n->key_len = uint32_t(key.size());
    n->value_len = uint32_t(value.size());
    std::memcpy(n->Data(), key.data(), key.size());
    std::memcpy(n->Data() + key.size(), value.data(), value.size());
    return n;
  }
  char* Data() { return reinterpret_cast<char*>(this + 1); }
  std::string_view key() const { return {reinterpret_cast<const char*>(this + 1), key_len}; }
};

uint64_t HashKey(std::string_view k) { return absl::Hash<std::string_view>{}(k); }

struct BenchTraits {
  static BenchNode* Next(const BenchNode* n) { return n->next; }
  static void SetNext(BenchNode* n, BenchNode* next) { n->next = next; }
  static uint64_t Hash(const BenchNode* n) { return HashKey(n->key()); }
};

struct KeyEq {
  std::string_view key;
  bool operator()(const BenchNode* n) const { return n->key() == key; }
};

class Intrusive {
 public:
  ~Intrusive() {
    table_.Clear([](BenchNode* n) { std::free(n); });
  }
  void Insert(const std::string& k, const std::string& v) {
    table_.Insert(BenchNode::Make(k, v), HashKey(k));
  }
  bool Find(const std::string& k) { return table_.Find(HashKey(k), KeyEq{k}) != nullptr; }
  bool Erase(const std::string& k) {
    BenchNode* n = table_.Detach(HashKey(k), KeyEq{k});
    std::free(n);
    return n != nullptr;
  }
  double IndexBytesPerKey() const { return double(table_.BucketBytes()) / table_.size(); }

 private:
  IntrusiveTable<BenchNode, BenchTraits> table_;
};

template <typename Map>
class StdLike {
 public:
  void Insert(const std::string& k, const std::string& v) { map_.try_emplace(k, v); }
  bool Find(const std::string& k) { return map_.find(k) != map_.end(); }
  bool Erase(const std::string& k) { return map_.erase(k) != 0; }
  double IndexBytesPerKey() const { return 0; }

 private:
  Map map_;
};
using Flat = StdLike<absl::flat_hash_map<std::string, std::string>>;
using Unordered = StdLike<std::unordered_map<std::string, std::string>>;

// Keys in a shuffled order so lookups do not walk memory in insertion order.
struct Keys {
  explicit Keys(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      hits.push_back(absl::StrFormat("user:%010d", i));
      misses.push_back(absl::StrFormat("miss:%010d", i));
    }
    std::mt19937_64 rng(42);
    lookup_order = hits;
    std::shuffle(lookup_order.begin(), lookup_order.end(), rng);
  }
  std::vector<std::string> hits, misses, lookup_order;
  const std::string value = "value:0123456";
};

const Keys& KeysFor(size_t n) {
  static auto* cache = new std::unordered_map<size_t, Keys>();
  return cache->try_emplace(n, n).first->second;
}

size_t HeapInUse() {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

template <typename Impl>
void Fill(Impl& t, const Keys& keys) {
  for (const std::string& k : keys.hits) t.Insert(k, keys.value);
}

template <typename Impl>
void SetCounters(benchmark::State& state, size_t n) {
  state.counters["ns/op"] = benchmark::Counter(
      double(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  const size_t before = HeapInUse();
  auto* t = new Impl();
  Fill(*t, KeysFor(n));
  state.counters["total_B/key"] = double(HeapInUse() - before) / n;
  if (double idx = t->IndexBytesPerKey(); idx > 0) state.counters["index_B/key"] = idx;
  delete t;
}

template <typename Impl>
void BM_Insert(benchmark::State& state) {
  const size_t n = state.range(0);
  const Keys& keys = KeysFor(n);
  for (auto _ : state) {
    auto* t = new Impl();
    Fill(*t, keys);
    state.PauseTiming();
    delete t;
    state.ResumeTiming();
  }
  SetCounters<Impl>(state, n);
}

template <typename Impl, bool kHit>
void BM_Find(benchmark::State& state) {
  const size_t n = state.range(0);
  const Keys& keys = KeysFor(n);
  Impl t;
  Fill(t, keys);
  const std::vector<std::string>& probes = kHit ? keys.lookup_order : keys.misses;
  for (auto _ : state) {
    size_t found = 0;
    for (const std::string& k : probes) found += t.Find(k);
    benchmark::DoNotOptimize(found);
    if (found != (kHit ? n : 0)) state.SkipWithError("wrong find result");
  }
  state.counters["ns/op"] = benchmark::Counter(
      double(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

template <typename Impl>
void BM_Detach(benchmark::State& state) {
  const size_t n = state.range(0);
  const Keys& keys = KeysFor(n);
  for (auto _ : state) {
    state.PauseTiming();
    auto* t = new Impl();
    Fill(*t, keys);
    state.ResumeTiming();
    for (const std::string& k : keys.lookup_order) benchmark::DoNotOptimize(t->Erase(k));
    state.PauseTiming();
    delete t;
    state.ResumeTiming();
  }
  state.counters["ns/op"] = benchmark::Counter(
      double(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

#define RC_TABLE_BENCH(fn, ...)          \
  BENCHMARK_TEMPLATE(fn, __VA_ARGS__)    \
      ->Arg(bench::BenchSize(100'000))   \
      ->Arg(bench::BenchSize(1'000'000)) \
      ->Unit(benchmark::kMillisecond)

RC_TABLE_BENCH(BM_Insert, Intrusive);
RC_TABLE_BENCH(BM_Insert, Flat);
RC_TABLE_BENCH(BM_Insert, Unordered);
RC_TABLE_BENCH(BM_Find, Intrusive, true);
RC_TABLE_BENCH(BM_Find, Flat, true);
RC_TABLE_BENCH(BM_Find, Unordered, true);
RC_TABLE_BENCH(BM_Find, Intrusive, false);
RC_TABLE_BENCH(BM_Find, Flat, false);
RC_TABLE_BENCH(BM_Find, Unordered, false);
RC_TABLE_BENCH(BM_Detach, Intrusive);
RC_TABLE_BENCH(BM_Detach, Flat);
RC_TABLE_BENCH(BM_Detach, Unordered);

}  // namespace
}  // namespace rc
