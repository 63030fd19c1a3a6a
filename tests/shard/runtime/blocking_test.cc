// The blocking machinery in process (ShardHarness: real shard threads, a manual clock):
// every way a wait ends leaves no waiter entry on any shard, deadlines fire when the
// clock passes them and not before, a waiter on keys of three shards is served once, and
// a blocked command holds the rest of its pipeline.

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "core/entry_table.h"
#include "shard/command/blocking_call.h"
#include "tests/shard/shard_harness.h"

namespace rc::testing {
namespace {

using std::chrono::milliseconds;

constexpr size_t kThreads = 3;

class BlockingMachineryTest : public ::testing::Test {
 protected:
  // Waiter entries on every shard, and clients counted as blocked on every thread.
  size_t Entries() {
    size_t n = 0;
    for (uint32_t i = 0; i < kThreads; ++i) {
      n += h_.OnThread(i, [](ShardThread& t) {
        return t.shard().waiting().blockers() + t.shard().waiting().keys();
      });
    }
    return n;
  }
  uint64_t BlockedClients() {
    uint64_t n = 0;
    for (uint32_t i = 0; i < kThreads; ++i) {
      n += h_.OnThread(i, [](ShardThread& t) { return t.stats().blocked_clients; });
    }
    return n;
  }
  void UntilBlocked(uint64_t n) {
    for (int i = 0; i < 10000 && BlockedClients() != n; ++i) {
      std::this_thread::sleep_for(milliseconds(1));
    }
    ASSERT_EQ(BlockedClients(), n);
  }
  // One key on each shard.
  std::vector<std::string> KeyPerShard() {
    std::vector<std::string> keys(kThreads);
    for (int i = 0; keys[0].empty() || keys[1].empty() || keys[2].empty(); ++i) {
      std::string k = "k" + std::to_string(i);
      keys[h_.shards().ShardOf(k)] = k;
    }
    return keys;
  }

  ShardHarness h_{kThreads};
};

TEST_F(BlockingMachineryTest, ServedAcrossShardsOnceAndForgotten) {
  const std::vector<std::string> k = KeyPerShard();
  ShardHarness::Client c = h_.Connect(0);
  auto reply = h_.Start(c, {{"BZPOPMIN", k[2], k[1], k[0], "0"}});
  UntilBlocked(1);
  EXPECT_EQ(Entries(), 6u);  // one blocker and one key on each shard
  EXPECT_EQ(h_.Run({"ZADD", k[1], "1", "a", "2", "b"}, 2), ":2\r\n");
  EXPECT_EQ(reply.get(),
            "*3\r\n$" + std::to_string(k[1].size()) + "\r\n" + k[1] + "\r\n$1\r\na\r\n$1\r\n1\r\n");
  EXPECT_EQ(h_.Run({"ZCARD", k[1]}), ":1\r\n");
  UntilBlocked(0);
  // The shards that did not serve it drop it too.
  for (int i = 0; i < 1000 && Entries() != 0; ++i) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_EQ(Entries(), 0u);
}

TEST_F(BlockingMachineryTest, DeadlinesFireWithTheClock) {
  const std::vector<std::string> k = KeyPerShard();
  ShardHarness::Client a = h_.Connect(0), b = h_.Connect(1);
  auto ra = h_.Start(a, {{"BZPOPMIN", k[1], k[2], "0.25"}});
  auto rb = h_.Start(b, {{"BZMPOP", "0.1", "1", k[0], "MAX"}});
  UntilBlocked(2);
  h_.AdvanceMillis(99);
  h_.FireBlockedTimeouts();
  EXPECT_EQ(rb.wait_for(milliseconds(20)), std::future_status::timeout);
  h_.AdvanceMillis(1);
  h_.FireBlockedTimeouts();
  EXPECT_EQ(rb.get(), "*-1\r\n");
  EXPECT_EQ(ra.wait_for(milliseconds(20)), std::future_status::timeout);
  h_.AdvanceMillis(150);
  h_.FireBlockedTimeouts();
  EXPECT_EQ(ra.get(), "*-1\r\n");
  UntilBlocked(0);
  for (int i = 0; i < 1000 && Entries() != 0; ++i) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_EQ(Entries(), 0u);
  // Nothing waits any more: a push stays.
  EXPECT_EQ(h_.Run({"ZADD", k[1], "1", "a"}), ":1\r\n");
  EXPECT_EQ(h_.Run({"ZCARD", k[1]}), ":1\r\n");
}

TEST_F(BlockingMachineryTest, UnblockAndCloseLeaveNothing) {
  const std::vector<std::string> k = KeyPerShard();
  ShardHarness::Client a = h_.Connect(1), b = h_.Connect(2);
  auto ra = h_.Start(a, {{"BZPOPMAX", k[0], k[1], k[2], "100"}});
  auto rb = h_.Start(b, {{"BZPOPMAX", k[0], "0"}});
  UntilBlocked(2);
  EXPECT_TRUE(h_.OnThread(1, [&](ShardThread&) { return UnblockClient(*a.state, true); }));
  EXPECT_EQ(ra.get(), "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
  EXPECT_FALSE(h_.OnThread(1, [&](ShardThread&) { return UnblockClient(*a.state, false); }));
  // The connection closes: its slot is filled with nothing, its entries go.
  h_.OnThread(2, [&](ShardThread&) {
    BlockedClientClosed(*b.state);
    return true;
  });
  EXPECT_EQ(rb.get(), "");
  UntilBlocked(0);
  for (int i = 0; i < 1000 && Entries() != 0; ++i) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_EQ(Entries(), 0u);
  EXPECT_EQ(h_.Run({"ZADD", k[0], "1", "a"}), ":1\r\n");
  EXPECT_EQ(h_.Run({"ZCARD", k[0]}), ":1\r\n");
}

// A connection reads nothing behind a blocked command (Connection::ParseAndRun); the
// harness must hold its pipeline the same way, or the next blocking command would take
// the first one's place in ClientState::blocked and the first could never end.
TEST_F(BlockingMachineryTest, PipelineWaitsBehindABlockedCommand) {
  const std::vector<std::string> k = KeyPerShard();
  ShardHarness::Client c = h_.Connect(0);
  // dispatch_fuzz's hang: one waits forever (keys on several shards), the next for 1 s.
  auto reply = h_.Start(c, {{"BZPOPMIN", k[1], k[2], "0"},
                            {"ECHO", "after"},
                            {"BZPOPMIN", k[0], k[1], "1"}});
  UntilBlocked(1);
  auto blocked = [&] { return h_.OnThread(0, [&](ShardThread&) { return c.state->blocked; }); };
  const std::shared_ptr<BlockedCall> first = blocked();
  h_.AdvanceMillis(1000);
  h_.FireBlockedTimeouts();
  EXPECT_EQ(reply.wait_for(milliseconds(20)), std::future_status::timeout);
  EXPECT_EQ(blocked(), first);
  EXPECT_TRUE(h_.OnThread(0, [&](ShardThread&) { return UnblockClient(*c.state, false); }));
  // The second one is dispatched only now, with its deadline from now.
  for (int i = 0; i < 10000 && (blocked() == nullptr || blocked() == first); ++i) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  UntilBlocked(1);
  h_.AdvanceMillis(999);
  h_.FireBlockedTimeouts();
  EXPECT_EQ(reply.wait_for(milliseconds(20)), std::future_status::timeout);
  h_.AdvanceMillis(1);
  h_.FireBlockedTimeouts();
  ASSERT_EQ(reply.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(reply.get(), "*-1\r\n$5\r\nafter\r\n*-1\r\n");
  UntilBlocked(0);
  for (int i = 0; i < 1000 && Entries() != 0; ++i) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_EQ(Entries(), 0u);
}

// What the waiter gets is pushed by someone else: its own pipelined push runs after.
TEST_F(BlockingMachineryTest, PipelinedPushRunsAfterTheWait) {
  ShardHarness::Client c = h_.Connect(1);
  auto reply = h_.Start(c, {{"BLPOP", "q", "0"}, {"RPUSH", "q", "mine"}});
  UntilBlocked(1);
  EXPECT_EQ(h_.Run({"RPUSH", "q", "theirs"}, 2), ":1\r\n");
  ASSERT_EQ(reply.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(reply.get(), "*2\r\n$1\r\nq\r\n$6\r\ntheirs\r\n:1\r\n");
  EXPECT_EQ(h_.Run({"LRANGE", "q", "0", "-1"}), "*1\r\n$4\r\nmine\r\n");
}

// A key that a multi-shard command holds is served in its turn once the lock goes, however
// often it was signalled meanwhile and whatever else queued for it: the push that waited
// runs first, then the waiter gets its element. (Two serve turns queued for one key used
// to re-queue behind each other forever, spinning the shard's thread.)
TEST_F(BlockingMachineryTest, KeyHeldByLocksIsServedInItsTurn) {
  const std::vector<std::string> k = KeyPerShard();
  const uint64_t hash = HashKey(k[1]);
  const KeyLocks::Keys keys(&hash, 1);
  ShardHarness::Client waiter = h_.Connect(0), pusher = h_.Connect(2);
  auto popped = h_.Start(waiter, {{"BLPOP", k[1], "0"}});
  UntilBlocked(1);
  h_.OnThread(1, [&](ShardThread& t) {
    t.shard().locks().Lock(keys, false);
    return 0;
  });
  auto pushed = h_.Start(pusher, {{"LPUSH", k[1], "x"}});
  for (int i = 0; i < 10000 && h_.OnThread(1, [](ShardThread& t) {
                                 return t.shard().locks().waiting();
                               }) == 0;
       ++i) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  EXPECT_EQ(h_.OnThread(1, [&](ShardThread& t) {
    for (int i = 0; i < 3; ++i) {
      t.shard().waiting().Signal(k[1]);
      ServeReady(t);
    }
    EXPECT_EQ(t.shard().locks().waiting(), 2u);  // the push and one serve turn
    t.shard().locks().Unlock(keys, false);
    return t.shard().locks().waiting();
  }), 0u);
  ASSERT_EQ(pushed.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(pushed.get(), ":1\r\n");
  ASSERT_EQ(popped.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(popped.get(), "*2\r\n$" + std::to_string(k[1].size()) + "\r\n" + k[1] + "\r\n$1\r\nx\r\n");
  EXPECT_EQ(h_.Run({"EXISTS", k[1]}), ":0\r\n");
  UntilBlocked(0);
}

TEST_F(BlockingMachineryTest, ParseBlockTimeout) {
  int64_t deadline = -1;
  std::string_view error;
  EXPECT_TRUE(ParseBlockTimeout("0", 1000, &deadline, &error));
  EXPECT_EQ(deadline, 0);
  EXPECT_TRUE(ParseBlockTimeout("0.0009", 1000, &deadline, &error));  // rounds to 0 ms
  EXPECT_EQ(deadline, 0);
  EXPECT_TRUE(ParseBlockTimeout("1.5", 1000, &deadline, &error));
  EXPECT_EQ(deadline, 2500);
  EXPECT_TRUE(ParseBlockTimeout("0x10", 1000, &deadline, &error));
  EXPECT_EQ(deadline, 17000);
  EXPECT_TRUE(ParseBlockTimeout("9223372036854775", 1000, &deadline, &error));
  EXPECT_EQ(deadline, 0);  // past the clock's range: forever, as Redis 7.0 ends up
  EXPECT_FALSE(ParseBlockTimeout("-1", 1000, &deadline, &error));
  EXPECT_EQ(error, "ERR timeout is negative");
  EXPECT_FALSE(ParseBlockTimeout("inf", 1000, &deadline, &error));
  EXPECT_EQ(error, "ERR timeout is negative");
  EXPECT_FALSE(ParseBlockTimeout("nan", 1000, &deadline, &error));
  EXPECT_EQ(error, "ERR timeout is not a float or out of range");
  EXPECT_FALSE(ParseBlockTimeout("", 1000, &deadline, &error));
  EXPECT_EQ(error, "ERR timeout is not a float or out of range");
}

}  // namespace
}  // namespace rc::testing
