// Checks of the test helpers themselves, against redis-server so that a helper bug is not
// mistaken for a ringcache bug.

#include "tests/integration/server_process.h"

#include <gtest/gtest.h>

namespace rc::it {
namespace {

TEST(KeySlotTest, MatchesRedisClusterSlots) {
  // Reference values from the Redis Cluster specification and `CLUSTER KEYSLOT`.
  EXPECT_EQ(KeySlot("123456789"), 0x31C3);  // CRC16/XMODEM check value.
  EXPECT_EQ(KeySlot("foo"), 12182);
  EXPECT_EQ(KeySlot("bar"), 5061);
  EXPECT_EQ(KeySlot("{user1000}.following"), KeySlot("user1000"));
  EXPECT_EQ(KeySlot("foo{}{bar}"), KeySlot("foo{}{bar}"));  // Empty tag: whole key hashed.
  EXPECT_NE(KeySlot("foo{}{bar}"), KeySlot("bar"));
  EXPECT_EQ(KeySlot("foo{{bar}}zap"), KeySlot("{bar"));
}

TEST(KeysOnShardTest, PicksKeysOfThatShard) {
  for (int shard = 0; shard < 3; ++shard) {
    for (const std::string& k : KeysOnShard("k", shard, 3, 20)) EXPECT_EQ(ShardOf(k, 3), shard);
  }
}

TEST(CanonTest, RendersEveryReplyTypeOfRedis) {
  std::string error;
  auto redis = ServerProcess::StartRedis(&error);
  ASSERT_TRUE(redis) << error;
  auto c = Client::Connect(redis->port(), &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->Cmd({"SET", "k", "a,b\r\n"}), "+OK");
  EXPECT_EQ(c->Cmd({"GET", "k"}), "$a\\x2cb\\x0d\\x0a");
  EXPECT_EQ(c->Cmd({"GET", "missing"}), "(nil)");
  EXPECT_EQ(c->Cmd({"INCR", "n"}), ":1");
  EXPECT_EQ(c->Cmd({"MGET", "n", "missing"}), "*[$1,(nil)]");
  EXPECT_EQ(c->Cmd({"MGET"}), "-ERR wrong number of arguments for 'mget' command");
  EXPECT_EQ(Describe({"SET", "a b", ""}), "SET \"a b\" \"\"");
}

TEST(ServerProcessTest, RingcacheStartsAnswersAndStopsCleanly) {
  std::string error;
  auto server = ServerProcess::StartRingcache(2, {}, &error);
  ASSERT_TRUE(server) << error;
  EXPECT_GT(server->port(), 0);
  auto c = Client::Connect(server->port(), &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->Cmd({"PING"}), "+PONG");
  auto raw = RawConn::Connect(server->port(), &error);
  ASSERT_TRUE(raw) << error;
  ASSERT_TRUE(raw->Send("*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n"));
  EXPECT_EQ(raw->ReadReplies(2), (std::vector<std::string>{"+PONG", "$hi"}));
}

TEST(ServerProcessTest, BadFlagIsReportedWithOutput) {
  std::string error;
  auto server = ServerProcess::StartRingcache(1, {"--no-such-flag", "1"}, &error);
  // The destructor of the failed start already reaped the process; the error carries its
  // output. (A non-zero exit there is expected, so it is not a test failure here.)
  EXPECT_FALSE(server);
  EXPECT_NE(error.find("printed no ready line"), std::string::npos) << error;
}

}  // namespace
}  // namespace rc::it
