// TTL semantics through real shard threads, with a manual clock: nothing here sleeps.

#include <string>

#include "gtest/gtest.h"
#include "tests/shard/shard_harness.h"

namespace rc::testing {
namespace {

std::string Int(int64_t v) { return ":" + std::to_string(v) + "\r\n"; }

class ExpireTest : public ::testing::TestWithParam<int> {
 protected:
  ExpireTest() : h_(size_t(GetParam())) {}
  int64_t NowMs() { return h_.clock().NowUnixMillis(); }
  ShardHarness h_;
};

TEST_P(ExpireTest, LazyExpiryOnAccess) {
  EXPECT_EQ(h_.Run({"SET", "k", "v", "PX", "100"}), "+OK\r\n");
  EXPECT_EQ(h_.Run({"PTTL", "k"}), Int(100));
  h_.AdvanceMillis(99);
  EXPECT_EQ(h_.Run({"GET", "k"}), Bulk("v"));
  h_.AdvanceMillis(1);
  EXPECT_EQ(h_.Run({"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(h_.Run({"EXISTS", "k"}), Int(0));
  EXPECT_EQ(h_.Run({"TTL", "k"}), Int(-2));
}

TEST_P(ExpireTest, ActiveExpiryReclaimsWithoutAccess) {
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(h_.Run({"SET", "k" + std::to_string(i), "v", "PX", std::to_string(10 + i % 10)}),
              "+OK\r\n");
  }
  ASSERT_EQ(h_.Run({"SET", "forever", "v"}), "+OK\r\n");
  EXPECT_EQ(h_.Run({"DBSIZE"}), Int(1001));
  h_.AdvanceMillis(14);
  EXPECT_EQ(h_.ExpireDueEverywhere(), 500u);  // deadlines 10..14 ms
  EXPECT_EQ(h_.Run({"DBSIZE"}), Int(501));
  h_.AdvanceMillis(100);
  // A bounded step leaves the rest for later turns.
  size_t first = h_.ExpireDueEverywhere(/*max_keys_per_shard=*/50);
  EXPECT_LE(first, size_t(50 * GetParam()));
  EXPECT_EQ(first + h_.ExpireDueEverywhere(), 500u);
  EXPECT_EQ(h_.Run({"DBSIZE"}), Int(1));
  std::string info = h_.Run({"INFO", "stats"});
  EXPECT_NE(info.find("expired_keys:1000\r\n"), std::string::npos) << info;
}

TEST_P(ExpireTest, ExpireOptionsFollowRedis) {
  EXPECT_EQ(h_.Run({"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(h_.Run({"EXPIRE", "k", "100", "XX"}), Int(0));  // no TTL yet
  EXPECT_EQ(h_.Run({"EXPIRE", "k", "100", "GT"}), Int(0));  // none counts as infinite
  EXPECT_EQ(h_.Run({"EXPIRE", "k", "100", "NX"}), Int(1));
  EXPECT_EQ(h_.Run({"EXPIRE", "k", "200", "NX"}), Int(0));
  EXPECT_EQ(h_.Run({"EXPIRE", "k", "50", "GT"}), Int(0));
  EXPECT_EQ(h_.Run({"EXPIRE", "k", "200", "GT"}), Int(1));
  EXPECT_EQ(h_.Run({"EXPIRE", "k", "300", "LT"}), Int(0));
  EXPECT_EQ(h_.Run({"PEXPIRE", "k", "1500", "LT"}), Int(1));
  EXPECT_EQ(h_.Run({"TTL", "k"}), Int(2));  // 1.5 s rounds to 2, as Redis
  EXPECT_EQ(h_.Run({"PEXPIRETIME", "k"}), Int(NowMs() + 1500));
  EXPECT_EQ(h_.Run({"EXPIRETIME", "k"}), Int((NowMs() + 1500 + 500) / 1000));  // rounds
  EXPECT_EQ(h_.Run({"EXPIRE", "k", "1", "NX", "XX"}),
            "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n");
  EXPECT_EQ(h_.Run({"EXPIRE", "k", "1", "GT", "LT"}),
            "-ERR GT and LT options at the same time are not compatible\r\n");
  EXPECT_EQ(h_.Run({"EXPIRE", "k", "1", "foo"}), "-ERR Unsupported option foo\r\n");
  EXPECT_EQ(h_.Run({"EXPIRE", "k", "9223372036854775807"}),
            "-ERR invalid expire time in 'expire' command\r\n");
  EXPECT_EQ(h_.Run({"PERSIST", "k"}), Int(1));
  EXPECT_EQ(h_.Run({"PERSIST", "k"}), Int(0));
  EXPECT_EQ(h_.Run({"TTL", "k"}), Int(-1));
  // A deadline in the past deletes the key at once.
  EXPECT_EQ(h_.Run({"EXPIRE", "k", "-1"}), Int(1));
  EXPECT_EQ(h_.Run({"EXISTS", "k"}), Int(0));
  EXPECT_EQ(h_.Run({"EXPIRE", "missing", "10"}), Int(0));
}

TEST_P(ExpireTest, WritesClearOrKeepTheTtlAsRedis) {
  EXPECT_EQ(h_.Run({"SET", "k", "1", "EX", "100"}), "+OK\r\n");
  EXPECT_EQ(h_.Run({"INCR", "k"}), Int(2));
  EXPECT_EQ(h_.Run({"APPEND", "k", "0"}), Int(2));
  EXPECT_EQ(h_.Run({"SETRANGE", "k", "5", "x"}), Int(6));
  EXPECT_EQ(h_.Run({"TTL", "k"}), Int(100));  // kept by INCR, APPEND, SETRANGE
  EXPECT_EQ(h_.Run({"SET", "k", "v", "KEEPTTL"}), "+OK\r\n");
  EXPECT_EQ(h_.Run({"TTL", "k"}), Int(100));
  EXPECT_EQ(h_.Run({"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(h_.Run({"TTL", "k"}), Int(-1));  // plain SET clears it
  EXPECT_EQ(h_.Run({"SETEX", "k", "10", "v"}), "+OK\r\n");
  EXPECT_EQ(h_.Run({"GETSET", "k", "w"}), Bulk("v"));
  EXPECT_EQ(h_.Run({"TTL", "k"}), Int(-1));
  EXPECT_EQ(h_.Run({"PSETEX", "k", "2000", "v"}), "+OK\r\n");
  EXPECT_EQ(h_.Run({"MSET", "k", "x", "other", "y"}), "+OK\r\n");
  EXPECT_EQ(h_.Run({"TTL", "k"}), Int(-1));
  EXPECT_EQ(h_.Run({"SETEX", "k", "0", "v"}), "-ERR invalid expire time in 'setex' command\r\n");
}

TEST_P(ExpireTest, GetExChangesTheTtl) {
  EXPECT_EQ(h_.Run({"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(h_.Run({"GETEX", "k", "PX", "5000"}), Bulk("v"));
  EXPECT_EQ(h_.Run({"PTTL", "k"}), Int(5000));
  EXPECT_EQ(h_.Run({"GETEX", "k", "PERSIST"}), Bulk("v"));
  EXPECT_EQ(h_.Run({"TTL", "k"}), Int(-1));
  EXPECT_EQ(h_.Run({"GETEX", "k", "PERSIST", "EX", "10"}), "-ERR syntax error\r\n");
  EXPECT_EQ(h_.Run({"GETEX", "k", "EX", "0"}), "-ERR invalid expire time in 'getex' command\r\n");
  EXPECT_EQ(h_.Run({"GETEX", "k", "EXAT", "1"}), Bulk("v"));  // in the past: deleted
  EXPECT_EQ(h_.Run({"EXISTS", "k"}), Int(0));
  EXPECT_EQ(h_.Run({"GETEX", "missing", "EX", "10"}), "$-1\r\n");
}

TEST_P(ExpireTest, RenameKeepsTheTtlAcrossShards) {
  for (int i = 0; i < 20; ++i) {
    std::string src = "src" + std::to_string(i), dst = "dst" + std::to_string(i);
    ASSERT_EQ(h_.Run({"SET", src, "v", "PX", "5000"}), "+OK\r\n");
    ASSERT_EQ(h_.Run({"RENAME", src, dst}), "+OK\r\n");
    ASSERT_EQ(h_.Run({"PTTL", dst}), Int(5000)) << dst;
  }
  h_.AdvanceMillis(5000);
  EXPECT_EQ(h_.ExpireDueEverywhere(), 20u);
  EXPECT_EQ(h_.Run({"DBSIZE"}), Int(0));
}

TEST_P(ExpireTest, InfoCountsKeysWithATtl) {
  EXPECT_EQ(h_.Run({"MSET", "a", "1", "b", "2", "c", "3"}), "+OK\r\n");
  EXPECT_EQ(h_.Run({"EXPIRE", "a", "100"}), Int(1));
  EXPECT_EQ(h_.Run({"PEXPIRE", "b", "100000"}), Int(1));
  std::string info = h_.Run({"INFO", "keyspace"});
  EXPECT_NE(info.find("db0:keys=3,expires=2,avg_ttl="), std::string::npos) << info;
}

TEST_P(ExpireTest, ExpiredKeysAreInvisibleToKeysAndScan) {
  EXPECT_EQ(h_.Run({"SET", "gone", "v", "PX", "10"}), "+OK\r\n");
  EXPECT_EQ(h_.Run({"SET", "here", "v"}), "+OK\r\n");
  h_.AdvanceMillis(10);
  EXPECT_EQ(h_.Run({"KEYS", "*"}), "*1\r\n" + Bulk("here"));
  EXPECT_EQ(h_.Run({"RANDOMKEY"}), Bulk("here"));
}

INSTANTIATE_TEST_SUITE_P(Threads, ExpireTest, ::testing::Values(1, 2, 3));

}  // namespace
}  // namespace rc::testing
