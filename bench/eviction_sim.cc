// Offline eviction simulator: replays identical key traces through exact LRU, Redis's
// sampled LRU and LFU, reference implementations of newer policies (SIEVE, S3-FIFO) and
// the candidates ringcache can implement without per-key links, and prints miss ratios.
// Every object has the same size, so the cache holds a fixed number of keys. Traces and
// policies are seeded: two runs print the same figures.
//
//   eviction_sim [--keys N] [--requests N] [--warmup N] [--traces a,b] [--policies a,b]
//                [--sizes 0.001,0.01,0.1] [--jobs N]
//
// Results and the choice they led to: docs/EVICTION.md.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/zipf.h"

namespace {

using rc::bench::Rng;
using rc::bench::SplitMix;
using rc::bench::Zipf;

// ---- Traces ----------------------------------------------------------------------------

struct Trace {
  std::string name;
  uint32_t universe = 0;  // key ids are below this
  std::vector<uint32_t> keys;
};

// Rank r's key: a fixed pseudo-random permutation of [0, n), so popularity says nothing
// about a key's id (or its position in a hash table).
std::vector<uint32_t> Permutation(uint32_t n, uint64_t seed) {
  std::vector<uint32_t> p(n);
  for (uint32_t i = 0; i < n; ++i) p[i] = i;
  Rng rng(seed);
  for (uint32_t i = n - 1; i > 0; --i) std::swap(p[i], p[rng.Below(i + 1)]);
  return p;
}

Trace ZipfTrace(double alpha, uint32_t keys, uint64_t requests) {
  Trace t{"zipf-" + std::to_string(alpha).substr(0, 4), keys, {}};
  Zipf z(keys, alpha);
  Rng rng(uint64_t(alpha * 1000) + 1);
  std::vector<uint32_t> perm = Permutation(keys, 7);
  t.keys.resize(requests);
  for (auto& k : t.keys) k = perm[z.Draw(rng) - 1];
  return t;
}

// Zipf 0.99 with scans: 20 times per trace, a burst of keys read once each, in order,
// from a range no other request touches (a batch job walking a table); one request in
// six is a scan's.
Trace ScanTrace(uint32_t keys, uint64_t requests) {
  const uint64_t period = requests / 24, burst = period / 5;
  const uint32_t scan_keys = uint32_t(requests / (period + burst) * burst + burst);
  Trace t{"scan", keys + scan_keys, {}};
  Zipf z(keys, 0.99);
  Rng rng(99);
  std::vector<uint32_t> perm = Permutation(keys, 7);
  t.keys.reserve(requests);
  uint32_t next_scan = keys;
  while (t.keys.size() < requests) {
    for (uint64_t i = 0; i < period && t.keys.size() < requests; ++i) {
      t.keys.push_back(perm[z.Draw(rng) - 1]);
    }
    for (uint64_t i = 0; i < burst && t.keys.size() < requests; ++i) t.keys.push_back(next_scan++);
  }
  return t;
}

// Zipf 0.99 whose hot set moves: 10 times per trace, popularity ranks map to a fresh set
// of keys (the rank→key permutation is rotated by a third of the key space).
Trace ShiftTrace(uint32_t keys, uint64_t requests) {
  const uint64_t phase = requests / 10;
  Trace t{"shift", keys, {}};
  Zipf z(keys, 0.99);
  Rng rng(1234);
  std::vector<uint32_t> perm = Permutation(keys, 7);
  t.keys.resize(requests);
  for (uint64_t i = 0; i < requests; ++i) {
    uint64_t offset = (i / phase) * (keys / 3);
    t.keys[i] = perm[(z.Draw(rng) - 1 + offset) % keys];
  }
  return t;
}

// ---- Policies --------------------------------------------------------------------------

class Policy {
 public:
  virtual ~Policy() = default;
  // One request; true on a hit. A miss inserts the key, evicting as needed.
  virtual bool Access(uint32_t key) = 0;
};

constexpr uint32_t kNone = UINT32_MAX;

// Exact LRU: a doubly linked list over arrays indexed by key.
class Lru : public Policy {
 public:
  Lru(uint32_t universe, uint32_t cap)
      : prev_(universe, kNone), next_(universe, kNone), in_(universe), cap_(cap) {}
  bool Access(uint32_t k) override {
    if (in_[k]) {
      Unlink(k);
      PushFront(k);
      return true;
    }
    if (size_ == cap_) {
      uint32_t victim = tail_;
      Unlink(victim);
      in_[victim] = 0;
      --size_;
    }
    PushFront(k);
    in_[k] = 1;
    ++size_;
    return false;
  }

 private:
  void Unlink(uint32_t k) {
    if (prev_[k] != kNone)
      next_[prev_[k]] = next_[k];
    else
      head_ = next_[k];
    if (next_[k] != kNone)
      prev_[next_[k]] = prev_[k];
    else
      tail_ = prev_[k];
  }
  void PushFront(uint32_t k) {
    prev_[k] = kNone;
    next_[k] = head_;
    if (head_ != kNone)
      prev_[head_] = k;
    else
      tail_ = k;
    head_ = k;
  }
  std::vector<uint32_t> prev_, next_;
  std::vector<uint8_t> in_;
  uint32_t head_ = kNone, tail_ = kNone, cap_, size_ = 0;
};

// The resident keys as a dense array, for uniform sampling (Redis's dictGetSomeKeys and
// dictGetRandomKey are close to uniform).
class Residents {
 public:
  explicit Residents(uint32_t universe) : pos_(universe, kNone) {}
  bool Has(uint32_t k) const { return pos_[k] != kNone; }
  void Add(uint32_t k) {
    pos_[k] = uint32_t(keys_.size());
    keys_.push_back(k);
  }
  void Remove(uint32_t k) {
    uint32_t p = pos_[k];
    keys_[p] = keys_.back();
    pos_[keys_[p]] = p;
    keys_.pop_back();
    pos_[k] = kNone;
  }
  uint32_t Sample(Rng& rng) const { return keys_[rng.Below(uint32_t(keys_.size()))]; }
  uint32_t size() const { return uint32_t(keys_.size()); }

 private:
  std::vector<uint32_t> pos_;
  std::vector<uint32_t> keys_;
};

// Redis 7.0's evict.c: sample maxmemory-samples keys, keep the best candidates in a pool
// of 16 sorted by score, evict the pool's best. The score is idle time for LRU and
// 255 - counter for LFU. A pool entry keeps the score it had when sampled, as in Redis.
class RedisSampled : public Policy {
 public:
  static constexpr int kPool = 16;
  RedisSampled(uint32_t universe, uint32_t cap, bool lfu, int samples)
      : res_(universe),
        stamp_(universe),
        ctr_(lfu ? universe : 0),
        cap_(cap),
        lfu_(lfu),
        samples_(samples),
        rng_(42) {}

  bool Access(uint32_t k) override {
    ++now_;
    if (res_.Has(k)) {
      Touch(k);
      return true;
    }
    while (res_.size() >= cap_) EvictOne();
    res_.Add(k);
    stamp_[k] = now_;
    if (lfu_) {
      ctr_[k] = kLfuInit;
      stamp_[k] = Minutes();
    }
    return false;
  }

 private:
  // Redis's LFU: 8-bit logarithmic counter, lfu-log-factor 10, decay lfu-decay-time 1
  // minute, new keys start at 5. Time: requests at 100k ops/s.
  static constexpr uint8_t kLfuInit = 5;
  static constexpr double kLogFactor = 10;
  static constexpr uint64_t kOpsPerSec = 100'000;
  uint64_t Minutes() const { return now_ / (kOpsPerSec * 60); }

  uint8_t DecayedCounter(uint32_t k) const {
    uint64_t periods = Minutes() - stamp_[k];
    return periods >= ctr_[k] ? 0 : uint8_t(ctr_[k] - periods);
  }
  void Touch(uint32_t k) {
    if (!lfu_) {
      stamp_[k] = now_;
      return;
    }
    uint8_t c = DecayedCounter(k);
    if (c < 255) {
      double base = double(c) - kLfuInit;
      if (base < 0) base = 0;
      if (rng_.Uniform() < 1.0 / (base * kLogFactor + 1)) ++c;
    }
    ctr_[k] = c;
    stamp_[k] = Minutes();
  }
  uint64_t Score(uint32_t k) const { return lfu_ ? 255 - DecayedCounter(k) : now_ - stamp_[k]; }

  void EvictOne() {
    for (;;) {
      for (int i = 0; i < samples_; ++i) Offer(res_.Sample(rng_));
      // Best candidates sit at the end; stale ones (already evicted) are dropped.
      while (pool_n_ > 0) {
        uint32_t k = pool_[--pool_n_].key;
        if (res_.Has(k)) {
          res_.Remove(k);
          return;
        }
      }
    }
  }
  void Offer(uint32_t k) {
    uint64_t s = Score(k);
    for (int i = 0; i < pool_n_; ++i) {
      if (pool_[i].key == k) return;  // already pooled
    }
    int i = 0;
    while (i < pool_n_ && pool_[i].score < s) ++i;
    if (i == 0 && pool_n_ == kPool) return;  // worse than every pooled candidate
    if (pool_n_ < kPool) {
      std::memmove(&pool_[i + 1], &pool_[i], sizeof(PoolEntry) * (pool_n_ - i));
      ++pool_n_;
    } else {
      --i;  // drop the worst (index 0) to make room
      std::memmove(&pool_[0], &pool_[1], sizeof(PoolEntry) * i);
    }
    pool_[i] = {k, s};
  }

  struct PoolEntry {
    uint32_t key;
    uint64_t score;
  };
  Residents res_;
  std::vector<uint64_t> stamp_;
  std::vector<uint8_t> ctr_;
  uint32_t cap_;
  bool lfu_;
  int samples_;
  Rng rng_;
  uint64_t now_ = 0;
  PoolEntry pool_[kPool];
  int pool_n_ = 0;
};

class RandomEvict : public Policy {
 public:
  RandomEvict(uint32_t universe, uint32_t cap) : res_(universe), cap_(cap), rng_(5) {}
  bool Access(uint32_t k) override {
    if (res_.Has(k)) return true;
    if (res_.size() >= cap_) res_.Remove(res_.Sample(rng_));
    res_.Add(k);
    return false;
  }

 private:
  Residents res_;
  uint32_t cap_;
  Rng rng_;
};

// A FIFO queue of keys over arrays (for the reference SIEVE and S3-FIFO, which need one).
class Fifo {
 public:
  explicit Fifo(uint32_t universe) : prev_(universe, kNone), next_(universe, kNone) {}
  void PushHead(uint32_t k) {
    prev_[k] = kNone;
    next_[k] = head_;
    if (head_ != kNone)
      prev_[head_] = k;
    else
      tail_ = k;
    head_ = k;
    ++size_;
  }
  void Remove(uint32_t k) {
    if (prev_[k] != kNone)
      next_[prev_[k]] = next_[k];
    else
      head_ = next_[k];
    if (next_[k] != kNone)
      prev_[next_[k]] = prev_[k];
    else
      tail_ = prev_[k];
    --size_;
  }
  uint32_t PopTail() {
    uint32_t k = tail_;
    Remove(k);
    return k;
  }
  uint32_t tail() const { return tail_; }
  uint32_t prev(uint32_t k) const { return prev_[k]; }
  uint32_t size() const { return size_; }

 private:
  std::vector<uint32_t> prev_, next_;
  uint32_t head_ = kNone, tail_ = kNone, size_ = 0;
};

// SIEVE (Zhang et al., NSDI 2024): FIFO order, one visited bit, a hand that moves from the
// tail toward the head and evicts the first unvisited key, clearing bits on the way.
class Sieve : public Policy {
 public:
  Sieve(uint32_t universe, uint32_t cap) : q_(universe), state_(universe), cap_(cap) {}
  bool Access(uint32_t k) override {
    if (state_[k]) {
      state_[k] = 2;
      return true;
    }
    if (q_.size() >= cap_) Evict();
    q_.PushHead(k);
    state_[k] = 1;
    return false;
  }

 private:
  void Evict() {
    uint32_t h = hand_ != kNone ? hand_ : q_.tail();
    while (state_[h] == 2) {
      state_[h] = 1;
      h = q_.prev(h) != kNone ? q_.prev(h) : q_.tail();
    }
    hand_ = q_.prev(h);
    q_.Remove(h);
    state_[h] = 0;
  }
  Fifo q_;
  std::vector<uint8_t> state_;  // 0 absent, 1 resident, 2 resident and visited
  uint32_t cap_, hand_ = kNone;
};

// S3-FIFO (Yang et al., SOSP 2023): a small FIFO (10%) for new keys, a main FIFO with
// 2-bit frequencies and reinsertion, a ghost FIFO of keys evicted from the small queue.
class S3Fifo : public Policy {
 public:
  S3Fifo(uint32_t universe, uint32_t cap)
      : small_(universe),
        main_(universe),
        ghost_(universe),
        where_(universe),
        freq_(universe),
        cap_(cap),
        small_cap_(std::max<uint32_t>(1, cap / 10)) {}
  bool Access(uint32_t k) override {
    if (where_[k] == kSmall || where_[k] == kMain) {
      if (freq_[k] < 3) ++freq_[k];
      return true;
    }
    while (small_.size() + main_.size() >= cap_) Evict();
    if (where_[k] == kGhost) {
      ghost_.Remove(k);
      main_.PushHead(k);
      where_[k] = kMain;
    } else {
      small_.PushHead(k);
      where_[k] = kSmall;
    }
    freq_[k] = 0;
    return false;
  }

 private:
  enum : uint8_t { kAbsent = 0, kSmall, kMain, kGhost };
  void Evict() {
    if (small_.size() >= small_cap_ || main_.size() == 0) {
      EvictSmall();
    } else {
      EvictMain();
    }
  }
  void EvictSmall() {
    while (small_.size() > 0) {
      uint32_t k = small_.PopTail();
      if (freq_[k] > 0) {
        main_.PushHead(k);
        where_[k] = kMain;
        freq_[k] = 0;
        if (main_.size() > cap_ - small_cap_) EvictMain();
      } else {
        if (ghost_.size() >= cap_ - small_cap_) where_[ghost_.PopTail()] = kAbsent;
        ghost_.PushHead(k);
        where_[k] = kGhost;
        return;
      }
    }
  }
  void EvictMain() {
    while (main_.size() > 0) {
      uint32_t k = main_.PopTail();
      if (freq_[k] > 0) {
        --freq_[k];
        main_.PushHead(k);
      } else {
        where_[k] = kAbsent;
        return;
      }
    }
  }
  Fifo small_, main_, ghost_;
  std::vector<uint8_t> where_, freq_;
  uint32_t cap_, small_cap_;
};

// What ringcache can build: the keys live in a chained hash table with no per-key list,
// so the only order to sweep them in is the table's own (a scan cursor). Each key has a
// small counter in spare bits of its entry. A hit raises it (saturating); the hand passing
// a key lowers it, and evicts the key when it is already zero (GCLOCK over hash order).
// New keys start at `init`. The table has a power-of-two bucket count at load ≤ 1, as the
// real one.
class HashClock : public Policy {
 public:
  HashClock(uint32_t universe, uint32_t cap, int max_count, int init)
      : next_(universe, kNone),
        ctr_(universe),
        in_(universe),
        cap_(cap),
        max_(uint8_t(max_count)),
        init_(uint8_t(init)) {
    uint32_t buckets = 4;
    while (buckets < cap) buckets *= 2;
    heads_.assign(buckets, kNone);
    mask_ = buckets - 1;
  }
  bool Access(uint32_t k) override {
    if (in_[k]) {
      if (ctr_[k] < max_) ++ctr_[k];
      return true;
    }
    while (size_ >= cap_) SweepBucket();
    uint32_t b = Bucket(k);
    next_[k] = heads_[b];
    heads_[b] = k;
    in_[k] = 1;
    ctr_[k] = init_;
    ++size_;
    return false;
  }

 private:
  uint32_t Bucket(uint32_t k) const { return uint32_t(SplitMix(k)) & mask_; }
  void SweepBucket() {
    uint32_t* link = &heads_[hand_];
    while (*link != kNone) {
      uint32_t k = *link;
      if (ctr_[k] > 0) {
        --ctr_[k];
        link = &next_[k];
      } else {
        *link = next_[k];
        in_[k] = 0;
        --size_;
      }
    }
    hand_ = (hand_ + 1) & mask_;
  }
  std::vector<uint32_t> heads_, next_;
  std::vector<uint8_t> ctr_, in_;
  uint32_t cap_, mask_, hand_ = 0, size_ = 0;
  uint8_t max_, init_;
};

// Keys recently evicted from probation (S3-FIFO's ghost queue). kExact remembers the last
// `capacity` of them (a FIFO of keys: a reference, too big to build). kDirect is what
// ringcache builds: a direct-mapped array of 8-bit fingerprints, `slots` of them; a new
// ghost overwrites whatever shared its slot, so a ghost is forgotten after about `slots`
// later ones, and 1 lookup in 256 of an occupied slot is a false positive.
class Ghost {
 public:
  enum Kind { kNoGhost, kExact, kDirect };
  Ghost(uint32_t universe, Kind kind, uint32_t capacity) : kind_(kind) {
    capacity = std::max<uint32_t>(1, capacity);
    if (kind_ == kExact) {
      count_.assign(universe, 0);
      fifo_.assign(capacity, kNone);
    } else if (kind_ == kDirect) {
      slots_.assign(capacity, 0);
    }
  }
  void Add(uint32_t k) {
    if (kind_ == kExact) {
      uint32_t& slot = fifo_[head_];
      if (slot != kNone) --count_[slot];
      slot = k;
      ++count_[k];
      head_ = (head_ + 1) % uint32_t(fifo_.size());
    } else if (kind_ == kDirect) {
      uint64_t h = SplitMix(uint64_t(k) ^ 0xabcdef);
      slots_[(h >> 8) % slots_.size()] = uint8_t(h | 1);
    }
  }
  bool Has(uint32_t k) const {
    if (kind_ == kExact) return count_[k] > 0;
    if (kind_ == kNoGhost) return false;
    uint64_t h = SplitMix(uint64_t(k) ^ 0xabcdef);
    return slots_[(h >> 8) % slots_.size()] == uint8_t(h | 1);
  }

 private:
  Kind kind_;
  std::vector<uint8_t> count_, slots_;
  std::vector<uint32_t> fifo_;
  uint32_t head_ = 0;
};

// S3-FIFO's structure without per-key links (ringcache's policy): new keys carry a
// probation bit and enter a FIFO ring of 32-bit key hashes. While probation keys hold
// `small_pct`% of the cache, eviction pops the ring: a key hit meanwhile leaves probation
// for the main set (counter reset), one never hit is evicted and remembered by the ghost;
// a missed key the ghost remembers skips probation. Main keys are swept by the
// hash-order GCLOCK hand above, which passes over probation keys. The real table finds
// a ring slot's entry by its hash; a key deleted meanwhile leaves a stale slot, skipped.
// Memory beyond the 3 meta bits: ring 4 bytes × 2 × small_pct% of the keys, ghost one
// byte per slot.
class HashS3 : public Policy {
 public:
  // The ghost remembers `ghost_pct`% of the capacity's worth of keys.
  // The ring has `ring_permille`‰ of the capacity's slots (0: twice the probation share).
  HashS3(uint32_t universe, uint32_t cap, int small_pct, Ghost::Kind ghost, int ghost_pct,
         int ring_permille = 0)
      : next_(universe, kNone),
        ctr_(universe),
        state_(universe),
        cap_(cap),
        small_cap_(std::max<uint32_t>(1, uint32_t(uint64_t(cap) * small_pct / 100))),
        ghost_(universe, ghost, uint32_t(uint64_t(cap) * ghost_pct / 100)) {
    uint32_t buckets = 4;
    while (buckets < cap) buckets *= 2;
    heads_.assign(buckets, kNone);
    mask_ = buckets - 1;
    ring_.assign(
        ring_permille > 0
            ? std::max<uint32_t>(small_cap_ + 1, uint32_t(uint64_t(cap) * ring_permille / 1000))
            : small_cap_ * 2,
        kNone);
  }
  bool Access(uint32_t k) override {
    if (state_[k]) {
      if (ctr_[k] < kMax) ++ctr_[k];
      return true;
    }
    while (size_ >= cap_) EvictOne();
    uint32_t b = Bucket(k);
    next_[k] = heads_[b];
    heads_[b] = k;
    ctr_[k] = 0;
    ++size_;
    if (ghost_.Has(k)) {
      state_[k] = kMain;
      ++main_n_;
    } else {
      state_[k] = kProbation;
      PushRing(k);
    }
    return false;
  }

 private:
  enum : uint8_t { kAbsent = 0, kMain = 1, kProbation = 2 };
  uint32_t Bucket(uint32_t k) const { return uint32_t(SplitMix(k)) & mask_; }
  void PushRing(uint32_t k) {
    // A full ring (a cache not yet full, or stale slots of keys deleted while on
    // probation) lets its oldest key into main: without memory pressure there is no
    // reason to evict it.
    if (ring_n_ == ring_.size()) PopRing(/*may_evict=*/false);
    ring_[(ring_head_ + ring_n_) % ring_.size()] = k;
    ++ring_n_;
    ++probation_n_;
  }
  // Returns whether it evicted.
  bool PopRing(bool may_evict = true) {
    uint32_t k = ring_[ring_head_];
    ring_head_ = (ring_head_ + 1) % ring_.size();
    --ring_n_;
    if (k == kNone || state_[k] != kProbation) return false;
    --probation_n_;
    if (ctr_[k] > 0 || !may_evict) {
      state_[k] = kMain;
      ctr_[k] = 0;
      ++main_n_;
      return false;
    }
    Remove(k);
    ghost_.Add(k);
    return true;
  }
  void Remove(uint32_t k) {
    uint32_t* link = &heads_[Bucket(k)];
    while (*link != k) link = &next_[*link];
    *link = next_[k];
    if (state_[k] == kMain) --main_n_;
    state_[k] = kAbsent;
    --size_;
  }
  void EvictOne() {
    // Probation keys leave (promoted or evicted) while they hold their whole share, as
    // S3-FIFO's small queue.
    if (probation_n_ >= small_cap_ || main_n_ == 0) {
      while (ring_n_ > 0) {
        if (PopRing()) return;
      }
    }
    for (;;) {
      uint32_t* link = &heads_[hand_];
      bool evicted = false;
      while (*link != kNone) {
        uint32_t k = *link;
        if (state_[k] == kProbation) {
          link = &next_[k];
        } else if (ctr_[k] > 0) {
          --ctr_[k];
          link = &next_[k];
        } else {
          *link = next_[k];
          state_[k] = kAbsent;
          --main_n_;
          --size_;
          evicted = true;
        }
      }
      hand_ = (hand_ + 1) & mask_;
      if (evicted) return;
    }
  }
  std::vector<uint32_t> heads_, next_, ring_;
  std::vector<uint8_t> ctr_, state_;
  uint32_t cap_, small_cap_, mask_, hand_ = 0, size_ = 0, main_n_ = 0;
  uint32_t ring_head_ = 0, ring_n_ = 0, probation_n_ = 0;
  static constexpr uint8_t kMax = 3;  // a 2-bit counter
  Ghost ghost_;
};

// ---- Driver ----------------------------------------------------------------------------

struct PolicyKind {
  std::string name;
  std::function<std::unique_ptr<Policy>(uint32_t universe, uint32_t cap)> make;
};

std::vector<PolicyKind> AllPolicies() {
  std::vector<PolicyKind> p;
  p.push_back({"lru", [](uint32_t u, uint32_t c) { return std::make_unique<Lru>(u, c); }});
  p.push_back({"redis-lru", [](uint32_t u, uint32_t c) {
                 return std::make_unique<RedisSampled>(u, c, false, 5);
               }});
  p.push_back({"redis-lfu", [](uint32_t u, uint32_t c) {
                 return std::make_unique<RedisSampled>(u, c, true, 5);
               }});
  p.push_back(
      {"random", [](uint32_t u, uint32_t c) { return std::make_unique<RandomEvict>(u, c); }});
  p.push_back({"sieve", [](uint32_t u, uint32_t c) { return std::make_unique<Sieve>(u, c); }});
  p.push_back({"s3fifo", [](uint32_t u, uint32_t c) { return std::make_unique<S3Fifo>(u, c); }});
  // Implementable without per-key links: GCLOCK over the hash table's own order.
  for (int bits = 1; bits <= 3; ++bits) {
    p.push_back({"gclock" + std::to_string(bits), [bits](uint32_t u, uint32_t c) {
                   return std::make_unique<HashClock>(u, c, (1 << bits) - 1, 0);
                 }});
  }
  p.push_back({"gclock2-init1",
               [](uint32_t u, uint32_t c) { return std::make_unique<HashClock>(u, c, 3, 1); }});
  // S3-FIFO over the hash table: probation ring, with and without a ghost.
  p.push_back({"hs3-noghost", [](uint32_t u, uint32_t c) {
                 return std::make_unique<HashS3>(u, c, 10, Ghost::kNoGhost, 0);
               }});
  p.push_back({"hs3-exactghost", [](uint32_t u, uint32_t c) {
                 return std::make_unique<HashS3>(u, c, 10, Ghost::kExact, 90);
               }});
  for (int pct : {25, 50, 100}) {
    p.push_back({"hs3-ghost" + std::to_string(pct), [pct](uint32_t u, uint32_t c) {
                   return std::make_unique<HashS3>(u, c, 10, Ghost::kDirect, pct);
                 }});
  }
  // What the server builds: ring of 1/8 of the keys, ghost of 1/4 (under 1 byte a key).
  p.push_back({"hs3-ring125-ghost25", [](uint32_t u, uint32_t c) {
                 return std::make_unique<HashS3>(u, c, 10, Ghost::kDirect, 25, 125);
               }});
  p.push_back({"hs3-20-ghost50", [](uint32_t u, uint32_t c) {
                 return std::make_unique<HashS3>(u, c, 20, Ghost::kDirect, 50);
               }});
  return p;
}

std::vector<std::string> Split(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    size_t c = s.find(',');
    out.emplace_back(s.substr(0, c));
    if (c == std::string_view::npos) break;
    s.remove_prefix(c + 1);
  }
  return out;
}

bool Wanted(const std::vector<std::string>& list, const std::string& name) {
  return list.empty() || std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t keys = 10'000'000;
  uint64_t requests = 20'000'000, warmup = 5'000'000;
  std::vector<std::string> traces, policies;
  std::vector<double> sizes = {0.001, 0.01, 0.1};
  int jobs = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string_view a = argv[i], v = argv[i + 1];
    if (a == "--keys")
      keys = uint32_t(std::atoll(v.data()));
    else if (a == "--requests")
      requests = uint64_t(std::atoll(v.data()));
    else if (a == "--warmup")
      warmup = uint64_t(std::atoll(v.data()));
    else if (a == "--traces")
      traces = Split(v);
    else if (a == "--policies")
      policies = Split(v);
    else if (a == "--jobs")
      jobs = std::atoi(v.data());
    else if (a == "--sizes") {
      sizes.clear();
      for (const auto& s : Split(v)) sizes.push_back(std::atof(s.c_str()));
    } else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  std::vector<PolicyKind> kinds;
  for (auto& k : AllPolicies()) {
    if (Wanted(policies, k.name)) kinds.push_back(std::move(k));
  }
  std::vector<std::function<Trace()>> makers = {
      [&] { return ZipfTrace(0.8, keys, requests); },
      [&] { return ZipfTrace(0.99, keys, requests); },
      [&] { return ZipfTrace(1.2, keys, requests); },
      [&] { return ScanTrace(keys, requests); },
      [&] { return ShiftTrace(keys, requests); },
  };
  const char* trace_names[] = {"zipf-0.80", "zipf-0.99", "zipf-1.20", "scan", "shift"};
  std::printf("trace\tcache%%\tpolicy\tmiss_ratio\tvs_lru\tvs_redis_lru\n");
  for (size_t t = 0; t < makers.size(); ++t) {
    if (!Wanted(traces, trace_names[t])) continue;
    Trace trace = makers[t]();
    trace.name = trace_names[t];
    for (double size : sizes) {
      uint32_t cap = std::max<uint32_t>(1, uint32_t(double(keys) * size));
      std::vector<double> miss(kinds.size());
      std::atomic<size_t> next{0};
      auto worker = [&] {
        for (size_t i; (i = next.fetch_add(1)) < kinds.size();) {
          std::unique_ptr<Policy> p = kinds[i].make(trace.universe, cap);
          uint64_t misses = 0;
          for (uint64_t r = 0; r < trace.keys.size(); ++r) {
            bool hit = p->Access(trace.keys[r]);
            if (r >= warmup && !hit) ++misses;
          }
          miss[i] = double(misses) / double(trace.keys.size() - warmup);
        }
      };
      std::vector<std::thread> pool;
      for (int j = 0; j < jobs; ++j) pool.emplace_back(worker);
      for (auto& th : pool) th.join();
      auto miss_of = [&](std::string_view name) {
        for (size_t i = 0; i < kinds.size(); ++i) {
          if (kinds[i].name == name) return miss[i];
        }
        return 0.0;
      };
      const double lru = miss_of("lru"), redis = miss_of("redis-lru");
      for (size_t i = 0; i < kinds.size(); ++i) {
        std::printf("%s\t%g\t%s\t%.4f\t%.3f\t%.3f\n", trace.name.c_str(), size * 100,
                    kinds[i].name.c_str(), miss[i], lru > 0 ? miss[i] / lru : 0.0,
                    redis > 0 ? miss[i] / redis : 0.0);
      }
      std::fflush(stdout);
    }
  }
  return 0;
}
