// Keyspace commands against redis-server: DEL/UNLINK/EXISTS counting, TYPE, KEYS (as a
// set: order is unspecified), SCAN argument errors, DBSIZE, FLUSHDB/FLUSHALL, RANDOMKEY,
// RENAME/RENAMENX and TOUCH.

#include <algorithm>
#include <string>
#include <vector>

#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class DiffKeyspaceTest : public DiffTest {
 protected:
  // Sorted elements of an array reply from each server; they must be equal.
  void SameSet(const Args& cmd) {
    std::vector<std::string> want = Strings(redisc_->RawCmd(cmd).get());
    std::vector<std::string> got = Strings(rcc_->RawCmd(cmd).get());
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want) << "command: " << Describe(cmd);
  }
  // Sorted, de-duplicated keys of a full SCAN with `opts`.
  static std::vector<std::string> FullScan(Client& c, const Args& opts) {
    std::vector<std::string> keys = ScanAll(c, opts);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return keys;
  }
};

TEST_P(DiffKeyspaceTest, DelUnlinkExistsCountEveryArgument) {
  Script({
      {"MSET", "a", "1", "b", "2", "c", "3", "d", "4"},
      {"EXISTS", "a"},
      {"EXISTS", "a", "a", "a"},
      {"EXISTS", "a", "b", "missing", "b"},
      {"EXISTS", "missing"},
      {"DEL", "a", "a"},
      {"DEL", "a"},
      {"DEL", "b", "c", "missing", "b"},
      {"UNLINK", "d", "d", "zz"},
      {"UNLINK", "d"},
      {"DBSIZE"},
      {"DEL"},
      {"UNLINK"},
      {"EXISTS"},
  });
}

TEST_P(DiffKeyspaceTest, TypeAndTouch) {
  Script({{"SET", "s", "v"},
          {"TYPE", "s"},
          {"TYPE", "missing"},
          {"TYPE"},
          {"TYPE", "a", "b"},
          {"TOUCH", "s", "s", "missing"},
          {"TOUCH", "missing"},
          {"TOUCH"}});
}

TEST_P(DiffKeyspaceTest, KeysPatternsAsSets) {
  Script({{"MSET", "hello",    "1", "hallo", "2",  "hxllo",  "3", "hllo",
           "4",    "heeeello", "5", "h*llo", "6",  "user:1", "7", "user:2",
           "8",    "user:10",  "9", "a[b",   "10", "-",      "11"}});
  const char* patterns[] = {
      "*",      "h?llo",  "h*llo",    "h[ae]llo",   "h[^e]llo",     "h[a-b]llo",   "h\\*llo",
      "user:?", "user:*", "*:1*",     "nomatch",    "a[[]b",        "a\\[b",       "[a-h]*",
      "-",      "*o",     "h[!e]llo", "??llo",      "[h-a]*",       "h[a-]llo",    "h[-a]llo",
      "[",      "a[b",    "\\",       "*\\",        "h[]llo",       "h[^]llo",     "**",
      "*?*",    "H*LLO",  "[a\\-z]*", "user:[0-9]", "user:[^0-9]*", "h[a-ce-z]llo"};
  for (const char* p : patterns) SameSet({"KEYS", p});
  Script({{"KEYS"}, {"KEYS", "a", "b"}});
}

TEST_P(DiffKeyspaceTest, ScanArgumentErrors) {
  Script({
      {"SCAN", "abc"},
      {"SCAN", "1.5"},
      {"SCAN", "18446744073709551616"},
      {"SCAN", "0", "COUNT", "0"},
      {"SCAN", "0", "COUNT", "-1"},
      {"SCAN", "0", "COUNT", "abc"},
      {"SCAN", "0", "COUNT"},
      {"SCAN", "0", "MATCH"},
      {"SCAN", "0", "TYPE"},
      {"SCAN", "0", "FOO", "bar"},
      {"SCAN", "0", "COUNT", "10", "MATCH"},
      {"SCAN"},
  });
}

// The largest COUNT: a full scan sees every key (one call per shard here, one call in
// Redis). The 10×COUNT step budget once overflowed (found by the dispatch fuzzer, UBSan).
TEST_P(DiffKeyspaceTest, ScanWithTheLargestCount) {
  Same({"MSET", "k1", "v", "k2", "v", "k3", "v"});
  const Args opts = {"MATCH", "*", "COUNT", "9223372036854775807"};
  EXPECT_EQ(FullScan(*rcc_, opts), FullScan(*redisc_, opts));
  EXPECT_EQ(FullScan(*rcc_, opts).size(), 3u);
}

// Redis parses the cursor with strtoul, so an empty cursor reads as 0 (a fresh scan).
TEST_P(DiffKeyspaceTest, ScanEmptyCursorStartsAFreshScan) {
  Same({"MSET", "k1", "v", "k2", "v", "k3", "v"});
  EXPECT_EQ(redisc_->Cmd({"SCAN", ""}), redisc_->Cmd({"SCAN", "0"}));
  EXPECT_EQ(rcc_->Cmd({"SCAN", ""}), rcc_->Cmd({"SCAN", "0"}));
}

// Cursors are opaque (ringcache encodes the shard in them), so valid SCANs are compared by
// the keys a full iteration returns.
TEST_P(DiffKeyspaceTest, ScanOptionsSelectTheSameKeys) {
  Same({"MSET", "k", "v", "key1", "v", "key2", "v", "other", "v", "{t}k", "v"});
  const Args options[] = {{},
                          {"TYPE", "string"},
                          {"type", "STRING"},
                          {"TYPE", "hash"},
                          {"TYPE", "nosuchtype"},
                          {"MATCH", "k*", "COUNT", "100"},
                          {"MATCH", "nomatch"},
                          {"MATCH", "*k", "TYPE", "string", "COUNT", "1"}};
  for (const Args& opts : options) {
    EXPECT_EQ(FullScan(*rcc_, opts), FullScan(*redisc_, opts))
        << "SCAN <cursor> " << Describe(opts);
  }
}

TEST_P(DiffKeyspaceTest, DbsizeFlushdbFlushall) {
  Script({
      {"DBSIZE"},
      {"MSET", "a", "1", "b", "2", "{t}x", "3", "{t}y", "4"},
      {"DBSIZE"},
      {"FLUSHDB"},
      {"DBSIZE"},
      {"MSET", "a", "1", "b", "2"},
      {"FLUSHALL"},
      {"DBSIZE"},
      {"GET", "a"},
      {"SET", "a", "1"},
      {"FLUSHDB", "ASYNC"},
      {"SET", "a", "1"},
      {"FLUSHALL", "SYNC"},
      {"SET", "a", "1"},
      {"FLUSHALL", "async"},
      {"FLUSHDB", "FOO"},
      {"FLUSHALL", "FOO"},
      {"FLUSHDB", "ASYNC", "SYNC"},
      {"DBSIZE", "x"},
      {"DBSIZE"},
  });
}

TEST_P(DiffKeyspaceTest, Randomkey) {
  Same({"RANDOMKEY"});
  Same({"SET", "only", "1"});
  for (int i = 0; i < 5; ++i) Same({"RANDOMKEY"});
  Same({"RANDOMKEY", "x"});
  for (int i = 0; i < 50; ++i) Same({"SET", "k" + std::to_string(i), "v"});
  std::vector<std::string> keys = Strings(rcc_->RawCmd({"KEYS", "*"}).get());
  for (int i = 0; i < 20; ++i) {
    std::string r = rcc_->Cmd({"RANDOMKEY"});
    ASSERT_EQ(r[0], '$') << r;
    EXPECT_NE(std::find(keys.begin(), keys.end(), r.substr(1)), keys.end()) << r;
  }
}

TEST_P(DiffKeyspaceTest, RenameAndRenamenx) {
  Script({
      {"RENAME", "missing", "x"},
      {"RENAME", "missing", "missing"},
      {"SET", "a", "1"},
      {"RENAME", "a", "a"},
      {"GET", "a"},
      {"RENAME", "a", "b"},
      {"MGET", "a", "b"},
      {"SET", "c", "3"},
      {"RENAME", "b", "c"},
      {"MGET", "b", "c"},
      {"RENAMENX", "missing", "x"},
      {"RENAMENX", "c", "c"},
      {"SET", "d", "4"},
      {"RENAMENX", "c", "d"},
      {"MGET", "c", "d"},
      {"RENAMENX", "c", "e"},
      {"MGET", "c", "e"},
      {"DBSIZE"},
      {"RENAME", "e"},
      {"RENAME", "e", "f", "g"},
      {"RENAMENX", "e"},
  });
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffKeyspaceTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
