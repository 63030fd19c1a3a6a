#pragma once
// A d-ary min-heap ordered by deadline whose items know their own position (the seed
// book's `heap_idx`), so a deadline can be changed or an item removed in O(log n)
// without searching.
//
// Traits:
//   static int64_t Deadline(const T& item);
//   static void SetIndex(const T& item, uint32_t index);   // called whenever it moves
//
// With Arity 4 the four children of a node are adjacent, so one level costs one or two
// cache lines and the tree is half as deep as a binary heap. Items live in a MappedArray
// (mremap growth), so a push never copies the heap (no stall at millions of items).

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "timers/mapped_array.h"

namespace rc {

template <typename T, typename Traits, int Arity = 4>
class IndexedHeap {
  static_assert(Arity >= 2);

 public:
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  const T& Top() const {
    assert(!items_.empty());
    return items_.front();
  }
  const T& At(uint32_t index) const {
    assert(index < items_.size());
    return items_[index];
  }

  void Push(T item) {
    items_.push_back(std::move(item));
    SiftUp(uint32_t(items_.size() - 1));
  }
  // The item at `index` has a new deadline: move it to where it belongs.
  void Update(uint32_t index) {
    assert(index < items_.size());
    if (!SiftUp(index)) SiftDown(index);
  }
  // Replaces the item at `index` (e.g. a slot that stores its own deadline, which At()
  // cannot change) and moves it to where it belongs.
  void Update(uint32_t index, T item) {
    assert(index < items_.size());
    items_[index] = std::move(item);
    Update(index);
  }
  T Remove(uint32_t index) {
    assert(index < items_.size());
    T out = std::move(items_[index]);
    uint32_t last = uint32_t(items_.size() - 1);
    if (index != last) {
      Place(index, std::move(items_[last]));
      items_.pop_back();
      Update(index);
    } else {
      items_.pop_back();
    }
    return out;
  }
  T Pop() { return Remove(0); }
  // Puts `item` where the item at `index` was (a reallocated node taking its place), then
  // restores order in case its deadline differs.
  void Replace(uint32_t index, T item) {
    Place(index, std::move(item));
    Update(index);
  }
  void Clear() { items_.clear(); }
  size_t MemoryBytes() const { return items_.MemoryBytes(); }

  // Aborts with a message if the heap order or an index is wrong. `index_of` reads the
  // index an item believes it has.
  template <typename IndexOf>
  void Verify(IndexOf index_of) const {
    for (uint32_t i = 0; i < items_.size(); ++i) {
      if (index_of(items_[i]) != i) Fail("item's index is stale");
      if (i > 0 && Traits::Deadline(items_[(i - 1) / Arity]) > Traits::Deadline(items_[i])) {
        Fail("parent after child");
      }
    }
  }

 private:
  [[noreturn]] static void Fail(const char* what) {
    std::fprintf(stderr, "IndexedHeap: %s\n", what);
    std::abort();
  }
  void Place(uint32_t index, T item) {
    items_[index] = std::move(item);
    Traits::SetIndex(items_[index], index);
  }
  // Returns whether the item moved.
  bool SiftUp(uint32_t index) {
    T item = std::move(items_[index]);
    int64_t d = Traits::Deadline(item);
    uint32_t start = index;
    while (index > 0) {
      uint32_t parent = (index - 1) / Arity;
      if (Traits::Deadline(items_[parent]) <= d) break;
      Place(index, std::move(items_[parent]));
      index = parent;
    }
    Place(index, std::move(item));
    return index != start;
  }
  void SiftDown(uint32_t index) {
    T item = std::move(items_[index]);
    int64_t d = Traits::Deadline(item);
    const uint32_t n = uint32_t(items_.size());
    for (;;) {
      uint64_t first = uint64_t(index) * Arity + 1;
      if (first >= n) break;
      uint32_t best = uint32_t(first);
      int64_t best_d = Traits::Deadline(items_[best]);
      uint32_t end = uint32_t(std::min<uint64_t>(first + Arity, n));
      for (uint32_t c = best + 1; c < end; ++c) {
        int64_t cd = Traits::Deadline(items_[c]);
        if (cd < best_d) {
          best = c;
          best_d = cd;
        }
      }
      if (best_d >= d) break;
      Place(index, std::move(items_[best]));
      index = best;
    }
    Place(index, std::move(item));
  }

  MappedArray<T> items_;
};

}  // namespace rc
