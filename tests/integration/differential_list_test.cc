// List commands against redis-server 7.0 (1, 2 and 3 threads): every command and option
// of LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LLEN LRANGE LINDEX LSET LINSERT LREM LTRIM LPOS
// LMOVE RPOPLPUSH LMPOP, their errors, WRONGTYPE both ways, integers and binary elements,
// big lists (many blocks) edited at both ends and in the middle, LMOVE / RPOPLPUSH / LMPOP
// with keys on every pair of shards, the block-size settings under both names, TYPE,
// OBJECT ENCODING, SCAN TYPE, TTLs, RENAME, COPY and a list that empties ceasing to exist.
// Keyspace events are compared in tests/integration/test_lists_py.py.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class DiffListTest : public DiffTest {
 protected:
  void Fill(const std::string& key, int n, const std::string& prefix = "v") {
    for (int i = 0; i < n; i += 100) {
      Args cmd = {"RPUSH", key};
      for (int j = i; j < std::min(n, i + 100); ++j) {
        cmd.push_back(j % 3 == 0 ? absl::StrCat(j) : absl::StrCat(prefix, j));
      }
      Same(cmd);
    }
  }
};

TEST_P(DiffListTest, Arity) {
  for (const char* name :
       {"LPUSH", "RPUSH", "LPUSHX", "RPUSHX", "LPOP", "RPOP", "LLEN", "LRANGE", "LINDEX", "LSET",
        "LINSERT", "LREM", "LTRIM", "LPOS", "LMOVE", "RPOPLPUSH", "LMPOP"}) {
    Same({name});
    Same({name, "l"});
  }
  Script({{"LPOP", "l", "1", "2"},
          {"RPOP", "l", "1", "2"},
          {"LLEN", "l", "x"},
          {"LRANGE", "l", "0"},
          {"LINDEX", "l", "0", "1"},
          {"LSET", "l", "0"},
          {"LINSERT", "l", "BEFORE", "a"},
          {"LMOVE", "a", "b", "LEFT"},
          {"LMOVE", "a", "b", "LEFT", "LEFT", "x"},
          {"RPOPLPUSH", "a", "b", "c"},
          {"LMPOP", "1", "a"}});
}

TEST_P(DiffListTest, PushPopAndRead) {
  Script({
      {"LPUSH", "l", "a", "b", "c"},
      {"RPUSH", "l", "1", "2", "-3", "007", "-0", "", "bin\r\n\x01"},
      {"LRANGE", "l", "0", "-1"},
      {"LLEN", "l"},
      {"LPUSHX", "l", "x", "y"},
      {"RPUSHX", "l", "z"},
      {"LPUSHX", "missing", "x"},
      {"RPUSHX", "missing", "x"},
      {"EXISTS", "missing"},
      {"LINDEX", "l", "0"},
      {"LINDEX", "l", "-1"},
      {"LINDEX", "l", "5"},
      {"LINDEX", "l", "-100"},
      {"LINDEX", "l", "100"},
      {"LINDEX", "l", "x"},
      {"LINDEX", "missing", "0"},
      {"LINDEX", "missing", "x"},
      {"LRANGE", "l", "2", "4"},
      {"LRANGE", "l", "-3", "-1"},
      {"LRANGE", "l", "-100", "100"},
      {"LRANGE", "l", "5", "2"},
      {"LRANGE", "l", "100", "200"},
      {"LRANGE", "l", "0", "-100"},
      {"LRANGE", "l", "x", "1"},
      {"LRANGE", "l", "0", "1.5"},
      {"LRANGE", "missing", "0", "-1"},
      {"LRANGE", "missing", "x", "-1"},
      {"LPOP", "l"},
      {"RPOP", "l"},
      {"LPOP", "l", "2"},
      {"RPOP", "l", "3"},
      {"LPOP", "l", "0"},
      {"RPOP", "l", "-1"},
      {"LPOP", "l", "x"},
      {"LPOP", "missing"},
      {"LPOP", "missing", "0"},
      {"LPOP", "missing", "3"},
      {"RPOP", "missing", "-1"},
      {"LRANGE", "l", "0", "-1"},
      {"RPOP", "l", "100"},
      {"EXISTS", "l"},
      {"LLEN", "l"},
      {"LLEN", "missing"},
      {"RPUSH", "n", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "127",
       "128", "4095", "4096", "-4097", "524288", "67108864", "2147483648", "+5", " 5"},
      {"LRANGE", "n", "0", "-1"},
      {"LPOS", "n", "128"},
      {"LPOS", "n", "+5"},
      {"LREM", "n", "0", "4096"},
      {"LINSERT", "n", "AFTER", "127", "bin"},
      {"LRANGE", "n", "0", "-1"},
  });
}

TEST_P(DiffListTest, EditsInside) {
  Script({
      {"RPUSH", "l", "a", "b", "c", "b", "a", "b", "1", "2", "1"},
      {"LSET", "l", "0", "A"},
      {"LSET", "l", "-1", "one"},
      {"LSET", "l", "9", "x"},
      {"LSET", "l", "-10", "x"},
      {"LSET", "l", "x", "x"},
      {"LSET", "missing", "0", "x"},
      {"LSET", "missing", "x", "x"},
      {"LRANGE", "l", "0", "-1"},
      {"LINSERT", "l", "BEFORE", "b", "B0"},
      {"LINSERT", "l", "after", "b", "B1"},
      {"LINSERT", "l", "AFTER", "none", "x"},
      {"LINSERT", "l", "MIDDLE", "b", "x"},
      {"LINSERT", "missing", "BEFORE", "b", "x"},
      {"LINSERT", "missing", "MIDDLE", "b", "x"},
      {"LRANGE", "l", "0", "-1"},
      {"LREM", "l", "1", "b"},
      {"LREM", "l", "-1", "b"},
      {"LREM", "l", "0", "a"},
      {"LREM", "l", "0", "none"},
      {"LREM", "l", "x", "a"},
      {"LREM", "missing", "0", "a"},
      {"LREM", "missing", "x", "a"},
      {"LRANGE", "l", "0", "-1"},
      {"RPUSH", "m", "x", "y", "x", "y", "x"},
      {"LREM", "m", "-9223372036854775808", "x"},
      {"LRANGE", "m", "0", "-1"},
      {"LREM", "m", "0", "y"},
      {"EXISTS", "m"},
      {"RPUSH", "t", "0", "1", "2", "3", "4", "5", "6", "7"},
      {"LTRIM", "t", "1", "-2"},
      {"LRANGE", "t", "0", "-1"},
      {"LTRIM", "t", "-100", "100"},
      {"LTRIM", "t", "2", "1"},
      {"EXISTS", "t"},
      {"LTRIM", "missing", "0", "1"},
      {"LTRIM", "missing", "x", "1"},
      {"RPUSH", "t", "a", "b"},
      {"LTRIM", "t", "0", "x"},
      {"LTRIM", "t", "5", "10"},
      {"EXISTS", "t"},
  });
}

TEST_P(DiffListTest, Pos) {
  Script({
      {"RPUSH", "l", "a", "b", "c", "1", "2", "3", "c", "c", "1"},
      {"LPOS", "l", "c"},
      {"LPOS", "l", "1"},
      {"LPOS", "l", "none"},
      {"LPOS", "l", "c", "RANK", "2"},
      {"LPOS", "l", "c", "RANK", "-1"},
      {"LPOS", "l", "c", "RANK", "-3"},
      {"LPOS", "l", "c", "RANK", "4"},
      {"LPOS", "l", "c", "COUNT", "0"},
      {"LPOS", "l", "c", "COUNT", "2"},
      {"LPOS", "l", "c", "COUNT", "2", "RANK", "2"},
      {"LPOS", "l", "c", "COUNT", "0", "RANK", "-1"},
      {"LPOS", "l", "c", "COUNT", "5", "MAXLEN", "7"},
      {"LPOS", "l", "c", "MAXLEN", "2"},
      {"LPOS", "l", "c", "RANK", "-1", "MAXLEN", "1"},
      {"LPOS", "l", "none", "COUNT", "3"},
      {"LPOS", "l", "c", "RANK", "0"},
      {"LPOS", "l", "c", "RANK", "x"},
      {"LPOS", "l", "c", "RANK", "-9223372036854775808"},
      {"LPOS", "l", "c", "RANK", "-9223372036854775808", "COUNT", "1"},
      {"LPOS", "l", "c", "RANK", "9223372036854775807"},
      {"LPOS", "l", "c", "COUNT", "-1"},
      {"LPOS", "l", "c", "COUNT", "x"},
      {"LPOS", "l", "c", "MAXLEN", "-1"},
      {"LPOS", "l", "c", "MAXLEN", "x"},
      {"LPOS", "l", "c", "RANK"},
      {"LPOS", "l", "c", "BOGUS", "1"},
      {"LPOS", "missing", "c"},
      {"LPOS", "missing", "c", "COUNT", "1"},
      {"LPOS", "missing", "c", "RANK", "0"},
      {"SET", "s", "v"},
      {"LPOS", "s", "c"},
      {"LPOS", "s", "c", "RANK", "0"},
  });
}

TEST_P(DiffListTest, MoveAndMPop) {
  // Keys spread over every shard: each pair crosses shards for some thread counts.
  const std::vector<std::string> keys = {"a", "b", "c", "d", "e", "f", "{a}x"};
  for (const std::string& k : keys) Same({"RPUSH", k, k + "1", k + "2", k + "3"});
  for (const std::string& s : keys) {
    for (const std::string& d : keys) {
      Same({"LMOVE", s, d, "LEFT", "RIGHT"});
      Same({"LMOVE", s, d, "RIGHT", "LEFT"});
      Same({"RPOPLPUSH", s, d});
      Same({"LMOVE", s, d, "left", "left"});
      Same({"LMOVE", s, d, "right", "right"});
    }
  }
  for (const std::string& k : keys) Same({"LRANGE", k, "0", "-1"});
  Script({
      {"LMOVE", "a", "b", "UP", "LEFT"},
      {"LMOVE", "a", "b", "LEFT", "DOWN"},
      {"LMOVE", "missing", "b", "LEFT", "LEFT"},
      {"LMOVE", "missing", "b", "UP", "LEFT"},
      {"RPOPLPUSH", "missing", "b"},
      {"SET", "str", "v"},
      {"LMOVE", "str", "b", "LEFT", "LEFT"},
      {"LMOVE", "a", "str", "LEFT", "LEFT"},
      {"LMOVE", "missing", "str", "LEFT", "LEFT"},
      {"RPOPLPUSH", "a", "str"},
      {"RPOPLPUSH", "str", "a"},
      {"RPUSH", "one", "x"},
      {"LMOVE", "one", "one", "LEFT", "RIGHT"},
      {"RPOPLPUSH", "one", "one"},
      {"LRANGE", "one", "0", "-1"},
      {"LMOVE", "one", "two", "LEFT", "RIGHT"},
      {"EXISTS", "one"},
      {"LRANGE", "two", "0", "-1"},
  });
  Script({
      {"LMPOP", "2", "missing", "a", "LEFT"},
      {"LMPOP", "3", "missing", "b", "a", "RIGHT", "COUNT", "2"},
      {"LMPOP", "1", "c", "left", "count", "100"},
      {"EXISTS", "c"},
      {"LMPOP", "2", "missing", "c", "LEFT"},
      {"LMPOP", "2", "missing", "str", "LEFT"},
      {"LMPOP", "2", "str", "a", "LEFT"},
      {"LMPOP", "2", "d", "str", "LEFT"},
      {"LMPOP", "2", "d", "d", "RIGHT", "COUNT", "1"},
      {"LMPOP", "0", "a", "LEFT"},
      {"LMPOP", "-1", "a", "LEFT"},
      {"LMPOP", "x", "a", "LEFT"},
      {"LMPOP", "3", "a", "b", "LEFT"},
      {"LMPOP", "2", "a", "b", "MIDDLE"},
      {"LMPOP", "1", "a", "LEFT", "COUNT"},
      {"LMPOP", "1", "a", "LEFT", "COUNT", "0"},
      {"LMPOP", "1", "a", "LEFT", "COUNT", "-1"},
      {"LMPOP", "1", "a", "LEFT", "COUNT", "x"},
      {"LMPOP", "1", "a", "LEFT", "COUNT", "1", "COUNT", "1"},
      {"LMPOP", "1", "a", "LEFT", "BOGUS"},
      {"LMPOP", "1", "missing", "LEFT", "COUNT", "0"},
      {"LMPOP", "9223372036854775807", "a", "LEFT"},
      {"LMPOP", "99999999999999999999", "a", "LEFT"},
  });
  for (const std::string& k : keys) Same({"LRANGE", k, "0", "-1"});
}

TEST_P(DiffListTest, WrongType) {
  Script({{"SET", "s", "v"},
          {"HSET", "h", "f", "v"},
          {"RPUSH", "l", "a", "b"},
          {"LPUSH", "s", "x"},
          {"RPUSH", "h", "x"},
          {"LPUSHX", "s", "x"},
          {"RPUSHX", "s", "x"},
          {"LPOP", "s"},
          {"RPOP", "s", "2"},
          {"LPOP", "s", "x"},
          {"LLEN", "s"},
          {"LRANGE", "s", "0", "-1"},
          {"LRANGE", "s", "x", "-1"},
          {"LINDEX", "s", "0"},
          {"LINDEX", "s", "x"},
          {"LSET", "s", "0", "x"},
          {"LSET", "s", "x", "x"},
          {"LINSERT", "s", "BEFORE", "a", "b"},
          {"LINSERT", "s", "MIDDLE", "a", "b"},
          {"LREM", "s", "0", "a"},
          {"LREM", "s", "x", "a"},
          {"LTRIM", "s", "0", "1"},
          {"LTRIM", "s", "x", "1"},
          {"GET", "l"},
          {"HGET", "l", "f"},
          {"SADD", "l", "m"},
          {"ZADD", "l", "1", "m"},
          {"APPEND", "l", "x"},
          {"INCR", "l"},
          {"SET", "l", "v"},
          {"TYPE", "l"}});
}

TEST_P(DiffListTest, BigLists) {
  Fill("big", 5000);
  Fill("big2", 3000, "element-with-a-longer-prefix-");
  Script({{"LLEN", "big"},
          {"LRANGE", "big", "0", "99"},
          {"LRANGE", "big", "2490", "2530"},
          {"LRANGE", "big", "-120", "-1"},
          {"LINDEX", "big", "1234"},
          {"LINDEX", "big", "-1234"},
          {"LSET", "big", "2500", std::string(300, 'x')},
          {"LSET", "big", "-2", "short"},
          {"LINSERT", "big", "BEFORE", "v2000", "ins1"},
          {"LINSERT", "big", "AFTER", "4998", "ins2"},
          {"LREM", "big", "-2", "v4000"},
          {"LPOS", "big", "v4999"},
          {"LPOS", "big", "v4001", "RANK", "-1"},
          {"LPOP", "big", "150"},
          {"RPOP", "big", "150"},
          {"LTRIM", "big", "100", "-100"},
          {"LLEN", "big"},
          {"LRANGE", "big", "1000", "1100"},
          {"LMOVE", "big", "big2", "LEFT", "RIGHT"},
          {"LMOVE", "big2", "big", "LEFT", "RIGHT"},
          {"RPUSH", "big", "tail"},
          {"LPUSH", "big", "head"},
          {"LRANGE", "big", "0", "5"},
          {"LRANGE", "big", "-5", "-1"},
          {"LREM", "big2", "0", "element-with-a-longer-prefix-1"},
          {"LRANGE", "big2", "0", "20"},
          {"LTRIM", "big2", "-10", "-1"},
          {"LRANGE", "big2", "0", "-1"}});
  for (int i = 0; i < 4800; i += 700)
    Same({"LRANGE", "big", absl::StrCat(i), absl::StrCat(i + 40)});
  Same({"LPOP", "big", "100000"});
  Same({"EXISTS", "big"});
}

TEST_P(DiffListTest, SettingsAndKeyspace) {
  Script({{"CONFIG", "GET", "list-max-listpack-size"},
          {"CONFIG", "GET", "list-max-ziplist-size"},
          {"CONFIG", "GET", "list-compress-depth"},
          {"CONFIG", "SET", "list-max-ziplist-size", "3"},
          {"CONFIG", "GET", "list-max-listpack-size"},
          {"CONFIG", "SET", "list-max-listpack-size", "x"},
          {"CONFIG", "SET", "list-compress-depth", "-1"},
          {"CONFIG", "SET", "list-compress-depth", "0"}});
  Fill("small-blocks", 40);
  Script({{"LRANGE", "small-blocks", "0", "-1"},
          {"LINSERT", "small-blocks", "AFTER", "v5", "x"},
          {"LSET", "small-blocks", "10", std::string(100, 'y')},
          {"LREM", "small-blocks", "0", "v7"},
          {"LRANGE", "small-blocks", "0", "-1"},
          {"CONFIG", "SET", "list-max-listpack-size", "-5"},
          {"LPUSH", "small-blocks", "z"},
          {"CONFIG", "SET", "list-max-listpack-size", "-2"},
          {"OBJECT", "ENCODING", "small-blocks"},
          {"RPUSH", "l", "a", "b"},
          {"OBJECT", "ENCODING", "l"},
          {"TYPE", "l"},
          {"EXPIRE", "l", "100"},
          {"RPUSH", "l", "c"},
          {"TTL", "l"},
          {"LPOP", "l"},
          {"TTL", "l"},
          {"RENAME", "l", "l2"},
          {"LRANGE", "l2", "0", "-1"},
          {"TTL", "l2"},
          {"EXISTS", "l"},
          {"COPY", "l2", "l3"},
          {"RPUSH", "l3", "more"},
          {"LRANGE", "l2", "0", "-1"},
          {"LRANGE", "l3", "0", "-1"},
          {"TTL", "l3"},
          {"COPY", "small-blocks", "{small-blocks}c"},
          {"LRANGE", "{small-blocks}c", "0", "-1"},
          {"SET", "s", "v"},
          {"RENAME", "s", "l2"},
          {"TYPE", "l2"},
          {"RPUSH", "l4", "a"},
          {"UNLINK", "l4"},
          {"EXISTS", "l4"}});
  // list-compress-depth: only 0, which Redis accepts too.
  EXPECT_NE(rcc_->Cmd({"CONFIG", "SET", "list-compress-depth", "1"}).find("ERR"),
            std::string::npos);
  Same({"RPUSH", "l5", "x"});
  std::vector<std::string> keys = ScanAll(*rcc_, {"TYPE", "list"});
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"l3", "l5", "small-blocks", "{small-blocks}c"}));
  std::string usage = rcc_->Cmd({"MEMORY", "USAGE", "l5"});
  EXPECT_EQ(usage.find("ERR"), std::string::npos) << usage;
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffListTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
