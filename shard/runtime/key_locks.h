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

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "shard/runtime/mailbox.h"

namespace rc {

class KeyLocks {
 public:
  using Keys = std::vector<std::string_view>;

  // Nothing locked and nothing waiting: commands need no further check.
  bool Idle() const { return locked_.empty() && whole_ == 0 && waiting_.empty(); }
  // A keyspace-wide command (KEYS, FLUSHALL, EXEC of one) holds the whole shard.
  bool WholeLocked() const { return whole_ > 0; }
  // Whether work touching `keys` (or, with `whole`, every key) may run now.
  bool MayRun(const Keys& keys, bool whole) const;
  void Lock(const Keys& keys, bool whole);
  // Unlocks and runs the waiting work that has become free, in arrival order per key.
  void Unlock(const Keys& keys, bool whole);
  // Runs `task` once its keys are free and every earlier waiter on them has run. The
  // task owns the bytes `keys` view.
  void Enqueue(Keys keys, bool whole, Task task);

  size_t waiting() const { return waiting_.size(); }

 private:
  struct Waiter {
    Keys keys;
    bool whole;
    Task task;
  };
  bool Runnable(uint64_t seq, const Waiter& w) const;
  // Runs runnable waiters, starting from `candidates`, until none is left to try.
  void Wake(std::vector<uint64_t> candidates);
  void AddFront(std::string_view key, std::vector<uint64_t>* candidates) const;

  absl::flat_hash_map<std::string, int> locked_;  // key -> lock count
  int whole_ = 0;                                 // whole-shard locks held
  uint64_t next_seq_ = 0;
  std::map<uint64_t, Waiter> waiting_;                                 // by arrival
  absl::flat_hash_map<std::string, std::deque<uint64_t>> waiters_of_;  // key -> FIFO of seqs
  std::set<uint64_t> whole_waiters_;
  bool waking_ = false;
  std::vector<uint64_t> pending_candidates_;  // found while a woken task was running
};

}  // namespace rc
