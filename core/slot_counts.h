#pragma once
// How many keys of one table hash to each Redis Cluster slot, so CLUSTER COUNTKEYSINSLOT
// answers without walking the table and GETKEYSINSLOT knows when its walk has found
// every key of the slot (docs/CLUSTER.md, "Keys per slot").
//
// 64 KiB (16384 x uint32_t), so EntryTable allocates one only in cluster mode. Keeping
// it exact is EntryTable's job: it counts in Insert and Detach, where every key enters
// and leaves a shard's keyspace. Single-threaded, as the table it belongs to.

#include <array>
#include <cstdint>
#include <string_view>

#include "core/key_slot.h"

namespace rc {

class SlotCounts {
 public:
  uint32_t operator[](uint16_t slot) const { return counts_[slot]; }
  void Add(std::string_view key) { ++counts_[KeySlot(key)]; }
  void Remove(std::string_view key) { --counts_[KeySlot(key)]; }
  void Clear() { counts_.fill(0); }
  // Sum over all slots (O(slots)), for tests to compare with the table's size.
  uint64_t Total() const {
    uint64_t n = 0;
    for (uint32_t c : counts_) n += c;
    return n;
  }

 private:
  // uint32_t: a shard holds far fewer than 2^32 keys in one slot (Redis's per-slot
  // count is an unsigned long, but 16384 of those would double the array for nothing).
  std::array<uint32_t, kNumKeySlots> counts_{};
};

}  // namespace rc
