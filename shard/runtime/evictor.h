#pragma once
// Which of one shard's keys go when the server is over maxmemory, by maxmemory-policy.
// Owned by a Shard; its thread only. When to evict and how much is decided server-wide
// (shard/runtime/memory_limit.h); this class only picks and removes keys.
//
// allkeys-lru and allkeys-lfu: S3-FIFO (Yang et al., SOSP 2023) on the keyspace's own
// hash table, chosen on the simulator's miss ratios (bench/eviction_sim.cc,
// docs/EVICTION.md). It needs no per-key links: three spare bits of the entry's meta
// byte hold a 2-bit hit counter and a probation flag.
//
//   new key ─▶ probation (flag set, hash pushed on the ring)
//                │ ring popped while probation holds ≥ 10% of the keys
//                ├─ hit since it came: main set (flag cleared, counter reset)
//                └─ never hit: evicted, its hash remembered by the ghost filter
//   missed key the ghost remembers ─▶ main set directly
//   main set: a CLOCK hand (a SCAN cursor over the buckets) lowers each counter it
//             passes and evicts keys whose counter is already 0; probation keys are
//             skipped
//
// The probation ring and the ghost filter exist once the shard has evicted; until then
// every key is in the main set and a hit costs one bit operation on the entry.
//
// volatile-ttl evicts the earliest deadline (the TTL heap's top: exact, where Redis
// samples); volatile-random a random key of the TTL heap; volatile-lru/-lfu the coldest
// of maxmemory-samples keys of the TTL heap by the same counters; allkeys-random a random
// key of the table. Keys that multi-shard commands hold locked are never evicted.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/entry.h"
#include "core/ghost_filter.h"
#include "core/probation_ring.h"
#include "shard/state/eviction_policy.h"

namespace rc {

class Shard;

class Evictor {
 public:
  explicit Evictor(Shard& shard) : shard_(shard) {}

  // A key that was not in the table has been linked: it starts on probation once the
  // ring is in use, else in the main set (with no hits either way).
  void OnLink(Entry* e);
  // `e` is leaving the table.
  void OnUnlink(const Entry* e) {
    if (e->probation()) --probation_;
  }
  // Every key is gone (FLUSHALL).
  void OnFlush();

  // Evicts keys by `policy` until `bytes` are freed, the policy finds nothing more, or
  // MonotonicNanos() passes `deadline_ns` (checked every few keys). Returns bytes freed.
  size_t Evict(EvictionPolicy policy, size_t bytes, int64_t deadline_ns, int samples);
  // Whether `policy` would find a key to evict here (locks aside).
  bool HasCandidates(EvictionPolicy policy) const;

  // OBJECT IDLETIME's estimate (no timestamps are kept): 0 for a key hit since the hand
  // last passed it, or on probation (new), or before the hand has turned; else the time
  // since the hand passed its bucket, interpolated from when revolutions started.
  int64_t IdleMillis(const Entry& e, int64_t now_ms) const;

  // Keys on probation; the ring and ghost filter's bytes (counted in the shard's memory).
  size_t probation() const { return probation_; }
  size_t MemoryBytes() const { return ring_.MemoryBytes() + ghost_.MemoryBytes(); }
  // Aborts unless probation() equals the entries flagged on probation and each of them
  // has a ring slot. O(n); tests.
  void Verify() const;

 private:
  // One unit of work: frees what it can into *freed. False when the policy has nothing
  // left to evict here.
  bool Step(EvictionPolicy policy, int samples, size_t* freed);
  // S3-FIFO: pop the probation ring, or move the hand over one bucket.
  bool FromRing(size_t* freed);
  bool FromHand(size_t* freed);
  bool Sampled(EvictionPolicy policy, int samples, size_t* freed);
  // Pops the oldest ring slot and lets its key (if any) into the main set.
  void Promote();
  // The probation entry whose hash has these low 32 bits, or nullptr.
  Entry* Lookup(uint32_t fingerprint);
  // Sizes the ring and the ghost filter to the table.
  void Fit();
  bool Unlocked(const Entry* e) const;
  size_t Remove(Entry* e);

  Shard& shard_;
  ProbationRing ring_;
  GhostFilter ghost_;
  bool ring_on_ = false;
  size_t probation_ = 0;
  uint64_t hand_ = 0;  // SCAN cursor of the CLOCK hand
  // When the hand's current and previous revolutions began (Unix ms; 0: not yet).
  int64_t revolution_ms_ = 0;
  int64_t previous_revolution_ms_ = 0;
  // Revolutions of the hand that found nothing to evict in a row (all keys on
  // probation, or all locked): a bound on the sweep.
  int idle_revolutions_ = 0;
  std::vector<Entry*> victims_;
  uint64_t work_ = 0;  // ring pops and buckets visited, to pace clock reads
};

}  // namespace rc
