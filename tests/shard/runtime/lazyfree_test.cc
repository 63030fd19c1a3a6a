// Large values leave their shard through the lazyfree pool, whichever way they go (DEL,
// overwrite, expiry, FLUSH), small ones inline; memory accounting follows them through
// ValueUpdate; RENAME's Take/Put moves a value with its TTL without copying or freeing it.

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "core/zset.h"
#include "gtest/gtest.h"
#include "shard/runtime/shard.h"
#include "shard/runtime/stats.h"
#include "shard/state/server_state.h"
#include "threadpool/thread_pool.h"
#include "timers/clock.h"

namespace rc {
namespace {

class LazyfreeTest : public ::testing::Test {
 protected:
  LazyfreeTest() {
    state_.clock = &clock_;
    state_.lazyfree = &pool_;
    state_.config.lazyfree_threshold = 64;
  }

  Entry* MakeZSet(std::string_view key, int members) {
    Entry* e = shard_.Add(key, Value::Make<ZSet>());
    ValueUpdate update(shard_, e);
    for (int i = 0; i < members; ++i) update.get<ZSet>().Add("m" + std::to_string(i), i);
    EXPECT_TRUE(update.Finish());
    return e;
  }
  // The pool's frees are asynchronous: wait until it has run `n` tasks.
  bool PoolCompletes(uint64_t n) {
    for (int i = 0; i < 5000 && pool_.Completed() < n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return pool_.Completed() == n && pool_.Pending() == 0;
  }

  ManualClock clock_;
  ThreadPool pool_{1};
  ServerState state_;
  ThreadStats thread_stats_;
  Shard shard_{0, &thread_stats_, &state_};
};

// The table's buckets and the TTL heap's first page stay once allocated: a key with a TTL
// allocates both before a test takes its baseline.
TEST_F(LazyfreeTest, LargeSetsGoToThePoolSmallOnesInline) {
  shard_.SetString("warm", "v", TtlMode::kSet, clock_.NowUnixMillis() + 100000);
  const size_t empty = shard_.MemoryBytes();
  MakeZSet("big", 1000);
  MakeZSet("small", 10);
  EXPECT_GT(shard_.MemoryBytes(), empty + 1000 * 16);
  EXPECT_TRUE(shard_.Delete("small"));
  EXPECT_EQ(shard_.stats().lazyfree_submitted, 0u);
  EXPECT_TRUE(shard_.Delete("big"));
  EXPECT_EQ(shard_.stats().lazyfree_submitted, 1u);
  EXPECT_EQ(shard_.Find("big"), nullptr);
  EXPECT_EQ(shard_.MemoryBytes(), empty);
  EXPECT_TRUE(PoolCompletes(1));
}

// A compact set above the threshold is one block: freed inline, as Redis frees a listpack.
TEST_F(LazyfreeTest, CompactSetsAreFreedInline) {
  MakeZSet("compact", 100);
  ASSERT_TRUE(shard_.Find("compact")->object<ZSet>()->compact());
  EXPECT_TRUE(shard_.Delete("compact"));
  EXPECT_EQ(shard_.stats().lazyfree_submitted, 0u);
  MakeZSet("big", 129);
  ASSERT_FALSE(shard_.Find("big")->object<ZSet>()->compact());
  EXPECT_TRUE(shard_.Delete("big"));
  EXPECT_EQ(shard_.stats().lazyfree_submitted, 1u);
  EXPECT_TRUE(PoolCompletes(1));
}

TEST_F(LazyfreeTest, OverwriteExpiryAndFlushAlsoUseThePool) {
  MakeZSet("a", 500);
  shard_.SetString("a", "now a string");  // SET over a zset
  EXPECT_EQ(shard_.stats().lazyfree_submitted, 1u);
  EXPECT_EQ(shard_.Find("a")->type(), ValueType::kString);

  Entry* b = MakeZSet("b", 500);
  shard_.SetDeadline(b, clock_.NowUnixMillis() + 10);
  clock_.AdvanceMillis(20);
  EXPECT_EQ(shard_.ExpireDue(clock_.NowUnixMillis(), 100), 1u);
  EXPECT_EQ(shard_.stats().lazyfree_submitted, 2u);

  MakeZSet("c", 500);
  MakeZSet("d", 5);
  shard_.Flush(/*async=*/false);
  EXPECT_EQ(shard_.stats().lazyfree_submitted, 3u);  // c; d inline
  EXPECT_EQ(shard_.size(), 0u);

  MakeZSet("e", 5);
  shard_.SetString("f", "v");
  shard_.Flush(/*async=*/true);  // the whole table, one task
  EXPECT_EQ(shard_.stats().lazyfree_submitted, 4u);
  EXPECT_EQ(shard_.size(), 0u);
  EXPECT_EQ(shard_.Find("f"), nullptr);
  shard_.SetString("f", "again");  // the table is usable after handing its keys away
  EXPECT_EQ(shard_.Find("f")->str(), "again");
  EXPECT_TRUE(PoolCompletes(4));
}

// Each lazyfree-lazy-* setting turned off frees its removals inline; UNLINK's cause is
// always lazy.
TEST_F(LazyfreeTest, EachCauseFollowsItsSetting) {
  Config& c = state_.config;
  c.lazyfree_lazy_user_del = false;
  c.lazyfree_lazy_server_del = false;
  c.lazyfree_lazy_expire = false;
  MakeZSet("del", 500);
  EXPECT_TRUE(shard_.Delete("del", Shard::FreeCause::kUserDel));
  MakeZSet("over", 500);
  shard_.SetString("over", "a string now");
  Entry* gone = MakeZSet("ttl", 500);
  shard_.SetDeadline(gone, clock_.NowUnixMillis() + 10);
  clock_.AdvanceMillis(20);
  EXPECT_EQ(shard_.ExpireDue(clock_.NowUnixMillis(), 100), 1u);
  EXPECT_EQ(shard_.stats().lazyfree_submitted, 0u);
  MakeZSet("unlink", 500);
  EXPECT_TRUE(shard_.Delete("unlink", Shard::FreeCause::kUnlink));
  EXPECT_EQ(shard_.stats().lazyfree_submitted, 1u);
  c.lazyfree_lazy_user_del = true;
  MakeZSet("del", 500);
  EXPECT_TRUE(shard_.Delete("del", Shard::FreeCause::kUserDel));
  EXPECT_EQ(shard_.stats().lazyfree_submitted, 2u);
  EXPECT_TRUE(PoolCompletes(2));
}

TEST_F(LazyfreeTest, EmptiedSetDisappears) {
  shard_.SetString("warm", "v", TtlMode::kSet, clock_.NowUnixMillis() + 100000);
  const size_t empty = shard_.MemoryBytes();
  Entry* e = MakeZSet("z", 2);
  {
    ValueUpdate update(shard_, e);
    update.get<ZSet>().Remove("m0");
    EXPECT_TRUE(update.Finish());
  }
  EXPECT_EQ(shard_.MemoryBytes(), empty + e->AllocatedBytes() + ValueBytes(*e));
  {
    ValueUpdate update(shard_, e);
    update.get<ZSet>().Remove("m1");
  }  // ends at scope exit
  EXPECT_EQ(shard_.Find("z"), nullptr);
  EXPECT_EQ(shard_.size(), 1u);
  EXPECT_EQ(shard_.MemoryBytes(), empty);
}

// A flush, SYNC or ASYNC, takes every value's bytes off the count, and only those: the
// count returns to the empty table's exactly.
TEST_F(LazyfreeTest, FlushLeavesNoValueBytes) {
  const size_t empty = shard_.MemoryBytes();
  MakeZSet("big", 500);
  MakeZSet("small", 5);
  shard_.SetString("s", "v");
  shard_.Flush(/*async=*/false);
  EXPECT_EQ(shard_.MemoryBytes(), empty);
  MakeZSet("again", 500);
  shard_.Flush(/*async=*/true);
  EXPECT_EQ(shard_.MemoryBytes(), empty);
  EXPECT_TRUE(PoolCompletes(2));
}

TEST_F(LazyfreeTest, TakeAndPutMoveTheSetWithItsTtl) {
  shard_.SetString("warm", "v", TtlMode::kSet, clock_.NowUnixMillis() + 100000);
  const size_t empty = shard_.MemoryBytes();
  Entry* e = MakeZSet("src", 300);
  const ZSet* set = e->object<ZSet>();
  const int64_t deadline = clock_.NowUnixMillis() + 5000;
  shard_.SetDeadline(e, deadline);
  shard_.SetString("dst", "old");
  const size_t with_set = shard_.MemoryBytes();

  EntryPtr moved = shard_.Take("src");
  ASSERT_NE(moved, nullptr);
  EXPECT_EQ(shard_.Find("src"), nullptr);
  shard_.Put("dst", std::move(moved));
  Entry* d = shard_.Find("dst");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->type(), ValueType::kZSet);
  EXPECT_EQ(d->object<ZSet>(), set);  // moved, not copied
  EXPECT_EQ(d->object<ZSet>()->size(), 300u);
  ASSERT_TRUE(d->has_ttl());
  EXPECT_EQ(d->deadline(), deadline);
  EXPECT_EQ(shard_.keys_with_ttl(), 2u);
  EXPECT_EQ(shard_.stats().lazyfree_submitted, 0u);
  EXPECT_LT(shard_.MemoryBytes(), with_set);  // "old" is gone, the set is still counted
  shard_.VerifyTtl();
  EXPECT_TRUE(shard_.Delete("dst"));
  EXPECT_EQ(shard_.MemoryBytes(), empty);
}

TEST_F(LazyfreeTest, StoreReplacesAnyValueAndEmptyDeletes) {
  shard_.SetString("k", "v");
  auto z = std::make_unique<ZSet>();
  z->Add("a", 1);
  shard_.Store("k", Value(std::move(z)));
  ASSERT_EQ(shard_.Find("k")->type(), ValueType::kZSet);
  EXPECT_EQ(shard_.Find("k")->object<ZSet>()->size(), 1u);
  shard_.Store("k", Value::Make<ZSet>());
  EXPECT_EQ(shard_.Find("k"), nullptr);
}

}  // namespace
}  // namespace rc
