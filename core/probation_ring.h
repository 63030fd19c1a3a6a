#pragma once
// The FIFO of keys on probation (shard/runtime/evictor.h): each slot holds the low 32 bits
// of a key's hash, which is enough to find its bucket in any table of up to 2^32 buckets
// and to tell the key from the others in the chain. A slot is not updated when its key
// is deleted or its entry reallocated: whoever pops it looks the key up again, and a
// slot whose key is gone is simply skipped. 4 bytes a slot; grows by doubling and keeps
// its order.
//
// Single-threaded: the owning shard's thread.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rc {

class ProbationRing {
 public:
  size_t size() const { return size_; }
  size_t capacity() const { return slots_.size(); }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == slots_.size(); }

  // The caller pops the oldest first when full().
  void Push(uint32_t fingerprint) {
    slots_[(head_ + size_) & (slots_.size() - 1)] = fingerprint;
    ++size_;
  }
  uint32_t Pop() {
    uint32_t f = slots_[head_];
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
    return f;
  }
  // Grows to at least `capacity` slots (a power of two), keeping the order.
  void Reserve(size_t capacity) {
    capacity = std::bit_ceil(capacity < 16 ? size_t(16) : capacity);
    if (capacity <= slots_.size()) return;
    std::vector<uint32_t> grown(capacity);
    for (size_t i = 0; i < size_; ++i) grown[i] = slots_[(head_ + i) & (slots_.size() - 1)];
    slots_ = std::move(grown);
    head_ = 0;
  }
  void Clear() {
    slots_.clear();
    slots_.shrink_to_fit();
    head_ = size_ = 0;
  }
  size_t MemoryBytes() const { return slots_.capacity() * sizeof(uint32_t); }

 private:
  std::vector<uint32_t> slots_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace rc
