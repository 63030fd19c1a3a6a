// Checks of the test helpers themselves, against redis-server so that a helper bug is not
// mistaken for a ringcache bug.

#include "tests/integration/server_process.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"
#include "tests/integration/polling.h"

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

// The tests' idea of where a key lives is the server's (DEBUG KEYSHARD).
class KeysOnShardTest : public RingcacheTest {};

TEST_P(KeysOnShardTest, PicksKeysTheServerKeepsOnThatShard) {
  for (int shard = 0; shard < threads(); ++shard) {
    for (const std::string& k : KeysOnShard("k", shard, threads(), 20)) {
      EXPECT_EQ(ShardOf(k, threads()), shard) << k;
      EXPECT_EQ(rcc_->Cmd({"DEBUG", "KEYSHARD", k}), absl::StrCat(":", shard)) << k;
    }
  }
  EXPECT_EQ(rcc_->Cmd({"DEBUG", "KEYSHARD", "{user1}.a"}), rcc_->Cmd({"DEBUG", "KEYSHARD", "user1"}));
}

INSTANTIATE_TEST_SUITE_P(Threads, KeysOnShardTest, ::testing::Values(1, 2, 3), ThreadsName);

// SharedServers puts a server back as it started: the second test of this suite finds
// nothing of what the first left (the two run in this order, gtest keeps a suite's order).
class SharedServersTest : public DiffTest {
 protected:
  static inline pid_t first_pid_ = 0;
  static inline pid_t first_redis_pid_ = 0;
};

TEST_P(SharedServersTest, FirstLeavesStateBehind) {
  first_pid_ = rc_->pid();
  first_redis_pid_ = redis_->pid();
  for (Client* c : {rcc_.get(), redisc_.get()}) {
    EXPECT_EQ(c->Cmd({"SET", "left", "behind"}), "+OK");
    EXPECT_EQ(c->Cmd({"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"}), "+OK");
    EXPECT_EQ(c->Cmd({"CONFIG", "SET", "notify-keyspace-events", "KEA"}), "+OK");
    EXPECT_EQ(c->Cmd({"CLIENT", "SETNAME", "first"}), "+OK");
    EXPECT_EQ(c->Cmd({"SCRIPT", "LOAD", "return 1"}).substr(0, 1), "$");
    EXPECT_EQ(c->Cmd({"FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', "
                                          "function() return 1 end)"}),
              "$lib");
    EXPECT_EQ(c->Cmd({"CONFIG", "SET", "slowlog-log-slower-than", "0"}), "+OK");
    EXPECT_EQ(c->Cmd({"GET", "left"}), "$behind");
  }
  // A subscriber and a blocked client that are closed only as the test ends.
  auto sub = NewRaw(rc_->port());
  auto blocked = NewRaw(rc_->port());
  ASSERT_TRUE(sub && blocked);
  ASSERT_TRUE(sub->Send(EncodeCommand({"SUBSCRIBE", "ch"})));
  EXPECT_EQ(sub->ReadReply().substr(0, 12), "*[$subscribe");
  ASSERT_TRUE(blocked->Send(EncodeCommand({"BLPOP", "list", "0"})));
  EXPECT_TRUE(PollUntil([&] { return InfoInt(*rcc_, "clients", "blocked_clients") == 1; }));
}

TEST_P(SharedServersTest, SecondFindsAFreshServer) {
  if (SharedServers::FreshOnly()) GTEST_SKIP() << "RINGCACHE_TEST_FRESH=1: nothing is shared";
  if (first_pid_ == 0) GTEST_SKIP() << "needs FirstLeavesStateBehind to run first";
  EXPECT_EQ(rc_->pid(), first_pid_) << "the first test's server was not reused";
  EXPECT_EQ(redis_->pid(), first_redis_pid_) << "the first test's redis-server was not reused";
  Script({{"DBSIZE"},
          {"CONFIG", "GET", "maxmemory-policy"},
          {"CONFIG", "GET", "notify-keyspace-events"},
          {"CONFIG", "GET", "slowlog-log-slower-than"},
          {"CLIENT", "GETNAME"},
          {"SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"},
          {"FUNCTION", "LIST"},
          {"SLOWLOG", "LEN"},
          {"PUBSUB", "CHANNELS"}});
  EXPECT_EQ(rcc_->Cmd({"DBSIZE"}), ":0");
  EXPECT_EQ(rcc_->Cmd({"CONFIG", "GET", "maxmemory-policy"}), "*[$maxmemory-policy,$noeviction]");
  for (Client* c : {rcc_.get(), redisc_.get()}) {
    auto clients = InfoFields(*c, "clients");
    EXPECT_EQ(clients["connected_clients"], "1");
    EXPECT_EQ(clients["blocked_clients"], "0");
    // Statistics start again: the commands so far, and RESETSTAT's own call (as Redis
    // counts it).
    auto stats = InfoFields(*c, "commandstats");
    EXPECT_EQ(stats.count("cmdstat_set"), 0u);
    EXPECT_EQ(stats["cmdstat_config|resetstat"].substr(0, 8), "calls=1,");
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, SharedServersTest, ::testing::Values(2), ThreadsName);

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
  // RESP2's null array (*-1) is not its null bulk string ($-1).
  EXPECT_EQ(c->Cmd({"BLPOP", "missing", "0.01"}), "(nil-array)");
  auto raw = RawConn::Connect(redis->port(), &error);
  ASSERT_TRUE(raw) << error;
  ASSERT_TRUE(raw->Send(EncodeCommand({"BLPOP", "missing", "0.01"}) + EncodeCommand({"GET", "x"})));
  EXPECT_EQ(raw->ReadReplies(2), (std::vector<std::string>{"(nil-array)", "(nil)"}));
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
