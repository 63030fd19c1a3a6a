#pragma once
// The per-shard keyspace index: a chained hashtable that only links caller-owned nodes.
//
// Design. Buckets are a power-of-two array of `Node*` (8 bytes each, no header); the chain
// link lives inside the node and the node does not store its hash, so an entry pays only
// for its key plus one pointer, and the table asks Traits to recompute the hash when a node
// has to move. Resizing is incremental (Redis dict, "Build Your Own Redis" HMap): a resize
// allocates the new array and keeps the old one as `old_`; every Find/Insert/Detach/Replace
// first moves at most kRehashNodesPerOp nodes from `old_` into `cur_`, so no single call
// does O(n) work and a shard's reactor never stalls on a million-key rehash.
//
//   Insert ─┐                       ┌─> RehashStep: old_[migrate_pos_..] ──> cur_
//   Find   ─┼─> StepIfRehashing() ──┤
//   Detach ─┤                       └─> then the operation: lookups try old_ then cur_,
//   Replace─┘                           inserts go to cur_; MaybeResize() afterwards.
//
// Grow ×2 at load 1; shrink below load 1/8 to the smallest power of two > size. A resize
// never starts while one is running; the pending one starts when the current one ends.
// Scan, Random and ForEach never rehash, so a caller may interleave them with anything.
// Single-threaded: the owning shard thread calls every method.
//
// Traits: static Node* Next(const Node*); static void SetNext(Node*, Node*);
//         static uint64_t Hash(const Node*);  // must equal the hash passed to Insert

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <utility>

#include "absl/random/distributions.h"
#include "core/prefetch.h"

namespace rc {
namespace table_internal {

[[noreturn]] inline void Fail(const char* what) {
  std::fprintf(stderr, "IntrusiveTable: %s\n", what);
  std::abort();
}

inline uint64_t ReverseBits(uint64_t v) {
  v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
  v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
  v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
  return __builtin_bswap64(v);
}

// Increments the high-order bits first, so the cursor stays valid when the mask changes.
inline uint64_t NextCursor(uint64_t v, uint64_t mask) {
  return ReverseBits(ReverseBits(v | ~mask) + 1);
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

}  // namespace table_internal

template <typename Node, typename Traits>
class IntrusiveTable {
 public:
  // A grow to 2N buckets starts at N nodes and the next one at 2N, so moving 2 nodes per
  // operation ends it within N/2 inserts, and its cost is spread evenly over them: larger
  // steps finish sooner but concentrate the whole move (a cache miss per node) into the
  // first operations after a doubling, which clients see as a dip (docs/PERFORMANCE.md).
  static constexpr size_t kRehashNodesPerOp = 2;
  // Skipping an empty old bucket is far cheaper than moving a node (no hash, no node
  // cache miss), so a step may skip this many buckets per node it is allowed to move.
  static constexpr size_t kEmptyVisitsPerNode = 8;
  static constexpr size_t kMinBuckets = 4;
  static constexpr size_t kShrinkRatio = 8;  // shrink once size * 8 < buckets

  IntrusiveTable() = default;
  ~IntrusiveTable() = default;  // unique_ptr frees the arrays; nodes belong to the caller
  IntrusiveTable(const IntrusiveTable&) = delete;
  IntrusiveTable& operator=(const IntrusiveTable&) = delete;
  // Moving leaves `o` empty. Like the destructor, assigning over a table forgets its nodes.
  IntrusiveTable(IntrusiveTable&& o) noexcept { MoveFrom(o); }
  IntrusiveTable& operator=(IntrusiveTable&& o) noexcept {
    if (this != &o) MoveFrom(o);
    return *this;
  }

  // eq(const Node*) -> bool: whether a node sharing this hash's bucket has the wanted key.
  template <typename Eq>
  Node* Find(uint64_t hash, Eq&& eq) {
    StepIfRehashing();
    return Locate(hash, eq).node;
  }

  // Lookups of a batch of keys, hinted ahead: first PrefetchBucket for every hash, then
  // PrefetchHead for every hash, then the lookups. The two loads a lookup waits on (the
  // bucket, then the node it points at) are then in flight for all keys at once instead of
  // one after another. Hints only: they change nothing.
  void PrefetchBucket(uint64_t hash) const {
    if (cur_.slots) PrefetchLine(&cur_.slots[hash & cur_.mask]);
    if (Rehashing()) PrefetchLine(&old_.slots[hash & old_.mask]);
  }
  void PrefetchHead(uint64_t hash) const {
    if (cur_.slots) PrefetchLine(cur_.slots[hash & cur_.mask]);
    if (Rehashing()) PrefetchLine(old_.slots[hash & old_.mask]);
  }

  // The caller guarantees no node with this key is present.
  void Insert(Node* n, uint64_t hash) {
    StepIfRehashing();
    if (!cur_.slots) cur_ = Array::Make(kMinBuckets);
    Node*& head = cur_.slots[hash & cur_.mask];
    Traits::SetNext(n, head);
    head = n;
    ++size_;
    MaybeResize();
  }

  // Unlinks the matching node and clears its link; nullptr if absent.
  template <typename Eq>
  Node* Detach(uint64_t hash, Eq&& eq) {
    StepIfRehashing();
    Pos pos = Locate(hash, eq);
    if (!pos.node) return nullptr;
    Link(pos, Traits::Next(pos.node));
    Traits::SetNext(pos.node, nullptr);
    --size_;
    MaybeResize();
    return pos.node;
  }

  // For a node reallocated with the same key: new_node takes old_node's place in its chain.
  // old_node must still be readable (allocate, copy, Replace, then free); it is not cleared.
  void Replace(Node* old_node, Node* new_node, uint64_t hash) {
    StepIfRehashing();
    Pos pos = Locate(hash, [old_node](const Node* n) { return n == old_node; });
    if (!pos.node) table_internal::Fail("Replace: old node is not in the table");
    Traits::SetNext(new_node, Traits::Next(old_node));
    Link(pos, new_node);
  }

  // An empty table that is not resizing takes buckets for `n` nodes at once (a load that
  // knows its count) and does not shrink below them until Unreserve, so no resize runs
  // while they go in. Otherwise nothing changes.
  void Reserve(size_t n) {
    if (size_ != 0 || Rehashing()) return;
    const size_t buckets = std::max(kMinBuckets, std::bit_ceil(n));
    if (cur_.Buckets() < buckets) cur_ = Array::Make(buckets);
    reserved_ = buckets;
  }
  // The load is over: the usual shrink applies again (from the next insert or detach).
  void Unreserve() { reserved_ = 0; }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t BucketBytes() const { return (cur_.Buckets() + old_.Buckets()) * sizeof(Node*); }
  size_t BucketCount() const { return cur_.Buckets(); }  // of the array inserts go to
  bool Rehashing() const { return old_.slots != nullptr; }
  // Nodes moved by resizes since construction; lets tests check the per-operation bound.
  uint64_t NodesMigrated() const { return nodes_migrated_; }

  // Moves up to max_nodes nodes (and skips a bounded number of empty buckets) of the
  // running resize. Returns true while a resize still has work left.
  bool RehashStep(size_t max_nodes);

  // Redis dictScan: call with 0, then with each returned cursor until it returns 0. A node
  // present for the whole scan is passed to fn at least once even if the table resizes
  // between calls; some may come twice. fn(Node*) must not insert or detach (collect the
  // nodes, act after the call returns). Never rehashes. Mid-resize a call reads one bucket
  // of the smaller array and the 2^k buckets of the larger that it splits into; shrinks
  // start near load 1/8, so k stays around 3 or 4.
  template <typename Fn>
  uint64_t Scan(uint64_t cursor, Fn&& fn) const;

  // A random node, nullptr only if empty. Nodes in short chains are favoured slightly.
  template <typename Rng>
  Node* Random(Rng& rng) const;

  // Unlinks every node, calls fn(Node*) on each (the caller frees it), frees both arrays.
  // O(n) by nature: meant for FLUSHDB-style teardown, ideally off the reactor.
  template <typename Fn>
  void Clear(Fn&& fn);

  // fn(Node*) on every node; fn must not insert or detach.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    ForEachWhile([&fn](Node* n) {
      fn(n);
      return true;
    });
  }
  // ForEach that stops as soon as fn(Node*) returns false.
  template <typename Fn>
  void ForEachWhile(Fn&& fn) const;

  // Aborts with a message naming the first broken invariant. O(n) plus a hash per node.
  void Verify() const;

 private:
  struct Array {
    std::unique_ptr<Node*[], table_internal::FreeDeleter> slots;
    size_t mask = 0;  // buckets - 1; meaningless while slots is null

    // calloc, not new[]: large zeroed arrays come straight from mmap and are not touched.
    static Array Make(size_t buckets) {
      Array a;
      a.slots.reset(static_cast<Node**>(std::calloc(buckets, sizeof(Node*))));
      if (!a.slots) table_internal::Fail("out of memory for bucket array");
      a.mask = buckets - 1;
      return a;
    }
    size_t Buckets() const { return slots ? mask + 1 : 0; }
  };

  // Where a node sits: its bucket slot and its predecessor in the chain (null if first).
  struct Pos {
    Node** slot = nullptr;
    Node* prev = nullptr;
    Node* node = nullptr;
  };

  static Pos LocateIn(const Array& a, uint64_t hash, auto&& match) {
    Pos pos{&a.slots[hash & a.mask], nullptr, nullptr};
    for (Node* n = *pos.slot; n; pos.prev = n, n = Traits::Next(n)) {
      if (match(static_cast<const Node*>(n))) {
        pos.node = n;
        break;
      }
    }
    return pos;
  }

  // old_ first: early in a grow it holds nearly every node. Migrated old buckets are empty.
  Pos Locate(uint64_t hash, auto&& match) const {
    if (Rehashing()) {
      Pos pos = LocateIn(old_, hash, match);
      if (pos.node) return pos;
    }
    return cur_.slots ? LocateIn(cur_, hash, match) : Pos{};
  }

  // Points whatever referred to pos.node (bucket or predecessor) at `to`.
  static void Link(const Pos& pos, Node* to) {
    if (pos.prev) {
      Traits::SetNext(pos.prev, to);
    } else {
      *pos.slot = to;
    }
  }

  void StepIfRehashing() {
    if (Rehashing()) RehashStep(kRehashNodesPerOp);
  }

  void MaybeResize() {
    if (Rehashing() || !cur_.slots) return;
    const size_t buckets = cur_.Buckets();
    if (size_ >= buckets) {
      StartResize(buckets * 2);
    } else if (buckets > kMinBuckets && buckets > reserved_ && size_ * kShrinkRatio < buckets) {
      // Strictly above size: a size of exactly 2^k would otherwise land at load 1 and
      // force a grow straight after the shrink.
      StartResize(std::max(kMinBuckets, std::bit_ceil(size_ + 1)));
    }
  }

  void StartResize(size_t buckets) {
    old_ = std::move(cur_);
    cur_ = Array::Make(buckets);
    migrate_pos_ = 0;
  }

  void MoveFrom(IntrusiveTable& o) {
    cur_ = std::move(o.cur_);
    old_ = std::move(o.old_);
    migrate_pos_ = std::exchange(o.migrate_pos_, 0);
    size_ = std::exchange(o.size_, 0);
    nodes_migrated_ = std::exchange(o.nodes_migrated_, 0);
  }

  Array cur_;               // receives inserts
  Array old_;               // drains into cur_ while a resize runs; null otherwise
  size_t migrate_pos_ = 0;  // every old_ bucket below this index is already empty
  size_t size_ = 0;
  size_t reserved_ = 0;     // Reserve's buckets: no shrink below them until Unreserve
  uint64_t nodes_migrated_ = 0;
};

// ---- Out-of-line definitions -----------------------------------------------------------

template <typename Node, typename Traits>
bool IntrusiveTable<Node, Traits>::RehashStep(size_t max_nodes) {
  if (!Rehashing()) return false;
  size_t empty_visits = max_nodes * kEmptyVisitsPerNode;
  const size_t old_buckets = old_.Buckets();
  while (migrate_pos_ < old_buckets) {
    Node*& from = old_.slots[migrate_pos_];
    if (!from) {
      if (empty_visits == 0) return true;
      --empty_visits;
      ++migrate_pos_;
      continue;
    }
    // Node by node, not bucket by bucket: a long chain cannot break the bound.
    if (max_nodes == 0) return true;
    Node* n = from;
    from = Traits::Next(n);
    Node*& to = cur_.slots[Traits::Hash(n) & cur_.mask];
    Traits::SetNext(n, to);
    to = n;
    --max_nodes;
    ++nodes_migrated_;
  }
  old_ = Array{};
  migrate_pos_ = 0;
  MaybeResize();  // a grow or shrink that came due during this resize starts now
  return Rehashing();
}

template <typename Node, typename Traits>
template <typename Fn>
uint64_t IntrusiveTable<Node, Traits>::Scan(uint64_t cursor, Fn&& fn) const {
  auto emit = [&fn](Node* n) {
    while (n) {
      Node* next = Traits::Next(n);
      fn(n);
      n = next;
    }
  };
  if (!cur_.slots) return 0;
  if (!Rehashing()) {
    emit(cur_.slots[cursor & cur_.mask]);
    return table_internal::NextCursor(cursor, cur_.mask);
  }
  const Array* small = &old_;
  const Array* large = &cur_;
  if (small->mask > large->mask) std::swap(small, large);
  const uint64_t m0 = small->mask;
  const uint64_t m1 = large->mask;
  emit(small->slots[cursor & m0]);
  // Every bucket of the larger array whose low bits equal this bucket of the smaller one.
  do {
    emit(large->slots[cursor & m1]);
    cursor = table_internal::NextCursor(cursor, m1);
  } while (cursor & (m0 ^ m1));
  return cursor;
}

template <typename Node, typename Traits>
template <typename Rng>
Node* IntrusiveTable<Node, Traits>::Random(Rng& rng) const {
  if (size_ == 0) return nullptr;
  // Index space: the not-yet-migrated tail of old_, then all of cur_.
  const size_t old_live = Rehashing() ? old_.Buckets() - migrate_pos_ : 0;
  const size_t total = old_live + cur_.Buckets();
  auto bucket = [&](size_t i) {
    return i < old_live ? old_.slots[migrate_pos_ + i] : cur_.slots[i - old_live];
  };
  // Load stays near or above 1/8, so probes almost always succeed; a resize that is still
  // draining after heavy deletes can leave it lower, so fall back to a walk, which ends
  // because size_ > 0.
  constexpr int kProbes = 64;
  Node* head = nullptr;
  for (int i = 0; i < kProbes && !head; ++i) head = bucket(absl::Uniform<size_t>(rng, 0, total));
  for (size_t i = absl::Uniform<size_t>(rng, 0, total); !head; i = (i + 1) % total) {
    head = bucket(i);
  }
  size_t len = 0;
  for (Node* n = head; n; n = Traits::Next(n)) ++len;
  for (size_t k = absl::Uniform<size_t>(rng, 0, len); k > 0; --k) head = Traits::Next(head);
  return head;
}

template <typename Node, typename Traits>
template <typename Fn>
void IntrusiveTable<Node, Traits>::Clear(Fn&& fn) {
  for (Array* a : {&old_, &cur_}) {
    for (size_t i = 0; i < a->Buckets(); ++i) {
      for (Node* n = a->slots[i]; n;) {
        Node* next = Traits::Next(n);
        Traits::SetNext(n, nullptr);
        fn(n);
        n = next;
      }
    }
    *a = Array{};
  }
  migrate_pos_ = 0;
  size_ = 0;
}

template <typename Node, typename Traits>
template <typename Fn>
void IntrusiveTable<Node, Traits>::ForEachWhile(Fn&& fn) const {
  for (const Array* a : {&old_, &cur_}) {
    for (size_t i = 0; i < a->Buckets(); ++i) {
      for (Node* n = a->slots[i]; n;) {
        Node* next = Traits::Next(n);
        if (!fn(n)) return;
        n = next;
      }
    }
  }
}

template <typename Node, typename Traits>
void IntrusiveTable<Node, Traits>::Verify() const {
  using table_internal::Fail;
  if (cur_.slots && !std::has_single_bit(cur_.Buckets())) Fail("bucket count not a power of 2");
  if (!cur_.slots && (size_ != 0 || Rehashing())) Fail("nodes or old array without buckets");
  if (Rehashing()) {
    if (!std::has_single_bit(old_.Buckets())) Fail("old bucket count not a power of 2");
    if (old_.mask == cur_.mask) Fail("resize between arrays of equal size");
    if (migrate_pos_ >= old_.Buckets()) Fail("migrate position past the old array");
    for (size_t i = 0; i < migrate_pos_; ++i) {
      if (old_.slots[i]) Fail("node left in an already migrated old bucket");
    }
  } else if (migrate_pos_ != 0) {
    Fail("migrate position set while not resizing");
  } else if (cur_.slots) {
    // Every size change and every finished resize re-checks the thresholds, so outside a
    // resize the load is always within them.
    const size_t buckets = cur_.Buckets();
    if (size_ >= buckets) Fail("load factor >= 1 with no grow running");
    if (buckets > kMinBuckets && buckets > reserved_ && size_ * kShrinkRatio < buckets) {
      Fail("load factor < 1/8 with no shrink running");
    }
  }
  size_t seen = 0;
  for (const Array* a : {&old_, &cur_}) {
    for (size_t i = 0; i < a->Buckets(); ++i) {
      for (const Node* n = a->slots[i]; n; n = Traits::Next(n)) {
        // A cycle or a node linked twice makes the walk outrun size_; stop there.
        if (++seen > size_) Fail("more linked nodes than size() (cycle or shared chain)");
        if ((Traits::Hash(n) & a->mask) != i) Fail("node in a bucket its hash does not map to");
      }
    }
  }
  if (seen != size_) Fail("fewer linked nodes than size()");
}

}  // namespace rc
