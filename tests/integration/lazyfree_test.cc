// Large sorted sets leave through the lazyfree pool, seen from a client: INFO's
// lazyfree_pending_objects / lazyfreed_objects count them for DEL, UNLINK, overwrite and
// FLUSHALL ASYNC, the key is gone at once, small sets do not use the pool, and the
// threshold is CONFIG SET-able.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"
#include "tests/integration/polling.h"

namespace rc::it {
namespace {

class LazyfreeTest : public RingcacheTest {
 protected:
  // One ZADD of `members` members into `key`.
  void MakeSet(const std::string& key, int members) {
    Args cmd = {"ZADD", key};
    for (int i = 0; i < members; ++i) {
      cmd.push_back(std::to_string(i));
      cmd.push_back(absl::StrCat("member:", i));
    }
    ASSERT_EQ(rcc_->Cmd(cmd), absl::StrCat(":", members));
  }
  int64_t Freed() { return InfoInt(*rcc_, "stats", "lazyfreed_objects"); }
  int64_t Pending() { return InfoInt(*rcc_, "memory", "lazyfree_pending_objects"); }
  // The pool is asynchronous: wait until it has freed `n` objects in all.
  bool FreedReaches(int64_t n) {
    return PollUntil([&] { return Freed() == n && Pending() == 0; }, kEventually,
                     milliseconds(5));
  }
};

TEST_P(LazyfreeTest, LargeSetsAreFreedByThePool) {
  EXPECT_EQ(Freed(), 0);
  EXPECT_EQ(Pending(), 0);
  MakeSet("big1", 5000);
  MakeSet("big2", 5000);
  MakeSet("big3", 5000);
  MakeSet("small", 10);
  EXPECT_EQ(rcc_->Cmd({"DEL", "big1", "small"}), ":2");
  EXPECT_EQ(rcc_->Cmd({"EXISTS", "big1", "small"}), ":0");
  ASSERT_TRUE(FreedReaches(1));  // the small set was freed inline
  EXPECT_EQ(rcc_->Cmd({"UNLINK", "big2"}), ":1");
  ASSERT_TRUE(FreedReaches(2));
  EXPECT_EQ(rcc_->Cmd({"SET", "big3", "now a string"}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"TYPE", "big3"}), "+string");
  ASSERT_TRUE(FreedReaches(3));
  // As Redis, CONFIG RESETSTAT starts the count again.
  EXPECT_EQ(rcc_->Cmd({"CONFIG", "RESETSTAT"}), "+OK");
  EXPECT_EQ(Freed(), 0);
}

TEST_P(LazyfreeTest, FlushAllAsyncEmptiesAtOnce) {
  MakeSet("z", 1000);
  ASSERT_EQ(rcc_->Cmd({"SET", "s", "v"}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"FLUSHALL", "ASYNC"}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"DBSIZE"}), ":0");
  EXPECT_EQ(rcc_->Cmd({"ZCARD", "z"}), ":0");
  // One task per shard that had keys.
  ASSERT_TRUE(PollUntil([&] { return Pending() == 0 && Freed() >= 1; }, kEventually,
                        milliseconds(5)));
  MakeSet("z", 1000);
  EXPECT_EQ(rcc_->Cmd({"ZCARD", "z"}), ":1000");
  EXPECT_EQ(rcc_->Cmd({"FLUSHALL", "SYNC"}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"DBSIZE"}), ":0");
}

TEST_P(LazyfreeTest, ThresholdIsConfigurable) {
  EXPECT_EQ(rcc_->Cmd({"CONFIG", "GET", "lazyfree-threshold"}),
            "*[$lazyfree-threshold,$64]");
  ASSERT_EQ(rcc_->Cmd({"CONFIG", "SET", "lazyfree-threshold", "5000"}), "+OK");
  MakeSet("z", 1000);
  EXPECT_EQ(rcc_->Cmd({"DEL", "z"}), ":1");
  EXPECT_EQ(Freed(), 0);  // inline now
  ASSERT_EQ(rcc_->Cmd({"CONFIG", "SET", "lazyfree-threshold", "10"}), "+OK");
  MakeSet("z", 1000);
  EXPECT_EQ(rcc_->Cmd({"DEL", "z"}), ":1");
  ASSERT_TRUE(FreedReaches(1));
}

INSTANTIATE_TEST_SUITE_P(Threads, LazyfreeTest, ::testing::Values(1, 2), ThreadsName);

}  // namespace
}  // namespace rc::it
