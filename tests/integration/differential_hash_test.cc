// Hash commands against redis-server 7.0 (1, 2 and 3 threads): every command and option
// of HSET HSETNX HMSET HGET HMGET HGETALL HDEL HEXISTS HLEN HKEYS HVALS HSTRLEN HINCRBY
// HINCRBYFLOAT HRANDFIELD HSCAN, their errors, WRONGTYPE both ways, the listpack/hashtable
// conversion at Redis's thresholds (and the settings under both names), TYPE, SCAN TYPE,
// TTLs, RENAME and a hash that empties ceasing to exist. A small hash answers in insertion
// order as a listpack does, so it is compared exactly; a big one's order is unspecified
// and is compared sorted.

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class DiffHashTest : public DiffTest {
 protected:
  // Field/value pairs of a flat reply, sorted.
  static std::vector<std::pair<std::string, std::string>> Pairs(const std::vector<std::string>& v) {
    std::vector<std::pair<std::string, std::string>> out;
    for (size_t i = 0; i + 1 < v.size(); i += 2) out.emplace_back(v[i], v[i + 1]);
    std::sort(out.begin(), out.end());
    return out;
  }
  // Every field/value a full HSCAN returns, deduplicated.
  std::set<std::pair<std::string, std::string>> HScanAll(Client& c, const std::string& key,
                                                         const Args& opts) {
    std::set<std::pair<std::string, std::string>> out;
    std::string cursor = "0";
    for (int calls = 0; calls < 100000; ++calls) {
      Args cmd = {"HSCAN", key, cursor};
      cmd.insert(cmd.end(), opts.begin(), opts.end());
      Client::ReplyPtr r = c.RawCmd(cmd);
      EXPECT_TRUE(r && r->type == REDIS_REPLY_ARRAY && r->elements == 2);
      if (!r || r->elements != 2) return out;
      cursor.assign(r->element[0]->str, r->element[0]->len);
      for (const auto& p : Pairs(Strings(r->element[1]))) out.insert(p);
      if (cursor == "0") return out;
    }
    ADD_FAILURE() << "HSCAN did not finish";
    return out;
  }
  void Fill(const std::string& key, int n, const std::string& value = "v") {
    for (int i = 0; i < n; i += 50) {
      Args cmd = {"HSET", key};
      for (int j = i; j < std::min(n, i + 50); ++j) {
        cmd.push_back(absl::StrCat("f", j));
        cmd.push_back(absl::StrCat(value, j));
      }
      Same(cmd);
    }
  }
};

TEST_P(DiffHashTest, Arity) {
  for (const char* name :
       {"HSET", "HSETNX", "HMSET", "HGET", "HMGET", "HGETALL", "HDEL", "HEXISTS", "HLEN", "HKEYS",
        "HVALS", "HSTRLEN", "HINCRBY", "HINCRBYFLOAT", "HRANDFIELD", "HSCAN"}) {
    Same({name});
    Same({name, "h"});
  }
  Script({{"HSET", "h", "f"},
          {"HSET", "h", "f", "v", "g"},
          {"HMSET", "h", "f", "v", "g"},
          {"HSETNX", "h", "f"},
          {"HGET", "h", "f", "x"},
          {"HINCRBY", "h", "f"},
          {"HEXISTS", "h", "f", "g"},
          {"HLEN", "h", "x"}});
}

TEST_P(DiffHashTest, WritesAndReads) {
  Script({
      {"HSET", "h", "a", "1", "b", "2", "c", "3"},
      {"HSET", "h", "a", "10", "d", "4"},
      {"HSET", "h", "b", "2"},
      {"HMSET", "h", "e", "5", "a", "11"},
      {"HGETALL", "h"},
      {"HKEYS", "h"},
      {"HVALS", "h"},
      {"HLEN", "h"},
      {"HGET", "h", "a"},
      {"HGET", "h", "zz"},
      {"HGET", "missing", "a"},
      {"HMGET", "h", "a", "zz", "b", "a"},
      {"HMGET", "missing", "a", "b"},
      {"HEXISTS", "h", "a"},
      {"HEXISTS", "h", "zz"},
      {"HEXISTS", "missing", "a"},
      {"HSTRLEN", "h", "a"},
      {"HSTRLEN", "h", "zz"},
      {"HSTRLEN", "missing", "zz"},
      {"HSETNX", "h", "a", "x"},
      {"HSETNX", "h", "n", "x"},
      {"HSETNX", "fresh", "n", "x"},
      {"HSET", "h", "", ""},
      {"HGET", "h", ""},
      {"HSET", "h", "bin\r\n\x01", "val\x00ue"},
      {"HGETALL", "h"},
      {"HDEL", "h", "a", "zz", "a", "b"},
      {"HDEL", "h", "zz"},
      {"HDEL", "missing", "a"},
      {"HGETALL", "h"},
      {"HGETALL", "missing"},
      {"HKEYS", "missing"},
      {"HVALS", "missing"},
      {"HLEN", "missing"},
      // A hash left empty is gone.
      {"HSET", "gone", "a", "1", "b", "2"},
      {"HDEL", "gone", "a", "b"},
      {"EXISTS", "gone"},
      {"TYPE", "gone"},
      {"TYPE", "h"},
  });
}

TEST_P(DiffHashTest, Increments) {
  Script({
      {"HINCRBY", "h", "n", "5"},
      {"HINCRBY", "h", "n", "-12"},
      {"HINCRBY", "h", "n", "x"},
      {"HINCRBY", "h", "n", "1.5"},
      {"HINCRBY", "h", "n", "99999999999999999999"},
      {"HSET", "h", "s", "abc", "z", "007", "big", "9223372036854775806", "neg",
       "-9223372036854775807"},
      {"HINCRBY", "h", "s", "1"},
      {"HINCRBY", "h", "z", "1"},
      {"HINCRBY", "h", "big", "1"},
      {"HINCRBY", "h", "big", "1"},
      {"HINCRBY", "h", "neg", "-1"},
      {"HINCRBY", "h", "neg", "-1"},
      {"HGET", "h", "big"},
      {"HINCRBYFLOAT", "h", "f", "1.5"},
      {"HINCRBYFLOAT", "h", "f", "0.1"},
      {"HINCRBYFLOAT", "h", "f", "-1.6"},
      {"HINCRBYFLOAT", "h", "f", "1e10"},
      {"HINCRBYFLOAT", "h", "f", "3.0e3"},
      {"HINCRBYFLOAT", "h", "f", "abc"},
      {"HINCRBYFLOAT", "h", "f", "inf"},
      {"HINCRBYFLOAT", "h", "f", "nan"},
      {"HINCRBYFLOAT", "h", "f", "1e400"},
      {"HINCRBYFLOAT", "h", "s", "1"},
      {"HINCRBYFLOAT", "h", "n", "0.25"},
      {"HINCRBYFLOAT", "h", "big", "1"},
      {"HSET", "h", "huge", "1.7e308"},
      {"HINCRBYFLOAT", "h", "huge", "1.7e308"},
      {"HINCRBYFLOAT", "newkey", "x", "2.5"},
      {"HGETALL", "newkey"},
  });
  // The long float made it a hashtable: its order is unspecified.
  EXPECT_EQ(Pairs(Strings(rcc_->RawCmd({"HGETALL", "h"}).get())),
            Pairs(Strings(redisc_->RawCmd({"HGETALL", "h"}).get())));
}

TEST_P(DiffHashTest, WrongType) {
  Script({{"SET", "s", "v"}, {"ZADD", "z", "1", "m"}, {"HSET", "h", "f", "v"}});
  for (const char* key : {"s", "z"}) {
    Script({{"HSET", key, "f", "v"},
            {"HSETNX", key, "f", "v"},
            {"HMSET", key, "f", "v"},
            {"HGET", key, "f"},
            {"HMGET", key, "f"},
            {"HGETALL", key},
            {"HDEL", key, "f"},
            {"HEXISTS", key, "f"},
            {"HLEN", key},
            {"HKEYS", key},
            {"HVALS", key},
            {"HSTRLEN", key, "f"},
            {"HINCRBY", key, "f", "1"},
            {"HINCRBYFLOAT", key, "f", "1"},
            {"HRANDFIELD", key},
            {"HRANDFIELD", key, "2"},
            {"HSCAN", key, "0"}});
  }
  Script({{"GET", "h"},
          {"APPEND", "h", "x"},
          {"INCR", "h"},
          {"ZADD", "h", "1", "m"},
          {"ZCARD", "h"},
          {"SADD", "h", "m"},
          {"SMEMBERS", "h"}});
}

TEST_P(DiffHashTest, EncodingThresholds) {
  Fill("h", 512);
  Same({"OBJECT", "ENCODING", "h"});
  Same({"HSET", "h", "f511", "changed"});
  Same({"OBJECT", "ENCODING", "h"});
  Same({"HSET", "h", "f512", "v"});
  Same({"OBJECT", "ENCODING", "h"});
  SameSorted({"HKEYS", "h"});
  // A field or value over 64 bytes converts before it is set, even when HSETNX then
  // sets nothing.
  const std::string b64(64, 'x'), b65(65, 'x');
  Script({{"HSET", "v", "a", b64, b64, "b"},
          {"OBJECT", "ENCODING", "v"},
          {"HSET", "v", "c", b65},
          {"OBJECT", "ENCODING", "v"},
          {"HSET", "w", b65, "1"},
          {"OBJECT", "ENCODING", "w"},
          {"HSET", "x", "a", "1"},
          {"HSETNX", "x", "a", b65},
          {"OBJECT", "ENCODING", "x"},
          {"HSET", "y", "a", "1"},
          {"HINCRBY", "y", b65, "1"},
          {"OBJECT", "ENCODING", "y"},
          {"HSET", "y2", "a", "1"},
          {"HINCRBYFLOAT", "y2", b65, "1"},
          {"OBJECT", "ENCODING", "y2"}});
  // The settings, under both names; a hash stays a hashtable once it is one.
  Script({{"CONFIG", "SET", "hash-max-listpack-entries", "3"},
          {"CONFIG", "GET", "hash-max-ziplist-entries"},
          {"HSET", "t", "a", "1", "b", "2", "c", "3"},
          {"OBJECT", "ENCODING", "t"},
          {"HSET", "t", "d", "4"},
          {"OBJECT", "ENCODING", "t"},
          {"HDEL", "t", "a", "b", "c"},
          {"OBJECT", "ENCODING", "t"},
          {"CONFIG", "SET", "hash-max-ziplist-value", "4"},
          {"CONFIG", "GET", "hash-max-listpack-value"},
          {"HSET", "u", "abcd", "1"},
          {"OBJECT", "ENCODING", "u"},
          {"HSET", "u", "abcde", "1"},
          {"OBJECT", "ENCODING", "u"},
          {"CONFIG", "SET", "hash-max-listpack-value", "1kb"},
          {"CONFIG", "GET", "hash-max-listpack-value"},
          {"CONFIG", "SET", "hash-max-listpack-value", "x"},
          {"CONFIG", "SET", "hash-max-listpack-entries", "-1"},
          {"CONFIG", "SET", "hash-max-listpack-entries", "0"},
          {"HSET", "zero", "a", "1"},
          {"OBJECT", "ENCODING", "zero"}});
}

TEST_P(DiffHashTest, BigHash) {
  Fill("h", 3000);
  Same({"HLEN", "h"});
  Same({"OBJECT", "ENCODING", "h"});
  EXPECT_EQ(Pairs(Strings(rcc_->RawCmd({"HGETALL", "h"}).get())),
            Pairs(Strings(redisc_->RawCmd({"HGETALL", "h"}).get())));
  SameSorted({"HVALS", "h"});
  for (int i = 0; i < 3000; i += 7) Same({"HGET", "h", absl::StrCat("f", i)});
  Args del = {"HDEL", "h"};
  for (int i = 0; i < 3000; i += 2) del.push_back(absl::StrCat("f", i));
  Same(del);
  Same({"HLEN", "h"});
  SameSorted({"HKEYS", "h"});
  EXPECT_EQ(HScanAll(*rcc_, "h", {}), HScanAll(*redisc_, "h", {}));
  EXPECT_EQ(HScanAll(*rcc_, "h", {"MATCH", "f1*", "COUNT", "100"}),
            HScanAll(*redisc_, "h", {"MATCH", "f1*", "COUNT", "100"}));
}

TEST_P(DiffHashTest, RandField) {
  Script({{"HSET", "h", "a", "1", "b", "2", "c", "3"},
          {"HRANDFIELD", "h", "0"},
          {"HRANDFIELD", "h", "3"},
          {"HRANDFIELD", "h", "5", "WITHVALUES"},
          {"HRANDFIELD", "h", "x"},
          {"HRANDFIELD", "h", "1", "WITHVALUES", "x"},
          {"HRANDFIELD", "h", "1", "x"},
          {"HRANDFIELD", "h", "-9223372036854775808"},
          {"HRANDFIELD", "h", "-9223372036854775807", "WITHVALUES"},
          {"HRANDFIELD", "h", "4611686018427387904", "WITHVALUES"},
          {"HRANDFIELD", "missing"},
          {"HRANDFIELD", "missing", "3"},
          {"HRANDFIELD", "missing", "-3", "WITHVALUES"}});
  // Random picks: their shape and membership.
  for (const Args& cmd : std::vector<Args>{{"HRANDFIELD", "h", "2"},
                                           {"HRANDFIELD", "h", "-7"},
                                           {"HRANDFIELD", "h", "-4", "WITHVALUES"}}) {
    std::vector<std::string> got = Strings(rcc_->RawCmd(cmd).get());
    const bool values = cmd.size() == 4;
    const size_t n = std::stoul(cmd[2][0] == '-' ? cmd[2].substr(1) : cmd[2]);
    ASSERT_EQ(got.size(), values ? 2 * n : n) << Describe(cmd);
    std::set<std::string> distinct;
    for (size_t i = 0; i < got.size(); i += values ? 2 : 1) {
      EXPECT_TRUE(got[i] == "a" || got[i] == "b" || got[i] == "c") << got[i];
      if (values) {
        EXPECT_EQ(got[i + 1], got[i] == "a" ? "1" : got[i] == "b" ? "2" : "3");
      }
      distinct.insert(got[i]);
    }
    if (cmd[2][0] != '-') {
      EXPECT_EQ(distinct.size(), n);
    }
  }
  std::string one = rcc_->Cmd({"HRANDFIELD", "h"});
  EXPECT_TRUE(one == "$a" || one == "$b" || one == "$c") << one;
  // Distinct picks from a big hash.
  Fill("big", 1000);
  std::vector<std::string> got = Strings(rcc_->RawCmd({"HRANDFIELD", "big", "10"}).get());
  EXPECT_EQ(std::set<std::string>(got.begin(), got.end()).size(), 10u);
  got = Strings(rcc_->RawCmd({"HRANDFIELD", "big", "600"}).get());
  EXPECT_EQ(std::set<std::string>(got.begin(), got.end()).size(), 600u);
}

TEST_P(DiffHashTest, Scan) {
  Script({{"HSET", "h", "a1", "1", "b1", "2", "a2", "3"},
          {"HSCAN", "h", "0"},
          {"HSCAN", "h", "0", "MATCH", "a*"},
          {"HSCAN", "h", "0", "COUNT", "1"},
          {"HSCAN", "h", "0", "COUNT", "0"},
          {"HSCAN", "h", "0", "COUNT", "x"},
          {"HSCAN", "h", "0", "MATCH"},
          {"HSCAN", "h", "0", "TYPE", "hash"},
          {"HSCAN", "h", "x"},
          {"HSCAN", "h", "-1"},
          {"HSCAN", "missing", "0"},
          {"HSCAN", "missing", "x"}});
}

TEST_P(DiffHashTest, Keyspace) {
  Script({{"HSET", "h", "f", "v"},
          {"SET", "s", "v"},
          {"ZADD", "z", "1", "m"},
          {"TYPE", "h"},
          {"OBJECT", "ENCODING", "h"},
          {"EXPIRE", "h", "100"},
          {"TTL", "h"},
          {"HSET", "h", "g", "w"},
          {"TTL", "h"},
          {"HDEL", "h", "g"},
          {"TTL", "h"},
          {"RENAME", "h", "h2"},
          {"HGETALL", "h2"},
          {"TTL", "h2"},
          {"EXISTS", "h"},
          {"PERSIST", "h2"},
          {"TTL", "h2"},
          {"RENAME", "s", "h2"},
          {"TYPE", "h2"},
          {"HSET", "h3", "a", "1"},
          {"RENAMENX", "h3", "z"},
          {"DEL", "h3"},
          {"HSET", "h4", "a", "1"},
          {"UNLINK", "h4"},
          {"EXISTS", "h4"}});
  // COPY of each encoding: the copy is equal and separate.
  Fill("bigh", 600);
  Script({{"HSET", "small", "b", "1", "a", "2"},
          {"COPY", "small", "small2"},
          {"HGETALL", "small2"},
          {"OBJECT", "ENCODING", "small2"},
          {"COPY", "bigh", "bigh2"},
          {"HDEL", "bigh2", "f1"},
          {"HLEN", "bigh"},
          {"HLEN", "bigh2"},
          {"OBJECT", "ENCODING", "bigh2"}});
  SameSorted({"HKEYS", "bigh2"});
  Same({"HSET", "hs1", "a", "1"});
  Same({"HSET", "hs2", "a", "1"});
  std::vector<std::string> keys = ScanAll(*rcc_, {"TYPE", "hash"});
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"bigh", "bigh2", "hs1", "hs2", "small", "small2"}));
  std::string usage = rcc_->Cmd({"MEMORY", "USAGE", "hs1"});
  EXPECT_EQ(usage.find("ERR"), std::string::npos) << usage;
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffHashTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
