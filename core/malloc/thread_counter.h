#pragma once
// The per-thread byte counters behind MallocCountedBytes, shared by every allocator back
// end in this folder (exactly one is linked into an executable).

#include <atomic>
#include <cstdint>

namespace rc::malloc_count {

// One counter per thread while there are few threads (each written by its thread alone:
// a plain add, no locked instruction); threads beyond them share the last, atomically.
constexpr int kSlots = 128;
struct alignas(64) Slot {
  std::atomic<int64_t> bytes{0};
  std::atomic<int64_t> blocks{0};  // kept by back ends whose blocks carry a header
};
inline Slot g_slots[kSlots];
inline std::atomic<int> g_next_slot{0};
// No constructor, so touching it allocates nothing (malloc may run before main).
inline __thread int tl_slot __attribute__((tls_model("initial-exec"))) = -1;

inline Slot& MySlot(bool* shared) {
  int s = tl_slot;
  if (s < 0) {
    s = g_next_slot.fetch_add(1, std::memory_order_relaxed);
    if (s >= kSlots) s = kSlots;  // shared
    tl_slot = s;
  }
  *shared = s >= kSlots - 1;
  return g_slots[*shared ? kSlots - 1 : s];
}

inline void Add(std::atomic<int64_t>& c, int64_t delta, bool shared) {
  if (shared) {
    c.fetch_add(delta, std::memory_order_relaxed);
  } else {
    c.store(c.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  }
}

inline void Count(int64_t bytes) {
  bool shared;
  // Apart: in one call's arguments `shared` could be read before MySlot sets it.
  Slot& slot = MySlot(&shared);
  Add(slot.bytes, bytes, shared);
}

inline void Count(int64_t bytes, int64_t blocks) {
  bool shared;
  Slot& slot = MySlot(&shared);
  Add(slot.bytes, bytes, shared);
  Add(slot.blocks, blocks, shared);
}

inline int64_t Sum(std::atomic<int64_t> Slot::*field = &Slot::bytes) {
  int64_t sum = 0;
  for (const Slot& s : g_slots) sum += (s.*field).load(std::memory_order_relaxed);
  return sum;
}

}  // namespace rc::malloc_count
