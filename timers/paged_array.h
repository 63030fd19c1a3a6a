#pragma once
// A growable array stored in fixed-size pages, for structures that live on a reactor
// thread and may hold tens of millions of items (the TTL heap). Growing never copies what
// is stored: a std::vector of 10M pointers stalls its thread for tens of milliseconds
// when it doubles, and leaves up to half its capacity unused. Here growth allocates one
// page, shrinking frees whole pages, and the slack is at most two pages.

#include <cassert>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace rc {

template <typename T, size_t kPageBits = 13>
class PagedArray {
 public:
  static constexpr size_t kPageItems = size_t{1} << kPageBits;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return pages_.size() * kPageItems; }

  T& operator[](size_t i) {
    assert(i < size_);
    return pages_[i >> kPageBits][i & (kPageItems - 1)];
  }
  const T& operator[](size_t i) const {
    assert(i < size_);
    return pages_[i >> kPageBits][i & (kPageItems - 1)];
  }
  T& front() { return (*this)[0]; }
  const T& front() const { return (*this)[0]; }
  T& back() { return (*this)[size_ - 1]; }

  void push_back(T item) {
    if (size_ == capacity()) pages_.push_back(std::make_unique<T[]>(kPageItems));
    ++size_;
    back() = std::move(item);
  }
  void pop_back() {
    assert(size_ > 0);
    back() = T();
    --size_;
    // One spare page stays, so an item that comes and goes at a page boundary does not
    // allocate and free a page each time.
    if (capacity() - size_ >= 2 * kPageItems) pages_.pop_back();
  }
  void clear() {
    pages_.clear();
    size_ = 0;
  }
  // Bytes of the pages and of the page table.
  size_t MemoryBytes() const {
    return capacity() * sizeof(T) + pages_.capacity() * sizeof(std::unique_ptr<T[]>);
  }

 private:
  std::vector<std::unique_ptr<T[]>> pages_;
  size_t size_ = 0;
};

}  // namespace rc
