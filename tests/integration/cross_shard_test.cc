// Multi-key commands whose keys live on different shards (2 and 3 threads): keys are
// chosen with the server's routing function (CRC16 slot % threads), so every test below
// really spans every shard.

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class CrossShardTest : public RingcacheTest {
 protected:
  // `per_shard` keys on each shard, interleaved: shard 0, 1, 2, 0, 1, 2, ...
  std::vector<std::string> SpreadKeys(const std::string& prefix, int per_shard) {
    std::vector<std::vector<std::string>> by_shard;
    for (int s = 0; s < threads(); ++s) {
      by_shard.push_back(KeysOnShard(prefix, s, threads(), per_shard));
    }
    std::vector<std::string> keys;
    for (int i = 0; i < per_shard; ++i) {
      for (int s = 0; s < threads(); ++s) keys.push_back(by_shard[size_t(s)][size_t(i)]);
    }
    return keys;
  }
};

TEST_P(CrossShardTest, MsetMgetExistsDelSpanShards) {
  std::vector<std::string> keys = SpreadKeys("key:", 100);
  Args mset = {"MSET"};
  for (const std::string& k : keys) {
    mset.push_back(k);
    mset.push_back("val-" + k);
  }
  ASSERT_EQ(rcc_->Cmd(mset), "+OK");

  // MGET of every key with a missing key after each one, in request order.
  Args mget = {"MGET"};
  std::string want = "*[";
  for (size_t i = 0; i < keys.size(); ++i) {
    mget.push_back(keys[i]);
    mget.push_back("missing:" + keys[i]);
    absl::StrAppend(&want, i ? "," : "", "$val-", keys[i], ",(nil)");
  }
  EXPECT_EQ(rcc_->Cmd(mget), want + "]");

  Args exists = {"EXISTS"};
  for (const std::string& k : keys) exists.insert(exists.end(), {k, k, "nope:" + k});
  EXPECT_EQ(rcc_->Cmd(exists), absl::StrCat(":", 2 * keys.size()));

  // Delete every other key (so each shard loses some), with duplicates and misses.
  Args del = {"DEL"};
  for (size_t i = 0; i < keys.size(); i += 2) del.insert(del.end(), {keys[i], keys[i], "x"});
  EXPECT_EQ(rcc_->Cmd(del), absl::StrCat(":", keys.size() / 2));
  EXPECT_EQ(rcc_->Cmd({"DBSIZE"}), absl::StrCat(":", keys.size() / 2));
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(rcc_->Cmd({"GET", keys[i]}), i % 2 ? "$val-" + keys[i] : "(nil)") << keys[i];
  }
  Args unlink = {"UNLINK"};
  unlink.insert(unlink.end(), keys.begin(), keys.end());
  EXPECT_EQ(rcc_->Cmd(unlink), absl::StrCat(":", keys.size() / 2));
  EXPECT_EQ(rcc_->Cmd({"DBSIZE"}), ":0");
}

TEST_P(CrossShardTest, MsetnxIsAllOrNothingAcrossShards) {
  std::vector<std::string> keys = SpreadKeys("nx:", 20);
  // The one existing key is on the last shard; the others on every shard must stay unset.
  std::string existing = keys.back();
  ASSERT_EQ(rcc_->Cmd({"SET", existing, "old"}), "+OK");
  Args msetnx = {"MSETNX"};
  for (const std::string& k : keys) msetnx.insert(msetnx.end(), {k, "new"});
  EXPECT_EQ(rcc_->Cmd(msetnx), ":0");
  EXPECT_EQ(rcc_->Cmd({"DBSIZE"}), ":1");
  EXPECT_EQ(rcc_->Cmd({"GET", existing}), "$old");

  ASSERT_EQ(rcc_->Cmd({"DEL", existing}), ":1");
  EXPECT_EQ(rcc_->Cmd(msetnx), ":1");
  EXPECT_EQ(rcc_->Cmd({"DBSIZE"}), absl::StrCat(":", keys.size()));
  for (const std::string& k : keys) EXPECT_EQ(rcc_->Cmd({"GET", k}), "$new") << k;
  EXPECT_EQ(rcc_->Cmd(msetnx), ":0");
}

TEST_P(CrossShardTest, RenameAcrossShardsThenGetInTheSamePipeline) {
  std::string a = KeysOnShard("src", 0, threads(), 1)[0];
  std::string b = KeysOnShard("dst", threads() - 1, threads(), 1)[0];
  std::string c = KeysOnShard("third", 1, threads(), 1)[0];
  const std::vector<std::pair<Args, std::string>> steps = {
      {{"SET", a, "payload"}, "+OK"},
      {{"RENAME", a, b}, "+OK"},
      {{"GET", b}, "$payload"},
      {{"GET", a}, "(nil)"},
      {{"EXISTS", a, b}, ":1"},
      {{"SET", c, "other"}, "+OK"},
      {{"RENAMENX", b, c}, ":0"},
      {{"RENAMENX", b, a}, ":1"},
      {{"MGET", a, b, c}, "*[$payload,(nil),$other]"},
      {{"RENAME", c, a}, "+OK"},
      {{"MGET", a, b, c}, "*[$other,(nil),(nil)]"},
      {{"RENAME", b, c}, "-ERR no such key"},
      {{"DBSIZE"}, ":1"},
  };
  for (const auto& [cmd, reply] : steps) rcc_->Append(cmd);
  for (const auto& [cmd, reply] : steps) EXPECT_EQ(rcc_->GetReply(), reply) << Describe(cmd);
}

TEST_P(CrossShardTest, HashTaggedKeysShareAShard) {
  std::vector<std::string> keys;
  for (int i = 0; i < 50; ++i) keys.push_back(absl::StrCat("{user:42}.field", i));
  for (const std::string& k : keys) ASSERT_EQ(KeySlot(k), KeySlot("user:42")) << k;
  Args mset = {"MSET"};
  for (const std::string& k : keys) mset.insert(mset.end(), {k, k});
  ASSERT_EQ(rcc_->Cmd(mset), "+OK");
  EXPECT_EQ(rcc_->Cmd({"RENAME", keys[0], "{user:42}.renamed"}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"MGET", keys[0], keys[1], "{user:42}.renamed"}),
            absl::StrCat("*[(nil),$", keys[1], ",$", keys[0], "]"));
  EXPECT_EQ(rcc_->Cmd({"MSETNX", "{user:42}.a", "1", "{user:42}.b", "2"}), ":1");
  EXPECT_EQ(rcc_->Cmd({"EXISTS", "{user:42}.a", "{user:42}.b", "{user:42}.c"}), ":2");
  std::vector<std::string> found = Strings(rcc_->RawCmd({"KEYS", "{user:42}*"}).get());
  EXPECT_EQ(found.size(), keys.size() + 2);
}

TEST_P(CrossShardTest, DbsizeAfterLoadingTenThousandKeys) {
  constexpr int kKeys = 10000;
  std::vector<int> per_shard(size_t(threads()), 0);
  for (int batch = 0; batch < kKeys / 1000; ++batch) {
    Args mset = {"MSET"};
    for (int i = batch * 1000; i < (batch + 1) * 1000; ++i) {
      std::string key = absl::StrCat("load:", i);
      ++per_shard[size_t(ShardOf(key, threads()))];
      mset.insert(mset.end(), {key, std::to_string(i)});
    }
    rcc_->Append(mset);
  }
  for (int batch = 0; batch < kKeys / 1000; ++batch) ASSERT_EQ(rcc_->GetReply(), "+OK");
  for (int n : per_shard) EXPECT_GT(n, kKeys / threads() / 2);  // Really spread.
  EXPECT_EQ(rcc_->Cmd({"DBSIZE"}), absl::StrCat(":", kKeys));
  EXPECT_EQ(Strings(rcc_->RawCmd({"KEYS", "load:*"}).get()).size(), size_t(kKeys));
  EXPECT_EQ(rcc_->Cmd({"GET", "load:9999"}), "$9999");
  EXPECT_EQ(rcc_->Cmd({"FLUSHALL"}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"DBSIZE"}), ":0");
}

// Connections are spread over the threads by SO_REUSEPORT, so with several of them some
// sit on a thread whose shard is empty: they must still see the keys of the others.
TEST_P(CrossShardTest, WholeKeyspaceCommandsSeeOtherShardsKeys) {
  for (int shard = 0; shard < threads(); ++shard) {
    SCOPED_TRACE(absl::StrCat("keys only on shard ", shard));
    std::vector<std::string> keys =
        KeysOnShard(absl::StrCat("only", shard, ":"), shard, threads(), 3);
    ASSERT_EQ(rcc_->Cmd({"MSET", keys[0], "a", keys[1], "b", keys[2], "c"}), "+OK");
    for (int c = 0; c < 8; ++c) {
      auto client = NewClient();
      ASSERT_TRUE(client);
      EXPECT_EQ(client->Cmd({"DBSIZE"}), ":3");
      std::string random = client->Cmd({"RANDOMKEY"});
      EXPECT_TRUE(random == "$" + keys[0] || random == "$" + keys[1] || random == "$" + keys[2])
          << random;
      std::vector<std::string> all = Strings(client->RawCmd({"KEYS", "*"}).get());
      EXPECT_EQ(std::set<std::string>(all.begin(), all.end()),
                std::set<std::string>(keys.begin(), keys.end()));
      EXPECT_EQ(client->Cmd({"MGET", keys[2], keys[0]}), "*[$c,$a]");
    }
    ASSERT_EQ(rcc_->Cmd({"FLUSHALL"}), "+OK");
    EXPECT_EQ(rcc_->Cmd({"RANDOMKEY"}), "(nil)");
  }
}

TEST_P(CrossShardTest, MsetWithARepeatedKeyKeepsTheLastValue) {
  std::string a = KeysOnShard("rep", 0, threads(), 1)[0];
  std::string b = KeysOnShard("rep", threads() - 1, threads(), 1)[0];
  EXPECT_EQ(rcc_->Cmd({"MSET", a, "1", b, "2", a, "3", b, "4", a, "5"}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"MGET", a, b}), "*[$5,$4]");
  EXPECT_EQ(rcc_->Cmd({"MSETNX", "new", "1", b, "x"}), ":0");
  EXPECT_EQ(rcc_->Cmd({"EXISTS", "new"}), ":0");
}

INSTANTIATE_TEST_SUITE_P(Threads, CrossShardTest, ::testing::Values(2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
