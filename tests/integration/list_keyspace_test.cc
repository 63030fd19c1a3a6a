// Lists in the keyspace machinery, seen from clients: a big list leaves through the
// lazyfree pool and a small one inline; the dataset's bytes follow a list as it grows
// and goes;
// every list write that changes (and LTRIM, as in Redis, even when it does not) fails a
// WATCHer's EXEC, writes that change nothing do not; a list expires; an LMOVE across
// shards under concurrent LMOVEs the other way loses and duplicates nothing.

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"
#include "tests/integration/polling.h"

namespace rc::it {
namespace {

class ListKeyspaceTest : public RingcacheTest {
 protected:
  void Fill(Client& c, const std::string& key, int n) {
    for (int i = 0; i < n; i += 1000) {
      Args cmd = {"RPUSH", key};
      for (int j = i; j < std::min(n, i + 1000); ++j) cmd.push_back(absl::StrCat("element-", j));
      c.Cmd(cmd);
    }
  }
  int64_t Freed() { return InfoInt(*rcc_, "stats", "lazyfreed_objects"); }
  int64_t Pending() { return InfoInt(*rcc_, "memory", "lazyfree_pending_objects"); }
  // The shards' own byte count (what eviction uses), independent of the allocator's.
  int64_t Used() { return InfoInt(*rcc_, "memory", "used_memory_dataset"); }
};

TEST_P(ListKeyspaceTest, BigListsAreFreedByThePoolAndCounted) {
  const int64_t before = Used();
  Fill(*rcc_, "big", 200000);  // ~2.8 MB: hundreds of blocks
  Fill(*rcc_, "big2", 200000);
  ASSERT_EQ(rcc_->Cmd({"RPUSH", "small", "a", "b"}), ":2");
  const int64_t loaded = Used();
  EXPECT_GT(loaded - before, 2 * 200000 * 10);
  const std::string usage = rcc_->Cmd({"MEMORY", "USAGE", "big"});
  ASSERT_EQ(usage[0], ':') << usage;
  EXPECT_GT(std::stoll(usage.substr(1)), 200000 * 10);
  EXPECT_EQ(rcc_->Cmd({"DEL", "small"}), ":1");
  EXPECT_EQ(rcc_->Cmd({"UNLINK", "big"}), ":1");
  EXPECT_EQ(rcc_->Cmd({"EXISTS", "big"}), ":0");
  ASSERT_TRUE(
      PollUntil([&] { return Freed() == 1 && Pending() == 0; }, kEventually, milliseconds(5)));
  EXPECT_EQ(rcc_->Cmd({"SET", "big2", "a string now"}), "+OK");
  ASSERT_TRUE(
      PollUntil([&] { return Freed() == 2 && Pending() == 0; }, kEventually, milliseconds(5)));
  EXPECT_LT(Used() - before, (loaded - before) / 100);
}

TEST_P(ListKeyspaceTest, WatchSeesListWrites) {
  auto other = NewClient();
  ASSERT_TRUE(other);
  ASSERT_EQ(rcc_->Cmd({"RPUSH", "l", "a", "b", "c"}), ":3");
  ASSERT_EQ(rcc_->Cmd({"RPUSH", "{l}d", "x"}), ":1");
  struct Case {
    Args write;
    bool dirties;
  };
  const std::vector<Case> cases = {
      {{"LPUSH", "l", "z"}, true},
      {{"RPOP", "l"}, true},
      {{"LSET", "l", "0", "y"}, true},
      {{"LINSERT", "l", "AFTER", "y", "w"}, true},
      {{"LINSERT", "l", "AFTER", "none", "w"}, false},
      {{"LREM", "l", "0", "w"}, true},
      {{"LREM", "l", "0", "none"}, false},
      {{"LTRIM", "l", "0", "-1"}, true},
      {{"LPOP", "l", "0"}, false},
      {{"LPUSHX", "missing", "a"}, false},
      {{"LMOVE", "l", "{l}d", "LEFT", "LEFT"}, true},
      {{"LMOVE", "{l}d", "l", "LEFT", "LEFT"}, true},
      {{"LMPOP", "2", "missing", "l", "RIGHT"}, true},
      {{"LRANGE", "l", "0", "-1"}, false},
  };
  for (const Case& c : cases) {
    ASSERT_EQ(rcc_->Cmd({"WATCH", "l"}), "+OK");
    other->Cmd(c.write);
    ASSERT_EQ(rcc_->Cmd({"MULTI"}), "+OK");
    ASSERT_EQ(rcc_->Cmd({"LLEN", "l"}), "+QUEUED");
    const std::string exec = rcc_->Cmd({"EXEC"});
    EXPECT_EQ(exec == "(nil-array)", c.dirties) << Describe(c.write) << " -> " << exec;
    ASSERT_EQ(rcc_->Cmd({"RPUSH", "l", "a", "b"}).substr(0, 1), ":");
  }
}

TEST_P(ListKeyspaceTest, ListsExpire) {
  ASSERT_EQ(rcc_->Cmd({"RPUSH", "l", "a", "b"}), ":2");
  ASSERT_EQ(rcc_->Cmd({"PEXPIRE", "l", "30"}), ":1");
  ASSERT_EQ(rcc_->Cmd({"LPUSH", "l", "c"}), ":3");  // a push keeps the TTL
  ASSERT_TRUE(PollUntil(
      [&] {
        return rcc_->Cmd({"EXISTS", "l"}) == ":0";
      },
      kEventually, milliseconds(5)));
  EXPECT_EQ(rcc_->Cmd({"LLEN", "l"}), ":0");
  EXPECT_EQ(InfoInt(*rcc_, "stats", "expired_keys"), 1);
}

TEST_P(ListKeyspaceTest, CrossShardMovesLoseNothing) {
  // Keys on different shards with 2-3 threads; clients move elements both ways at once.
  const std::vector<std::string> keys = {"a", "b", "c", "d"};
  for (const std::string& k : keys) {
    Args cmd = {"RPUSH", k};
    for (int i = 0; i < 100; ++i) cmd.push_back(absl::StrCat(k, i));
    ASSERT_EQ(rcc_->Cmd(cmd), ":100");
  }
  RunClients(4, [&](int id, Client& c) {
    for (int i = 0; i < 300; ++i) {
      const std::string& src = keys[size_t(id + i) % keys.size()];
      const std::string& dst = keys[size_t(id + 2 * i + 1) % keys.size()];
      if (i % 3 == 0) {
        c.Cmd({"RPOPLPUSH", src, dst});
      } else if (i % 3 == 1) {
        c.Cmd({"LMOVE", src, dst, "LEFT", "RIGHT"});
      } else {
        // Pop and put back where it came from: [key, [element]].
        Client::ReplyPtr r = c.RawCmd({"LMPOP", "2", src, dst, "LEFT"});
        if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 2) {
          const std::vector<std::string> elems = Strings(r->element[1]);
          c.Cmd({"RPUSH", std::string(r->element[0]->str, r->element[0]->len), elems.at(0)});
        }
      }
    }
  });
  std::multiset<std::string> all;
  for (const std::string& k : keys) {
    Client::ReplyPtr r = rcc_->RawCmd({"LRANGE", k, "0", "-1"});
    ASSERT_TRUE(r);
    for (const std::string& e : Strings(r.get())) all.insert(e);
  }
  ASSERT_EQ(all.size(), 400u);
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), 400u);
}

INSTANTIATE_TEST_SUITE_P(Threads, ListKeyspaceTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
