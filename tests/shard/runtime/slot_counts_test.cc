// A cluster-mode Shard's keys per slot stay exact through every way a key comes and goes
// (set, overwrite, add and store of objects, a collection emptied, delete, take and put
// for RENAME, lazy and active expiry, an expired key kept during a pause, eviction,
// FLUSH sync and async), checked against the table with Verify() and by slot; outside
// cluster mode the shard keeps no counts.

#include <chrono>
#include <string>
#include <thread>

#include "core/key_slot.h"
#include "core/zset.h"
#include "gtest/gtest.h"
#include "shard/runtime/shard.h"
#include "shard/runtime/stats.h"
#include "shard/state/server_state.h"
#include "threadpool/thread_pool.h"
#include "timers/clock.h"

namespace rc {
namespace {

constexpr int64_t kNoDeadline = INT64_MAX / 4;

// cluster-enabled is read when the shard is built, so it is set before.
struct ClusterServer {
  ClusterServer(ManualClock* clock, ThreadPool* pool) {
    state.clock = clock;
    state.lazyfree = pool;
    state.config.lazyfree_threshold = 64;
    state.config.cluster_enabled = true;
  }
  ServerState state;
};

class SlotCountsShardTest : public ::testing::Test {
 protected:
  uint32_t InSlot(std::string_view key) { return shard_.KeysInSlot(KeySlot(key)); }
  void MakeZSet(std::string_view key, int members) {
    Entry* e = shard_.Add(key, Value::Make<ZSet>());
    ValueUpdate update(shard_, e);
    for (int i = 0; i < members; ++i) update.get<ZSet>().Add("m" + std::to_string(i), i);
  }
  int64_t Now() { return clock_.NowUnixMillis(); }

  ManualClock clock_;
  ThreadPool pool_{1};
  ClusterServer server_{&clock_, &pool_};
  ThreadStats thread_stats_;
  Shard shard_{0, &thread_stats_, &server_.state};
};

TEST_F(SlotCountsShardTest, WritesAndDeletes) {
  for (int i = 0; i < 10; ++i) shard_.SetString("{a}" + std::to_string(i), "v");
  EXPECT_EQ(InSlot("{a}"), 10u);
  shard_.SetString("{a}0", std::string(500, 'x'));  // a new allocation, same key
  shard_.GrowString(shard_.Find("{a}1"), 4096);
  shard_.Persist(shard_.SetDeadline(shard_.Find("{a}2"), Now() + 100000));
  EXPECT_EQ(InSlot("{a}"), 10u);
  EXPECT_TRUE(shard_.Delete("{a}3"));
  EXPECT_FALSE(shard_.Delete("{a}3"));
  EXPECT_EQ(InSlot("{a}"), 9u);

  MakeZSet("{a}z", 3);
  shard_.Store("{a}z", Value::Make<ZSet>());  // an empty value deletes
  MakeZSet("{a}z", 2);
  EXPECT_EQ(InSlot("{a}"), 10u);
  {
    ValueUpdate update(shard_, shard_.Find("{a}z"));
    update.get<ZSet>().Remove("m0");
    update.get<ZSet>().Remove("m1");
    EXPECT_FALSE(update.Finish());  // ZPOP of the last member: the key goes
  }
  EXPECT_EQ(InSlot("{a}"), 9u);
  shard_.table().Verify();
}

TEST_F(SlotCountsShardTest, RenameMovesTheCountBetweenSlots) {
  shard_.SetString("{from}k", "v", TtlMode::kSet, Now() + 100000);
  shard_.SetString("{to}k", "old");
  shard_.Put("{to}k", shard_.Take("{from}k"));  // RENAME over an existing key
  EXPECT_EQ(InSlot("{from}"), 0u);
  EXPECT_EQ(InSlot("{to}"), 1u);
  shard_.Put("{to}k2", shard_.Take("{to}k"));
  EXPECT_EQ(InSlot("{to}"), 1u);
  shard_.table().Verify();
}

TEST_F(SlotCountsShardTest, ExpiryLazyActiveAndPaused) {
  for (int i = 0; i < 6; ++i) {
    shard_.SetString("{e}" + std::to_string(i), "v", TtlMode::kSet, Now() + 10);
  }
  clock_.AdvanceMillis(10);
  // Past their deadline but not reclaimed: still counted, as Redis does.
  EXPECT_EQ(InSlot("{e}"), 6u);
  EXPECT_EQ(shard_.Find("{e}0"), nullptr);  // lazy
  EXPECT_EQ(InSlot("{e}"), 5u);
  // During CLIENT PAUSE a lookup leaves an expired key where it is.
  server_.state.introspect.pause.Pause(Now() + 1000, ClientPause::kWrite);
  EXPECT_EQ(shard_.Find("{e}1"), nullptr);
  EXPECT_EQ(shard_.ExpireDue(Now(), 100), 0u);
  EXPECT_EQ(InSlot("{e}"), 5u);
  shard_.SetString("{e}1", "again");  // reclaims the expired key first
  EXPECT_EQ(InSlot("{e}"), 5u);
  server_.state.introspect.pause.Unpause();
  EXPECT_EQ(shard_.ExpireDue(Now(), 100), 4u);  // active
  EXPECT_EQ(InSlot("{e}"), 1u);
  shard_.table().Verify();
}

TEST_F(SlotCountsShardTest, Eviction) {
  for (int i = 0; i < 200; ++i) shard_.SetString("{v}" + std::to_string(i), std::string(64, 'x'));
  const size_t freed =
      shard_.evictor().Evict(EvictionPolicy::kAllKeysRandom, 50 * 100, kNoDeadline, 5);
  EXPECT_GT(freed, 0u);
  EXPECT_EQ(InSlot("{v}"), shard_.size());
  EXPECT_LT(shard_.size(), 200u);
  shard_.table().Verify();
}

TEST_F(SlotCountsShardTest, FlushSyncAndAsync) {
  for (int i = 0; i < 100; ++i) shard_.SetString("{f}" + std::to_string(i), "v");
  MakeZSet("{f}big", 1000);  // freed on the pool in either flush
  shard_.Flush(false);
  EXPECT_EQ(InSlot("{f}"), 0u);
  for (int i = 0; i < 100; ++i) shard_.SetString("{f}" + std::to_string(i), "v");
  shard_.Flush(true);
  EXPECT_EQ(InSlot("{f}"), 0u);
  shard_.SetString("{f}after", "v");
  EXPECT_EQ(InSlot("{f}"), 1u);
  shard_.table().Verify();
  for (int i = 0; i < 5000 && pool_.Pending() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST(SlotCountsOff, NoCountsOutsideClusterMode) {
  ManualClock clock;
  ServerState state;
  state.clock = &clock;
  ThreadStats stats;
  Shard shard(0, &stats, &state);
  shard.SetString("k", "v");
  EXPECT_EQ(shard.table().slot_counts(), nullptr);
}

}  // namespace
}  // namespace rc
