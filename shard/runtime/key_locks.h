#pragma once
// Intent locks that a multi-shard command holds on this shard's keys while it runs, and
// the work waiting for them. Owned by a Shard; its thread only.
//
// Work that touches a locked key, or a key that earlier waiting work names, waits, and
// each key releases its waiters in arrival order: a key sees its commands in the order
// they arrived. Multi-shard commands take their locks one shard at a time in ascending
// shard order, so a command waiting on shard s holds locks only on shards below s: no
// cycle, no deadlock.
//
// Waiters are indexed per key (a FIFO of waiter ids per key), so an unlock looks only at
// the first waiter of each key it frees: contention costs O(keys), not O(queue).
//
// Keys are known by their 64-bit hash (HashKey), so locking copies no key and allocates
// nothing while uncontended. Two keys with the same hash would merely wait for each other;
// waits still go in shard order, so that cannot deadlock.

#include <cstdint>
#include <set>
#include <string_view>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "shard/runtime/mailbox.h"

namespace rc {

class KeyLocks {
 public:
  // The keys' HashKey values (core/entry_table.h).
  using Keys = absl::Span<const uint64_t>;

  // Nothing locked and nothing waiting: commands need no further check.
  bool Idle() const { return locked_.empty() && whole_ == 0 && waiting_.empty(); }
  // A keyspace-wide command (KEYS, FLUSHALL, EXEC of one) holds the whole shard.
  bool WholeLocked() const { return whole_ > 0; }
  // Whether work touching `keys` (or, with `whole`, every key) may run now.
  bool MayRun(Keys keys, bool whole) const;
  void Lock(Keys keys, bool whole);
  // Unlocks and runs the waiting work that has become free, in arrival order per key.
  void Unlock(Keys keys, bool whole);
  // Runs `task` once its keys are free and every earlier waiter on them has run.
  void Enqueue(Keys keys, bool whole, Task task);

  size_t waiting() const { return waiting_.size(); }

 private:
  struct Waiter {
    absl::InlinedVector<uint64_t, 4> keys;
    bool whole;
    Task task;
  };
  bool Runnable(uint64_t seq, const Waiter& w) const;
  // Runs runnable waiters, starting from `candidates`, until none is left to try.
  void Wake(std::vector<uint64_t> candidates);
  void AddFront(uint64_t key, std::vector<uint64_t>* candidates) const;

  absl::flat_hash_map<uint64_t, int> locked_;  // key hash -> lock count
  int whole_ = 0;                              // whole-shard locks held
  uint64_t next_seq_ = 0;
  absl::btree_map<uint64_t, Waiter> waiting_;  // by arrival
  // Key hash -> FIFO of waiting seqs (short: contended keys have few waiters).
  absl::flat_hash_map<uint64_t, absl::InlinedVector<uint64_t, 2>> waiters_of_;
  std::set<uint64_t> whole_waiters_;
  bool waking_ = false;
  std::vector<uint64_t> pending_candidates_;  // found while a woken task was running
};

}  // namespace rc
