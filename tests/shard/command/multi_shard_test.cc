// How a multi-shard command takes its locks, step by step: two shards pumped by hand on
// the test's thread (each "turn" runs one thread's inbox and sends its posts), so a test
// can tell how many round trips a command took and hold a key busy in between.

#include <string>
#include <string_view>
#include <vector>

#include "core/entry_table.h"
#include "gtest/gtest.h"
#include "tests/shard/shard_harness.h"

namespace rc::testing {
namespace {

class NoWaker final : public Waker {
 public:
  void Wake(uint32_t) override {}
};

class MultiShardTest : public ::testing::Test {
 protected:
  MultiShardTest()
      : table_(BuildCommandTable()), shards_(2, &server_), dispatcher_(table_, shards_, server_) {
    server_.clock = &clock_;
    server_.commands = &table_;
    for (int i = 0; key_[0].empty() || key_[1].empty(); ++i) {
      std::string key = "k" + std::to_string(i);
      std::string& slot = key_[shards_.ShardOf(key)];
      if (slot.empty()) slot = key;
    }
  }

  // A connection on thread 0 sends `args`; nothing runs elsewhere until Turn().
  void Send(std::vector<std::string> args) {
    std::vector<std::string_view> views(args.begin(), args.end());
    std::string out;
    ReplyBuilder rb(&out, false);
    const uint64_t slot = sink_.Defer();
    const ArgList list(views);
    dispatcher_.Dispatch(shards_.thread(0), client_, sink_, rb, list,
                         dispatcher_.Admit(client_, list, false).command);
    sink_.Fulfill(slot, std::move(out));  // inline replies, if any, go first
  }
  // One round trip: thread 0's posts reach thread 1, run, and its posts come back.
  void RoundTrip() {
    shards_.FlushOutbox(0, waker_);
    shards_.thread(1).RunInbox();
    shards_.FlushOutbox(1, waker_);
    shards_.thread(0).RunInbox();
  }
  std::string Get(uint32_t shard) {
    const Entry* e = shards_.thread(shard).shard().Find(key_[shard]);
    return e == nullptr ? "(nil)" : std::string(e->str());
  }
  // MSET key_[0] a key_[1] b has answered and left nothing behind.
  void ExpectMsetDone() {
    EXPECT_EQ(sink_.out, "+OK\r\n");
    EXPECT_EQ(Get(0), "a");
    EXPECT_EQ(Get(1), "b");
    EXPECT_TRUE(Locks(0).Idle());
    EXPECT_TRUE(Locks(1).Idle());
    EXPECT_TRUE(client_.locking_keys.empty());
  }
  KeyLocks& Locks(uint32_t shard) { return shards_.thread(shard).shard().locks(); }
  std::vector<uint64_t> Hash(uint32_t shard) { return {HashKey(key_[shard])}; }

  ManualClock clock_;
  ServerState server_;
  CommandTable table_;
  ShardSet shards_;
  Dispatcher dispatcher_;
  ClientState client_;
  RecordingSink sink_;
  NoWaker waker_;
  std::string key_[2];  // a key of each shard
};

TEST_F(MultiShardTest, UncontendedTakesOneRoundTrip) {
  Send({"MSET", key_[0], "a", key_[1], "b"});
  EXPECT_EQ(sink_.out, "");
  RoundTrip();
  ExpectMsetDone();
}

// The other shard refuses the try-lock: the home lock is given back, and the command
// waits in order until the key is free, without writing anything before.
TEST_F(MultiShardTest, ContendedRemoteKeyWaitsInOrder) {
  Locks(1).Lock(Hash(1), false);
  Send({"MSET", key_[0], "a", key_[1], "b"});
  for (int i = 0; i < 3; ++i) RoundTrip();
  EXPECT_EQ(sink_.out, "");
  EXPECT_EQ(Get(0), "(nil)");
  EXPECT_FALSE(client_.locking_keys.empty());
  // In order now: shard 0's key is held while shard 1's waits.
  EXPECT_FALSE(Locks(0).MayRun(Hash(0), false));
  EXPECT_EQ(Locks(1).waiting(), 1u);
  Locks(1).Unlock(Hash(1), false);
  for (int i = 0; i < 3; ++i) RoundTrip();
  ExpectMsetDone();
}

// The home shard's key is busy: nothing is tried elsewhere; the command queues there.
TEST_F(MultiShardTest, ContendedHomeKeyWaits) {
  Locks(0).Lock(Hash(0), false);
  Send({"MSET", key_[0], "a", key_[1], "b"});
  RoundTrip();
  EXPECT_EQ(sink_.out, "");
  EXPECT_TRUE(Locks(1).Idle());
  Locks(0).Unlock(Hash(0), false);
  for (int i = 0; i < 3; ++i) RoundTrip();
  EXPECT_EQ(sink_.out, "+OK\r\n");
  EXPECT_EQ(Get(1), "b");
  EXPECT_TRUE(Locks(0).Idle());
  EXPECT_TRUE(Locks(1).Idle());
}

// A later command of the same connection on a key still being locked waits for the
// locks, so it cannot overtake the MSET on that key.
TEST_F(MultiShardTest, LaterCommandOnALockingKeyDoesNotOvertake) {
  Locks(1).Lock(Hash(1), false);
  Send({"MSET", key_[0], "a", key_[1], "b"});
  RoundTrip();
  const std::vector<std::string_view> get = {"GET", key_[1]};
  EXPECT_EQ(dispatcher_.Admit(client_, ArgList(get), true).hold, Dispatcher::Hold::kForLocks);
  Locks(1).Unlock(Hash(1), false);
  for (int i = 0; i < 3; ++i) RoundTrip();
  EXPECT_EQ(dispatcher_.Admit(client_, ArgList(get), true).hold, Dispatcher::Hold::kNone);
}

}  // namespace
}  // namespace rc::testing
