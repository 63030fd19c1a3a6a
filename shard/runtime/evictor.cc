#include "shard/runtime/evictor.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/random/distributions.h"
#include "core/entry_table.h"
#include "shard/runtime/shard.h"
#include "timers/clock.h"

namespace rc {

namespace {

// S3-FIFO's small queue: probation keys are popped while they are at least this share
// of the shard's keys.
constexpr size_t kProbationDivisor = 10;
// Ring slots per key (two probation shares: slots of deleted keys linger until popped)
// and ghost slots per key; docs/EVICTION.md measures the ghost's size.
constexpr size_t kRingDivisor = 8;
constexpr size_t kGhostDivisor = 4;
// allkeys-random: draws per step before giving up on a turn whose keys are all locked.
constexpr int kRandomDraws = 16;
// Clock reads: one per this many units of work.
constexpr uint64_t kWorkPerClockRead = 32;

uint32_t Fingerprint(uint64_t hash) { return uint32_t(hash); }

}  // namespace

void Evictor::OnLink(Entry* e) {
  e->set_hits(0);
  e->set_probation(false);
  if (!ring_on_) return;
  const uint64_t hash = HashKey(e->key());
  if (ghost_.Contains(hash)) return;  // evicted from probation lately: straight to main
  if (ring_.full()) Promote();
  e->set_probation(true);
  ++probation_;
  ring_.Push(Fingerprint(hash));
}

void Evictor::OnFlush() {
  ring_.Clear();
  ghost_.Clear();
  ring_on_ = false;
  probation_ = 0;
  hand_ = 0;
  idle_revolutions_ = 0;
}

bool Evictor::HasCandidates(EvictionPolicy policy) const {
  if (policy == EvictionPolicy::kNoEviction) return false;
  return VolatileOnly(policy) ? shard_.keys_with_ttl() > 0 : shard_.size() > 0;
}

size_t Evictor::Evict(EvictionPolicy policy, size_t bytes, int64_t deadline_ns, int samples) {
  if (!HasCandidates(policy) || shard_.locks_.WholeLocked()) return 0;
  if (policy == EvictionPolicy::kAllKeysLru || policy == EvictionPolicy::kAllKeysLfu) Fit();
  size_t freed = 0;
  uint64_t next_clock_read = work_ + kWorkPerClockRead;
  while (freed < bytes && Step(policy, samples, &freed)) {
    if (work_ >= next_clock_read) {
      if (MonotonicNanos() >= deadline_ns) break;
      next_clock_read = work_ + kWorkPerClockRead;
    }
  }
  return freed;
}

bool Evictor::Step(EvictionPolicy policy, int samples, size_t* freed) {
  ++work_;
  switch (policy) {
    case EvictionPolicy::kNoEviction:
      return false;
    case EvictionPolicy::kAllKeysLru:
    case EvictionPolicy::kAllKeysLfu: {
      if (shard_.size() == 0) return false;
      const bool probation_full =
          probation_ >= std::max<size_t>(1, shard_.size() / kProbationDivisor);
      if ((probation_full || probation_ == shard_.size()) && FromRing(freed)) return true;
      return FromHand(freed);
    }
    case EvictionPolicy::kAllKeysRandom: {
      // A few draws past locked keys; if all are locked, the rest waits for the next turn.
      for (int i = 0; i < kRandomDraws; ++i) {
        const Entry* e = shard_.table_.Random(shard_.rng_);
        if (e == nullptr) return false;
        if (Unlocked(e)) {
          *freed += Remove(const_cast<Entry*>(e));
          return true;
        }
      }
      return false;
    }
    case EvictionPolicy::kVolatileTtl: {
      if (shard_.ttl_.empty()) return false;
      Entry* e = shard_.ttl_.Top();
      // The earliest deadline is locked by a multi-shard command: retry next turn.
      if (!Unlocked(e)) return false;
      *freed += Remove(e);
      return true;
    }
    case EvictionPolicy::kVolatileRandom:
    case EvictionPolicy::kVolatileLru:
    case EvictionPolicy::kVolatileLfu:
      return Sampled(policy, samples, freed);
  }
  return false;
}

bool Evictor::FromRing(size_t* freed) {
  // At most kWorkPerClockRead pops per call, evicting or not: a long run of stale slots
  // or kept keys must not keep Evict from reading the clock.
  for (uint64_t popped = 0; !ring_.empty();) {
    ++work_;
    const bool budget_left = ++popped < kWorkPerClockRead;
    Entry* e = Lookup(ring_.Pop());
    if (e == nullptr) {
      // Deleted, or a slot left by a key that lost probation.
      if (!budget_left) return true;
      continue;
    }
    e->set_probation(false);
    --probation_;
    if (e->hits() > 0 || !Unlocked(e)) {
      e->set_hits(0);  // proved itself: main set
      if (!budget_left) return true;
      continue;
    }
    ghost_.Add(HashKey(e->key()));
    *freed += Remove(e);
    return true;
  }
  return false;
}

bool Evictor::FromHand(size_t* freed) {
  victims_.clear();
  // After two revolutions that found nothing, keys on probation are swept like the rest
  // (they should have come off the ring by then; this bounds the sweep regardless).
  const bool sweep_probation = idle_revolutions_ >= 2;
  hand_ = shard_.table_.Sweep(hand_, [&](Entry* e) {
    if (e->probation() && !sweep_probation) return;
    if (e->hits() > 0) {
      e->set_hits(uint8_t(e->hits() - 1));
      return;
    }
    if (Unlocked(e)) victims_.push_back(e);
  });
  for (Entry* e : victims_) {
    if (e->probation()) {
      e->set_probation(false);
      --probation_;
    }
    *freed += Remove(e);
  }
  if (hand_ == 0) {
    previous_revolution_ms_ = revolution_ms_;
    revolution_ms_ = shard_.NowMs();
  }
  if (!victims_.empty()) {
    idle_revolutions_ = 0;
  } else if (hand_ == 0 && ++idle_revolutions_ > Entry::kMaxHits) {
    // Every counter has run down to 0 by now: whatever is left is locked.
    idle_revolutions_ = 0;
    return false;
  }
  return true;
}

bool Evictor::Sampled(EvictionPolicy policy, int samples, size_t* freed) {
  const size_t n = shard_.ttl_.size();
  if (n == 0) return false;
  if (policy == EvictionPolicy::kVolatileRandom) samples = 1;
  // Coldest first: never hit on probation, then by hit count.
  auto score = [](const Entry* e) { return e->hits() * 2 + (e->probation() ? 0 : 1); };
  Entry* best = nullptr;
  for (int i = 0; i < samples; ++i) {
    Entry* e = shard_.ttl_.At(absl::Uniform<uint32_t>(shard_.rng_, 0, uint32_t(n)));
    if (!Unlocked(e)) continue;
    Entry* spared = e;
    if (best == nullptr || score(e) < score(best)) std::swap(best, spared);
    // A sampled key that stays loses a hit, so counters age as a CLOCK hand ages them.
    if (spared != nullptr && spared != best && spared->hits() > 0) {
      spared->set_hits(uint8_t(spared->hits() - 1));
    }
  }
  if (best == nullptr) return false;  // every sample locked: next turn
  if (best->probation()) {
    best->set_probation(false);
    --probation_;
  }
  *freed += Remove(best);
  return true;
}

int64_t Evictor::IdleMillis(const Entry& e, int64_t now_ms) const {
  if (e.hits() > 0 || e.probation() || revolution_ms_ == 0) return 0;
  const size_t buckets = shard_.table_.BucketCount();
  if (buckets < 2) return 0;
  // Positions in the hand's order: SCAN visits buckets by their reversed index bits.
  const int shift = 64 - std::countr_zero(buckets);
  auto position = [&](uint64_t bucket) {
    return double(table_internal::ReverseBits(bucket & (buckets - 1)) >> shift) / double(buckets);
  };
  const double key = position(HashKey(e.key()));
  const double hand = position(hand_);
  double passed_ms;
  if (key < hand) {
    passed_ms = double(revolution_ms_) + double(now_ms - revolution_ms_) * key / hand;
  } else if (previous_revolution_ms_ != 0) {
    passed_ms =
        double(previous_revolution_ms_) + double(revolution_ms_ - previous_revolution_ms_) * key;
  } else {
    return 0;
  }
  return std::max<int64_t>(0, now_ms - int64_t(passed_ms));
}

void Evictor::Promote() {
  Entry* e = Lookup(ring_.Pop());
  if (e == nullptr) return;
  e->set_probation(false);
  e->set_hits(0);
  --probation_;
}

Entry* Evictor::Lookup(uint32_t fingerprint) {
  return shard_.table_.FindIf(fingerprint, [fingerprint](const Entry* e) {
    return e->probation() && Fingerprint(HashKey(e->key())) == fingerprint;
  });
}

void Evictor::Fit() {
  const size_t keys = shard_.size();
  ring_on_ = true;
  if (ring_.capacity() < keys / kRingDivisor || ring_.capacity() == 0) {
    ring_.Reserve(keys / kRingDivisor);
  }
  // Resized (and so emptied) only when off by 2× either way, so a steady shard keeps it.
  const size_t want = std::max<size_t>(keys / kGhostDivisor, 64);
  if (ghost_.slots() < want / 2 || ghost_.slots() > want * 4) ghost_.Reset(want);
}

bool Evictor::Unlocked(const Entry* e) const {
  KeyLocks& locks = shard_.locks_;
  if (locks.Idle()) return true;
  const uint64_t hash = HashKey(e->key());
  return locks.MayRun({&hash, 1}, false);
}

size_t Evictor::Remove(Entry* e) { return shard_.EvictEntry(e); }

void Evictor::Verify() const {
  size_t flagged = 0;
  shard_.table_.ForEach([&](const Entry* e) { flagged += e->probation() ? 1 : 0; });
  if (flagged != probation_) {
    std::fprintf(stderr, "Evictor: %zu entries on probation, counted %zu\n", flagged, probation_);
    std::abort();
  }
  if (flagged > ring_.size()) {
    std::fprintf(stderr, "Evictor: %zu entries on probation, %zu ring slots\n", flagged,
                 ring_.size());
    std::abort();
  }
}

}  // namespace rc
