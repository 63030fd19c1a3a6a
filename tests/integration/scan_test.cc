// SCAN across shards: a full iteration returns every key KEYS returns (duplicates are
// allowed by SCAN's contract, missing keys are not) for several COUNTs, with MATCH and
// TYPE, and keys present for the whole iteration are returned even while another
// connection adds and removes keys (growing the tables mid-scan).

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class ScanTest : public RingcacheTest {
 protected:
  void Load(const std::string& prefix, int n) {
    for (int start = 0; start < n; start += 1000) {
      Args mset = {"MSET"};
      for (int i = start; i < std::min(n, start + 1000); ++i) {
        mset.insert(mset.end(), {absl::StrCat(prefix, i), "v"});
      }
      ASSERT_EQ(rcc_->Cmd(mset), "+OK");
    }
  }
  std::set<std::string> KeysOf(const std::string& pattern) {
    std::vector<std::string> keys = Strings(rcc_->RawCmd({"KEYS", pattern}).get());
    return {keys.begin(), keys.end()};
  }
  static std::set<std::string> AsSet(const std::vector<std::string>& v) {
    return {v.begin(), v.end()};
  }
};

TEST_P(ScanTest, FullIterationReturnsExactlyTheKeysOfKeys) {
  ASSERT_NO_FATAL_FAILURE(Load("user:", 1500));
  ASSERT_NO_FATAL_FAILURE(Load("item:", 500));
  std::set<std::string> all = KeysOf("*");
  ASSERT_EQ(all.size(), 2000u);
  for (const char* count : {"1", "10", "1000"}) {
    std::vector<std::string> got = ScanAll(*rcc_, {"COUNT", count});
    EXPECT_EQ(AsSet(got), all) << "COUNT " << count;
    EXPECT_GE(got.size(), all.size());
  }
  EXPECT_EQ(AsSet(ScanAll(*rcc_, {})), all);
  EXPECT_EQ(AsSet(ScanAll(*rcc_, {"MATCH", "item:*", "COUNT", "10"})), KeysOf("item:*"));
  EXPECT_EQ(AsSet(ScanAll(*rcc_, {"MATCH", "user:1?", "COUNT", "1000"})), KeysOf("user:1?"));
  EXPECT_EQ(AsSet(ScanAll(*rcc_, {"MATCH", "nothing*"})), std::set<std::string>());
  EXPECT_EQ(AsSet(ScanAll(*rcc_, {"TYPE", "string", "COUNT", "10"})), all);
  EXPECT_EQ(AsSet(ScanAll(*rcc_, {"TYPE", "zset", "COUNT", "1000"})), std::set<std::string>());
  EXPECT_EQ(AsSet(ScanAll(*rcc_, {"MATCH", "*:7*", "TYPE", "string", "COUNT", "1"})),
            KeysOf("*:7*"));
}

TEST_P(ScanTest, EmptyKeyspaceEndsAtOnce) {
  EXPECT_EQ(ScanAll(*rcc_, {"COUNT", "1"}), std::vector<std::string>());
  ASSERT_EQ(rcc_->Cmd({"SET", "only", "1"}), "+OK");
  EXPECT_EQ(AsSet(ScanAll(*rcc_, {"COUNT", "1"})), std::set<std::string>{"only"});
}

// Shards before and after the one holding the keys are empty: the cursor must move on
// through them rather than end the iteration early.
TEST_P(ScanTest, KeysOnASingleShardAreAllFound) {
  for (int shard = 0; shard < threads(); ++shard) {
    std::vector<std::string> keys = KeysOnShard("lone", shard, threads(), 25);
    Args mset = {"MSET"};
    for (const std::string& k : keys) mset.insert(mset.end(), {k, "v"});
    ASSERT_EQ(rcc_->Cmd(mset), "+OK");
    for (const char* count : {"1", "7", "100"}) {
      EXPECT_EQ(AsSet(ScanAll(*rcc_, {"COUNT", count})), AsSet(keys))
          << "shard " << shard << " COUNT " << count;
    }
    ASSERT_EQ(rcc_->Cmd({"FLUSHALL"}), "+OK");
  }
}

// Between SCAN calls another connection adds 20 keys and deletes 10: over the ~240 calls
// the tables grow from 1,500 to about 4,000 keys, doubling at least once on every shard.
// The churn stays below what a call covers: more, and the iteration chases a table that
// outgrows it (100 and 50 need 3,500 calls, ending at 180,000 keys).
TEST_P(ScanTest, KeysPresentThroughoutAreReturnedWhileOthersChange) {
  ASSERT_NO_FATAL_FAILURE(Load("stable:", 1000));
  ASSERT_NO_FATAL_FAILURE(Load("churn:", 500));
  std::set<std::string> stable = KeysOf("stable:*");
  auto mutator = NewClient();
  ASSERT_TRUE(mutator);
  int next_add = 500, next_del = 0, steps = 0;
  std::vector<std::string> got = ScanAll(*rcc_, {"COUNT", "10"}, [&] {
    ++steps;
    Args mset = {"MSET"}, del = {"DEL"};
    for (int i = 0; i < 20; ++i)
      mset.insert(mset.end(), {absl::StrCat("churn:", next_add++), "x"});
    for (int i = 0; i < 10; ++i) del.push_back(absl::StrCat("churn:", next_del++));
    mutator->Append(mset);
    mutator->Append(del);
    ASSERT_EQ(mutator->GetReply(), "+OK");
    ASSERT_EQ(mutator->GetReply(), ":10");
  });
  EXPECT_GT(steps, 10);
  std::set<std::string> returned = AsSet(got);
  std::vector<std::string> missing;
  for (const std::string& k : stable) {
    if (!returned.count(k)) missing.push_back(k);
  }
  EXPECT_TRUE(missing.empty()) << missing.size() << " stable keys not returned, e.g. "
                               << missing.front() << " (" << steps << " SCAN calls)";
  for (const std::string& k : returned) {
    EXPECT_TRUE(k.rfind("stable:", 0) == 0 || k.rfind("churn:", 0) == 0) << k;
  }
}

// The same with the mutations running concurrently on their own thread and connection.
TEST_P(ScanTest, KeysPresentThroughoutAreReturnedUnderConcurrentWrites) {
  ASSERT_NO_FATAL_FAILURE(Load("stable:", 2000));
  std::set<std::string> stable = KeysOf("stable:*");
  auto mutator = NewClient();
  ASSERT_TRUE(mutator);
  std::atomic<bool> done{false};
  std::mutex mu;
  std::condition_variable cv;
  int batches = 0;
  std::thread writer([&] {
    for (int round = 0; !done.load(); ++round) {
      Args mset = {"MSET"}, del = {"DEL"};
      for (int i = 0; i < 200; ++i) {
        mset.insert(mset.end(), {absl::StrCat("churn:", round, ":", i), "x"});
        if (round > 0) del.push_back(absl::StrCat("churn:", round - 1, ":", i));
      }
      if (mutator->Cmd(mset) != "+OK") break;
      if (round > 0 && mutator->Cmd(del) != ":200") break;
      std::lock_guard lock(mu);
      ++batches;
      cv.notify_all();
    }
  });
  {
    std::unique_lock lock(mu);  // The writer is under way before the first SCAN.
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return batches > 0; });
  }
  std::vector<std::set<std::string>> passes;
  for (const char* count : {"5", "50", "500"}) {
    passes.push_back(AsSet(ScanAll(*rcc_, {"MATCH", "stable:*", "COUNT", count})));
  }
  done = true;
  writer.join();
  EXPECT_GT(batches, 0);
  for (const auto& pass : passes) EXPECT_EQ(pass, stable);
}

INSTANTIATE_TEST_SUITE_P(Threads, ScanTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
