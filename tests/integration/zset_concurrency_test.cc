// Sorted-set commands over keys on different shards stay atomic under concurrent clients
// (2 and 3 threads): ZUNIONSTORE reading and writing the same key loses no update, and
// ZUNION / ZINTERSTORE never see half of a cross-shard RENAME. Every assertion holds for
// any interleaving on a correct server, so a failure is always a bug.

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class ZsetConcurrencyTest : public RingcacheTest {
 protected:
  std::string OnShard(const std::string& prefix, int shard) {
    return KeysOnShard(prefix, shard % threads(), threads(), 1)[0];
  }
};

// ZUNIONSTORE acc 2 acc one adds one to acc's score of m, reading and writing acc under
// the same locks: concurrent ones must not lose an increment.
TEST_P(ZsetConcurrencyTest, UnionStoreIntoItsOwnSourceLosesNoUpdate) {
  constexpr int kClients = 4, kRounds = 300;
  const std::string acc = OnShard("acc", 0), one = OnShard("one", threads() - 1);
  const std::string other = OnShard("other", 1);
  ASSERT_EQ(rcc_->Cmd({"ZADD", one, "1", "m"}), ":1");
  std::atomic<int> bad{0};
  RunClients(kClients, [&](int i, Client& c) {
    for (int r = 0; r < kRounds; ++r) {
      c.Append({"ZUNIONSTORE", acc, "2", acc, one});
      // Traffic on another shard's key in between, from half the clients.
      if (i % 2) c.Append({"ZINCRBY", other, "1", "m"});
    }
    for (int r = 0; r < kRounds; ++r) {
      if (c.GetReply() != ":1") ++bad;               // ZUNIONSTORE: one member stored
      if (i % 2 && c.GetReply()[0] != '$') ++bad;    // ZINCRBY: the new score
    }
  });
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(rcc_->Cmd({"ZSCORE", acc, "m"}), absl::StrCat("$", kClients * kRounds));
  EXPECT_EQ(rcc_->Cmd({"ZSCORE", other, "m"}), absl::StrCat("$", kClients / 2 * kRounds));
}

// One member moves back and forth between x and y (RENAME across shards). Readers of both
// keys must always see it exactly in one place: never neither, never both.
TEST_P(ZsetConcurrencyTest, CrossShardReadsNeverSeeHalfARename) {
  constexpr int kRounds = 400;
  const std::string x = OnShard("x", 0), y = OnShard("y", 1), dst = OnShard("dst", 2);
  ASSERT_EQ(rcc_->Cmd({"ZADD", x, "5", "m"}), ":1");
  std::atomic<int> bad{0};
  RunClients(3, [&](int i, Client& c) {
    if (i == 0) {
      for (int r = 0; r < kRounds; ++r) {
        c.Append({"RENAME", x, y});
        c.Append({"RENAME", y, x});
      }
      for (int r = 0; r < 2 * kRounds; ++r) {
        if (c.GetReply() != "+OK") ++bad;
      }
      return;
    }
    for (int r = 0; r < kRounds; ++r) {
      if (i == 1) {
        c.Append({"ZUNION", "2", x, y, "WITHSCORES"});
      } else {
        c.Append({"ZUNIONSTORE", dst, "2", x, y});
        c.Append({"ZCARD", dst});
      }
    }
    for (int r = 0; r < kRounds; ++r) {
      if (i == 1) {
        std::string got = c.GetReply();
        if (got != "*[$m,$5]") {
          ++bad;
          ADD_FAILURE() << "ZUNION saw " << got;
        }
      } else {
        std::string stored = c.GetReply(), card = c.GetReply();
        if (stored != ":1" || card != ":1") {
          ++bad;
          ADD_FAILURE() << "ZUNIONSTORE " << stored << ", ZCARD " << card;
        }
      }
    }
  });
  EXPECT_EQ(bad.load(), 0);
}

// A pipelined command that reads keys an earlier cross-shard command of the same client
// writes must see the write. ZUNION (keyless in the table) waits for the earlier
// command's locks (Dispatcher::Admit, Hold::kForLocks); so do the STORE forms (below).
TEST_P(ZsetConcurrencyTest, PipelinedZUnionSeesEarlierCrossShardWrite) {
  const std::string a = OnShard("pa", 0), b = OnShard("pb", 1);
  for (int r = 0; r < 200; ++r) {
    rcc_->Append({"DEL", a, b});
    rcc_->Append({"MSET", a, "1", b, "2"});
    rcc_->Append({"ZUNION", "1", b});
    rcc_->GetReply();
    ASSERT_EQ(rcc_->GetReply(), "+OK");
    ASSERT_EQ(rcc_->GetReply(), "-WRONGTYPE Operation against a key holding the wrong kind of value")
        << "round " << r;
  }
}

// The STORE forms' sources follow numkeys, beyond the table's key triple (Redis's legacy
// 1,1,1: the destination), so Dispatcher::Admit makes such rows wait for every lock the
// client's earlier commands are still taking. Without that, ZUNIONSTORE overtook the MSET
// on the later shard in every round where the connection lived on that shard's thread.
TEST_P(ZsetConcurrencyTest, PipelinedZUnionStoreSeesEarlierCrossShardWrite) {
  const std::string a = OnShard("pa", 0), b = OnShard("pb", 1), d = OnShard("pd", 1);
  for (int r = 0; r < 200; ++r) {
    rcc_->Append({"DEL", a, b, d});
    rcc_->Append({"MSET", a, "1", b, "2"});
    rcc_->Append({"ZUNIONSTORE", d, "1", b});
    rcc_->GetReply();
    ASSERT_EQ(rcc_->GetReply(), "+OK");
    ASSERT_EQ(rcc_->GetReply(), "-WRONGTYPE Operation against a key holding the wrong kind of value")
        << "round " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, ZsetConcurrencyTest, ::testing::Values(2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
