#pragma once
// Keys recently evicted from probation, remembered approximately (S3-FIFO's ghost queue
// without storing keys): a direct-mapped array of 8-bit fingerprints. Remembering a key
// overwrites whatever its slot held, so a key is forgotten after about `slots` later
// ones; a lookup whose slot holds another key's equal fingerprint is a false positive
// (1 in 255 lookups of an occupied slot), which only lets that key skip probation. One byte a
// slot. docs/EVICTION.md compares it with an exact ghost queue.
//
// Single-threaded: the owning shard's thread.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rc {

class GhostFilter {
 public:
  size_t slots() const { return slots_.size(); }
  // Resizes to `slots` (rounded up to a power of two), forgetting everything.
  void Reset(size_t slots) {
    slots_.assign(std::bit_ceil(slots < 64 ? size_t(64) : slots), 0);
    slots_.shrink_to_fit();
  }
  void Clear() {
    slots_.clear();
    slots_.shrink_to_fit();
  }
  void Add(uint64_t hash) {
    if (!slots_.empty()) slots_[Slot(hash)] = Tag(hash);
  }
  bool Contains(uint64_t hash) const { return !slots_.empty() && slots_[Slot(hash)] == Tag(hash); }
  size_t MemoryBytes() const { return slots_.capacity(); }

 private:
  // The slot from the high bits, the tag from the next byte down: independent of each
  // other and of the low bits the hash table uses. A tag is never 0 (an empty slot).
  size_t Slot(uint64_t hash) const { return size_t(hash >> 32) & (slots_.size() - 1); }
  static uint8_t Tag(uint64_t hash) {
    uint8_t t = uint8_t(hash >> 24);
    return t != 0 ? t : 1;
  }

  std::vector<uint8_t> slots_;
};

}  // namespace rc
