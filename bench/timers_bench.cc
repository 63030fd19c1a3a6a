// Per-key TTL structures at keyspace scale (1M and 10M timers): a binary and a 4-ary
// IndexedHeap of 16-byte {deadline, node*} slots (shape A: index in the node), a 4-ary
// heap of bare node pointers (shape B: deadline and index in the node, so every
// comparison loads a node), and the hierarchical TimingWheel (24-byte hook in the node).
//
// Each timer belongs to a real malloc'd node that simulates a keyspace entry: the timer
// fields, then 55 bytes standing for a 12-byte key + 32-byte value entry. So the nodes
// fall in the glibc chunks the server's entries would (A 80, B 80, wheel 96 bytes) and
// the cache misses are those of the keyspace.
//
// Cases, each timed once by hand (Iterations(1), manual time; setup is not timed):
//   Insert        N timers, deadlines uniform over the next hour.
//   Renew         N renewals of random timers, deadline moved 1-30 s later.
//   ExpireSame    all N share one deadline; everything is expired at that time.
//   ExpireSpread  deadlines uniform over one second; expired 1 ms at a time.
// Expiry runs in bounded steps of kStep items, as a reactor turn would.
//
// Counters: ns/op; struct_B/timer = the structure's own bytes / N (heap: vector capacity);
// node_timer_B = timer fields inside the node; node_chunk_B = the node's malloc chunk;
// max_pause_us = the longest single step: for Insert the worst push (a vector growth),
// for expiry the worst bounded step (p99_step_us: its 99th percentile).

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <vector>

#include "bench/bench_size.h"
#include "benchmark/benchmark.h"
#include "timers/indexed_heap.h"
#include "timers/timing_wheel.h"

namespace rc {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kT0 = 1'700'000'000'123;  // Unix ms
constexpr int64_t kHour = 3'600'000;
constexpr size_t kStep = 1024;      // items per bounded expiry step
constexpr size_t kEntryBytes = 55;  // 12-byte key + 32-byte value entry

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// ---- shape A: 16-byte slot, index in the node -------------------------------------------
struct NodeA {
  uint32_t heap_idx;
  char entry[kEntryBytes];
};
struct SlotA {
  int64_t deadline;
  NodeA* node;
};
struct TraitsA {
  static int64_t Deadline(const SlotA& s) { return s.deadline; }
  static void SetIndex(const SlotA& s, uint32_t i) { s.node->heap_idx = i; }
};

template <int Arity>
class HeapA {
 public:
  using Node = NodeA;
  static constexpr int kNodeTimerBytes = sizeof(uint32_t);
  bool InsertReallocates() const { return heap_.size() * sizeof(SlotA) == heap_.MemoryBytes(); }
  void Insert(Node* n, int64_t d) { heap_.Push(SlotA{d, n}); }
  void Renew(Node* n, int64_t delta) {
    const uint32_t i = n->heap_idx;
    heap_.Update(i, SlotA{heap_.At(i).deadline + delta, n});
  }
  template <typename Cb>
  bool ExpireUpTo(int64_t now, size_t max, Cb&& cb) {
    for (size_t k = 0; k < max; ++k) {
      if (heap_.empty() || heap_.Top().deadline > now) return false;
      cb(heap_.Pop().node);
    }
    return !heap_.empty() && heap_.Top().deadline <= now;
  }
  size_t size() const { return heap_.size(); }
  size_t StructBytes() const { return heap_.MemoryBytes(); }

 private:
  IndexedHeap<SlotA, TraitsA, Arity> heap_;
};

// ---- shape B: pointer slot, deadline and index in the node ------------------------------
struct NodeB {
  int64_t deadline;
  uint32_t heap_idx;
  char entry[kEntryBytes];
};
struct TraitsB {
  static int64_t Deadline(NodeB* const& n) { return n->deadline; }
  static void SetIndex(NodeB* const& n, uint32_t i) { n->heap_idx = i; }
};

class HeapB {
 public:
  using Node = NodeB;
  static constexpr int kNodeTimerBytes = sizeof(int64_t) + sizeof(uint32_t);
  bool InsertReallocates() const { return heap_.size() * sizeof(NodeB*) == heap_.MemoryBytes(); }
  void Insert(Node* n, int64_t d) {
    n->deadline = d;
    heap_.Push(n);
  }
  void Renew(Node* n, int64_t delta) {
    n->deadline += delta;
    heap_.Update(n->heap_idx);
  }
  template <typename Cb>
  bool ExpireUpTo(int64_t now, size_t max, Cb&& cb) {
    for (size_t k = 0; k < max; ++k) {
      if (heap_.empty() || heap_.Top()->deadline > now) return false;
      cb(heap_.Pop());
    }
    return !heap_.empty() && heap_.Top()->deadline <= now;
  }
  size_t size() const { return heap_.size(); }
  size_t StructBytes() const { return heap_.MemoryBytes(); }

 private:
  IndexedHeap<NodeB*, TraitsB, 4> heap_;
};

// ---- hierarchical timing wheel: 24-byte hook in the node --------------------------------
struct NodeW {
  TimerHook hook;
  char entry[kEntryBytes];
};

class Wheel {
 public:
  using Node = NodeW;
  static constexpr int kNodeTimerBytes = sizeof(TimerHook);
  bool InsertReallocates() const { return false; }
  void Insert(Node* n, int64_t d) { wheel_.Insert(&n->hook, d); }
  void Renew(Node* n, int64_t delta) { wheel_.Renew(&n->hook, n->hook.deadline + delta); }
  template <typename Cb>
  bool ExpireUpTo(int64_t now, size_t max, Cb&& cb) {
    return wheel_.ExpireUpTo(now, max, [&](TimerHook* h) { cb(reinterpret_cast<NodeW*>(h)); });
  }
  size_t size() const { return wheel_.size(); }
  size_t StructBytes() const { return TimingWheel::MemoryBytes(); }

 private:
  TimingWheel wheel_{kT0};
};

// ---- fixtures -----------------------------------------------------------------------------

// N nodes, each its own malloc, in shuffled order, freed at the end.
template <typename Node>
class Nodes {
 public:
  explicit Nodes(size_t n) {
    nodes_.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      void* p = std::malloc(sizeof(Node));
      if (p == nullptr) throw std::bad_alloc();
      auto* node = new (p) Node{};
      std::memset(node->entry, 'x', sizeof(node->entry));
      nodes_.push_back(node);
    }
    // Timers are armed in an order unrelated to addresses, as in a keyspace whose heap
    // has seen churn; otherwise lists and heaps would walk memory sequentially.
    std::shuffle(nodes_.begin(), nodes_.end(), std::mt19937_64(n));
  }
  ~Nodes() {
    for (Node* n : nodes_) std::free(n);
  }
  Node* operator[](size_t i) const { return nodes_[i]; }
  size_t ChunkBytes() const { return malloc_usable_size(nodes_[0]) + sizeof(size_t); }

 private:
  std::vector<Node*> nodes_;
};

std::vector<int64_t> Deadlines(size_t n, int64_t from, int64_t span, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> out(n);
  for (auto& d : out) d = from + int64_t(rng() % uint64_t(span));
  return out;
}

template <typename Impl>
void Fill(Impl& impl, const Nodes<typename Impl::Node>& nodes, const std::vector<int64_t>& d) {
  for (size_t i = 0; i < d.size(); ++i) impl.Insert(nodes[i], d[i]);
}

template <typename Impl>
void Report(benchmark::State& state, const Impl& impl, const Nodes<typename Impl::Node>& nodes,
            size_t n, double seconds, double max_pause_s) {
  state.SetIterationTime(seconds);
  state.counters["ns/op"] = seconds * 1e9 / double(n);
  state.counters["struct_B/timer"] = double(impl.StructBytes()) / double(n);
  state.counters["node_timer_B"] = Impl::kNodeTimerBytes;
  state.counters["node_chunk_B"] = double(nodes.ChunkBytes());
  if (max_pause_s > 0) state.counters["max_pause_us"] = max_pause_s * 1e6;
}

template <typename Impl>
void BM_Insert(benchmark::State& state) {
  const size_t n = size_t(state.range(0));
  for (auto _ : state) {
    Nodes<typename Impl::Node> nodes(n);
    const std::vector<int64_t> d = Deadlines(n, kT0, kHour, 1);
    auto* impl = new Impl();
    Clock::duration worst{};
    const auto start = Clock::now();
    for (size_t i = 0; i < n; ++i) {
      if (impl->InsertReallocates()) {
        const auto t = Clock::now();
        impl->Insert(nodes[i], d[i]);
        worst = std::max(worst, Clock::now() - t);
      } else {
        impl->Insert(nodes[i], d[i]);
      }
    }
    const double secs = Seconds(Clock::now() - start);
    Report(state, *impl, nodes, n, secs, Seconds(worst));
    delete impl;
  }
}

template <typename Impl>
void BM_Renew(benchmark::State& state) {
  const size_t n = size_t(state.range(0));
  for (auto _ : state) {
    Nodes<typename Impl::Node> nodes(n);
    auto* impl = new Impl();
    Fill(*impl, nodes, Deadlines(n, kT0, kHour, 1));
    std::mt19937_64 rng(2);
    std::vector<uint32_t> who(n);
    std::vector<int32_t> delta(n);
    for (size_t i = 0; i < n; ++i) {
      who[i] = uint32_t(rng() % n);
      delta[i] = int32_t(1000 + rng() % 29'001);
    }
    const auto start = Clock::now();
    for (size_t i = 0; i < n; ++i) impl->Renew(nodes[who[i]], delta[i]);
    const double secs = Seconds(Clock::now() - start);
    Report(state, *impl, nodes, n, secs, 0);
    delete impl;
  }
}

// Expires everything due at each of `times`, in bounded steps; checks the count.
template <typename Impl>
void Expire(benchmark::State& state, const std::vector<int64_t>& deadlines,
            const std::vector<int64_t>& times) {
  const size_t n = deadlines.size();
  Nodes<typename Impl::Node> nodes(n);
  auto* impl = new Impl();
  Fill(*impl, nodes, deadlines);
  size_t expired = 0;
  auto cb = [&](typename Impl::Node* node) {
    ++expired;
    ++node->entry[0];  // the server frees the entry: touch it
  };
  std::vector<Clock::duration> steps;
  steps.reserve(n / kStep + times.size() * 2 + 16);
  const auto start = Clock::now();
  for (int64_t t : times) {
    for (bool more = true; more;) {
      const auto s = Clock::now();
      more = impl->ExpireUpTo(t, kStep, cb);
      steps.push_back(Clock::now() - s);
    }
  }
  const double secs = Seconds(Clock::now() - start);
  if (expired != n || impl->size() != 0) state.SkipWithError("not everything expired");
  // On a shared 2-core VM the maximum catches preemptions; the 99th percentile does not.
  std::sort(steps.begin(), steps.end());
  Report(state, *impl, nodes, n, secs, Seconds(steps.back()));
  state.counters["p99_step_us"] = Seconds(steps[steps.size() * 99 / 100]) * 1e6;
  delete impl;
}

template <typename Impl>
void BM_ExpireSame(benchmark::State& state) {
  const size_t n = size_t(state.range(0));
  for (auto _ : state) {
    Expire<Impl>(state, std::vector<int64_t>(n, kT0 + kHour), {kT0 + kHour});
  }
}

template <typename Impl>
void BM_ExpireSpread(benchmark::State& state) {
  const size_t n = size_t(state.range(0));
  for (auto _ : state) {
    std::vector<int64_t> times;
    for (int64_t t = kT0 + kHour; t < kT0 + kHour + 1000; ++t) times.push_back(t);
    Expire<Impl>(state, Deadlines(n, kT0 + kHour, 1000, 3), times);
  }
}

using Heap2A = HeapA<2>;
using Heap4A = HeapA<4>;
using Heap4B = HeapB;

#define RC_TIMER_BENCH(fn, impl)          \
  BENCHMARK_TEMPLATE(fn, impl)            \
      ->Arg(bench::BenchSize(1'000'000))  \
      ->Arg(bench::BenchSize(10'000'000)) \
      ->Iterations(1)                     \
      ->UseManualTime()                   \
      ->Unit(benchmark::kMillisecond)

RC_TIMER_BENCH(BM_Insert, Heap2A);
RC_TIMER_BENCH(BM_Insert, Heap4A);
RC_TIMER_BENCH(BM_Insert, Heap4B);
RC_TIMER_BENCH(BM_Insert, Wheel);
RC_TIMER_BENCH(BM_Renew, Heap2A);
RC_TIMER_BENCH(BM_Renew, Heap4A);
RC_TIMER_BENCH(BM_Renew, Heap4B);
RC_TIMER_BENCH(BM_Renew, Wheel);
RC_TIMER_BENCH(BM_ExpireSame, Heap2A);
RC_TIMER_BENCH(BM_ExpireSame, Heap4A);
RC_TIMER_BENCH(BM_ExpireSame, Heap4B);
RC_TIMER_BENCH(BM_ExpireSame, Wheel);
RC_TIMER_BENCH(BM_ExpireSpread, Heap2A);
RC_TIMER_BENCH(BM_ExpireSpread, Heap4A);
RC_TIMER_BENCH(BM_ExpireSpread, Heap4B);
RC_TIMER_BENCH(BM_ExpireSpread, Wheel);

}  // namespace
}  // namespace rc
