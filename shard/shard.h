#pragma once
// One worker thread's slice of the keyspace. Nothing here is locked: only the owning
// thread may call any method (DCHECKed through OwnerCheck in debug builds).

#include <cstdint>
#include <string_view>

#include "absl/random/random.h"
#include "core/entry_table.h"
#include "shard/key_locks.h"
#include "shard/stats.h"
#include "shard/thread_check.h"

namespace rc {

struct ShardStats {
  uint64_t keyspace_hits = 0;
  uint64_t keyspace_misses = 0;
  uint64_t expired_keys = 0;
  uint64_t evicted_keys = 0;
};

class Shard {
 public:
  Shard(uint32_t id, ThreadStats* thread_stats) : id_(id), thread_stats_(thread_stats) {}
  Shard(const Shard&) = delete;
  Shard& operator=(const Shard&) = delete;

  uint32_t id() const { return id_; }

  // Lookup for reads: counts hits and misses as Redis's keyspace_hits/misses do.
  Entry* FindForRead(std::string_view key);
  // Lookup for writes and existence checks: no hit/miss accounting.
  Entry* Find(std::string_view key);
  // Inserts or overwrites `key` with a string value.
  void SetString(std::string_view key, std::string_view value);
  // Removes the key; returns whether it existed.
  bool Delete(std::string_view key);
  // Reallocates `e` so its value can hold `capacity` bytes; returns the new entry, whose
  // value bytes equal the old ones.
  Entry* GrowString(Entry* e, size_t capacity);
  void Flush();

  EntryTable& table() { return table_; }
  size_t size() const { return table_.size(); }
  ShardStats& stats() { return stats_; }
  // Counters of the thread that owns this shard (connections, commands, bytes).
  ThreadStats& thread_stats() { return *thread_stats_; }
  absl::BitGen& rng() { return rng_; }
  // Background work for an idle loop turn: finish an in-progress resize a bit at a time.
  bool Housekeep();

  // Locks held by multi-shard commands on this shard's keys, and the work waiting on them.
  KeyLocks& locks() { return locks_; }

  ThreadCheck& thread_check() { return thread_check_; }

 private:
  uint32_t id_;
  ThreadStats* thread_stats_;
  EntryTable table_;
  ShardStats stats_;
  absl::BitGen rng_;
  KeyLocks locks_;
  ThreadCheck thread_check_;
};

}  // namespace rc
