// Evictor on a real Shard: each policy picks the keys it should, frees what it reports,
// and the probation bookkeeping survives every way a key comes and goes (a randomized
// mirror of SET, DEL, EXPIRE, RENAME, reads and evictions, checked with Verify()).

#include "shard/runtime/evictor.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/entry_table.h"
#include "core/zset.h"
#include "gtest/gtest.h"
#include "shard/runtime/shard.h"
#include "shard/runtime/stats.h"
#include "shard/state/server_state.h"
#include "threadpool/thread_pool.h"
#include "timers/clock.h"

namespace rc {
namespace {

constexpr int64_t kForever = INT64_MAX / 4;

class EvictorTest : public ::testing::Test {
 protected:
  EvictorTest() { state_.clock = &clock_; }

  std::string Key(int i) const { return "key:" + std::to_string(i); }
  void Fill(int n, std::string_view value = "0123456789abcdef0123456789abcdef") {
    for (int i = 0; i < n; ++i) shard_.SetString(Key(i), value);
  }
  size_t Evict(EvictionPolicy p, size_t bytes, int samples = 5) {
    return shard_.evictor().Evict(p, bytes, kForever, samples);
  }
  bool Has(std::string_view key) { return shard_.Find(key) != nullptr; }

  ManualClock clock_;
  ServerState state_;
  ThreadStats thread_stats_;
  Shard shard_{0, &thread_stats_, &state_};
};

TEST_F(EvictorTest, FreesWhatItReportsAndCountsEvictions) {
  Fill(1000);
  const size_t before = shard_.MemoryBytes();
  const size_t freed = Evict(EvictionPolicy::kAllKeysLru, 10000);
  EXPECT_GE(freed, 10000u);
  EXPECT_LT(shard_.size(), 1000u);
  EXPECT_EQ(shard_.stats().evicted_keys, 1000 - shard_.size());
  // The ring and ghost filter appeared with the first eviction: their bytes count too.
  EXPECT_EQ(shard_.MemoryBytes() + freed, before + shard_.evictor().MemoryBytes());
  shard_.evictor().Verify();
}

TEST_F(EvictorTest, NoEvictionEvictsNothing) {
  Fill(100);
  EXPECT_EQ(Evict(EvictionPolicy::kNoEviction, 1 << 20), 0u);
  EXPECT_EQ(shard_.size(), 100u);
  EXPECT_FALSE(shard_.evictor().HasCandidates(EvictionPolicy::kNoEviction));
}

TEST_F(EvictorTest, AllKeysLruKeepsKeysThatAreRead) {
  Fill(2000);
  // Keys 0..99 are read often; the rest never.
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 100; ++i) shard_.FindForRead(Key(i));
  }
  while (shard_.size() > 500) Evict(EvictionPolicy::kAllKeysLru, 1);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(Has(Key(i))) << i;
  shard_.evictor().Verify();
}

TEST_F(EvictorTest, NewKeysThatAreNeverReadGoFirst) {
  Fill(1000);
  Evict(EvictionPolicy::kAllKeysLru, 1);  // the ring is in use from here on
  const size_t resident = shard_.size();
  // A scan: 3000 new keys, each written once and never read, at a full cache.
  for (int i = 1000; i < 4000; ++i) {
    shard_.SetString(Key(i), "0123456789abcdef0123456789abcdef");
    while (shard_.size() > resident) Evict(EvictionPolicy::kAllKeysLru, 1);
  }
  EXPECT_GT(shard_.evictor().probation(), 0u);
  // The newcomers left through probation; the keys that were there before stay.
  int old_keys = 0;
  for (int i = 0; i < 1000; ++i) old_keys += Has(Key(i)) ? 1 : 0;
  EXPECT_GE(old_keys, 850);
  shard_.evictor().Verify();
}

TEST_F(EvictorTest, VolatilePoliciesNeverTouchPersistentKeys) {
  for (EvictionPolicy p : {EvictionPolicy::kVolatileLru, EvictionPolicy::kVolatileLfu,
                           EvictionPolicy::kVolatileRandom, EvictionPolicy::kVolatileTtl}) {
    shard_.Flush();
    Fill(200);
    const int64_t now = clock_.NowUnixMillis();
    for (int i = 200; i < 300; ++i) {
      shard_.SetString(Key(i), "v", TtlMode::kSet, now + 100000 + i);
    }
    EXPECT_TRUE(shard_.evictor().HasCandidates(p));
    while (Evict(p, 1 << 20) > 0) {
    }
    EXPECT_EQ(shard_.size(), 200u) << PolicyName(p);
    EXPECT_EQ(shard_.keys_with_ttl(), 0u);
    EXPECT_FALSE(shard_.evictor().HasCandidates(p));
    for (int i = 0; i < 200; ++i) EXPECT_TRUE(Has(Key(i)));
  }
}

TEST_F(EvictorTest, VolatileTtlEvictsTheNearestDeadlineFirst) {
  const int64_t now = clock_.NowUnixMillis();
  // Deadlines in an order unlike the keys'.
  for (int i = 0; i < 100; ++i) {
    shard_.SetString(Key(i), "v", TtlMode::kSet, now + 1000 + (i * 37) % 100);
  }
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) order.push_back(i);
  std::sort(order.begin(), order.end(),
            [](int a, int b) { return (a * 37) % 100 < (b * 37) % 100; });
  for (int k = 0; k < 50; ++k) {
    Evict(EvictionPolicy::kVolatileTtl, 1);
    EXPECT_FALSE(Has(Key(order[size_t(k)])));
    EXPECT_TRUE(Has(Key(order[size_t(k) + 1])));
  }
}

TEST_F(EvictorTest, RandomPoliciesEmptyTheShard) {
  Fill(300);
  while (Evict(EvictionPolicy::kAllKeysRandom, 1 << 20) > 0) {
  }
  EXPECT_EQ(shard_.size(), 0u);
  EXPECT_EQ(shard_.stats().evicted_keys, 300u);
}

TEST_F(EvictorTest, LruEmptiesTheShardWhenAsked) {
  Fill(3000);
  for (int i = 0; i < 3000; i += 3) shard_.FindForRead(Key(i));
  EXPECT_GT(Evict(EvictionPolicy::kAllKeysLru, SIZE_MAX), 0u);
  EXPECT_EQ(shard_.size(), 0u);
  shard_.evictor().Verify();
}

TEST_F(EvictorTest, LockedKeysStay) {
  Fill(50);
  const std::vector<uint64_t> held = {HashKey(Key(7)), HashKey(Key(8))};
  KeyLocks::Keys keys(held);
  shard_.locks().Lock(keys, false);
  for (EvictionPolicy p : {EvictionPolicy::kAllKeysLru, EvictionPolicy::kAllKeysRandom}) {
    for (int i = 0; i < 200; ++i) Evict(p, 1 << 20);
  }
  EXPECT_EQ(shard_.size(), 2u);
  EXPECT_TRUE(Has(Key(7)));
  EXPECT_TRUE(Has(Key(8)));
  shard_.locks().Unlock(keys, false);
  // A whole-shard lock (KEYS, FLUSHALL) stops eviction altogether.
  shard_.locks().Lock({}, true);
  EXPECT_EQ(Evict(EvictionPolicy::kAllKeysLru, 1 << 20), 0u);
  shard_.locks().Unlock({}, true);
}

TEST_F(EvictorTest, BigValuesLeaveThroughTheLazyfreePool) {
  ThreadPool pool(1);
  state_.lazyfree = &pool;
  state_.config.lazyfree_threshold = 64;
  Entry* e = shard_.Add("big", Value::Make<ZSet>());
  {
    ValueUpdate update(shard_, e);
    for (int i = 0; i < 500; ++i) update.get<ZSet>().Add("m" + std::to_string(i), i);
  }
  EXPECT_GT(Evict(EvictionPolicy::kAllKeysRandom, 1), 500u * 16);
  EXPECT_EQ(shard_.size(), 0u);
  EXPECT_EQ(shard_.stats().lazyfree_submitted, 1u);
  for (int i = 0; i < 5000 && pool.Completed() < 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(pool.Completed(), 1u);
  state_.lazyfree = nullptr;
}

// Every way a key comes and goes, mirrored against a std::map, with evictions between:
// the probation count and ring stay consistent and no evicted key lingers.
TEST_F(EvictorTest, RandomizedBookkeeping) {
  std::mt19937 rng(12345);
  std::set<std::string> keys;
  Fill(0);
  const int64_t now = clock_.NowUnixMillis();
  for (int step = 0; step < 60000; ++step) {
    const std::string k = Key(int(rng() % 3000));
    switch (rng() % 10) {
      case 0:
      case 1:
      case 2:
        shard_.SetString(k, std::string(rng() % 40, 'x'));
        keys.insert(k);
        break;
      case 3:
        shard_.FindForRead(k);
        break;
      case 4:
        if (shard_.Delete(k) != (keys.erase(k) > 0)) FAIL() << "delete " << k;
        break;
      case 5:
        if (Entry* e = shard_.Find(k)) shard_.SetDeadline(e, now + 1000000);
        break;
      case 6:
        if (Entry* e = shard_.Find(k)) shard_.Persist(e);
        break;
      case 7: {
        const std::string to = Key(int(rng() % 3000));
        if (EntryPtr moved = shard_.Take(k)) {
          shard_.Put(to, std::move(moved));
          keys.erase(k);
          keys.insert(to);
        }
        break;
      }
      case 8: {
        const EvictionPolicy p =
            rng() % 4 == 0 ? EvictionPolicy::kVolatileLru : EvictionPolicy::kAllKeysLru;
        Evict(p, rng() % 2000);
        std::set<std::string> left;
        for (const std::string& key : keys) {
          if (shard_.Find(key) != nullptr) left.insert(key);
        }
        keys.swap(left);
        break;
      }
      case 9:
        if (step % 20000 == 9) {
          shard_.Flush();
          keys.clear();
        }
        break;
    }
    if (step % 1000 == 0) {
      shard_.evictor().Verify();
      shard_.VerifyTtl();
      ASSERT_EQ(shard_.size(), keys.size());
    }
  }
  shard_.evictor().Verify();
}

TEST_F(EvictorTest, IdleTimeFollowsTheHand) {
  Fill(4000);
  EXPECT_EQ(shard_.evictor().IdleMillis(*shard_.Find(Key(1)), clock_.NowUnixMillis()), 0);
  // Every key read thrice: the hand turns three times (lowering every counter to 0)
  // before its first eviction, so each key was last passed then.
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 4000; ++i) shard_.FindForRead(Key(i));
  }
  Evict(EvictionPolicy::kAllKeysLru, 1);
  clock_.AdvanceMillis(5000);
  int checked = 0;
  for (int i = 0; i < 4000; ++i) {
    const Entry* e = shard_.Find(Key(i));
    if (e == nullptr) continue;
    EXPECT_GE(shard_.evictor().IdleMillis(*e, clock_.NowUnixMillis()), 4000) << i;
    ++checked;
  }
  EXPECT_GT(checked, 3900);
  shard_.FindForRead(Key(2));
  if (const Entry* read = shard_.Find(Key(2))) {
    EXPECT_EQ(shard_.evictor().IdleMillis(*read, clock_.NowUnixMillis()), 0);
  }
}

}  // namespace
}  // namespace rc
