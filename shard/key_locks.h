#pragma once
// Intent locks that a multi-shard command holds on this shard's keys while it runs, and
// the queue of work waiting for them. Owned by a Shard; its thread only.
//
// Work that touches a locked key, or a key that earlier queued work touches, waits here in
// arrival order, so each key sees its commands in the order they arrived. Multi-shard
// commands take their locks one shard at a time in ascending shard order, so a command
// waiting on shard s holds locks only on shards below s: no cycle, no deadlock.
//
// Callers pass keys as views; the tables keep their own copies, since two waiters may name
// the same key and either may leave first.

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "shard/mailbox.h"

namespace rc {

class KeyLocks {
 public:
  using Keys = std::vector<std::string_view>;

  // Nothing locked and nothing waiting: commands need no further check.
  bool Idle() const { return locked_.empty() && whole_ == 0 && queue_.empty(); }
  // Whether work touching `keys` (or, with `whole`, every key) may run now.
  bool MayRun(const Keys& keys, bool whole) const;
  void Lock(const Keys& keys, bool whole);
  // Unlocks and runs the waiting work that has become free, in arrival order.
  void Unlock(const Keys& keys, bool whole);
  // Runs `task` once MayRun(keys, whole) holds and all earlier waiting work on those keys
  // has run.
  void Enqueue(Keys keys, bool whole, Task task);

  size_t waiting() const { return queue_.size(); }

 private:
  struct Waiting {
    Keys keys;
    bool whole;
    Task task;
  };
  void RunReady();

  absl::flat_hash_map<std::string, int> locked_;  // key -> lock count
  int whole_ = 0;                                 // whole-shard locks held
  std::deque<Waiting> queue_;                     // each task owns its keys' bytes
  absl::flat_hash_map<std::string, int> queued_;  // keys of waiting work, counted
  int queued_whole_ = 0;
  bool running_ready_ = false;
};

}  // namespace rc
