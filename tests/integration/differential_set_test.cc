// Set commands against redis-server 7.0 (1, 2 and 3 threads): SADD SREM SISMEMBER
// SMISMEMBER SMEMBERS SCARD SPOP SRANDMEMBER SMOVE SINTER SINTERCARD SUNION SDIFF
// SINTERSTORE SUNIONSTORE SDIFFSTORE SSCAN, their errors, WRONGTYPE, the intset/hashtable
// conversion at set-max-intset-entries, and the multi-key commands with keys spread over
// every shard. An intset answers in ascending order, as Redis's does, and is compared
// exactly; a hashtable's order is unspecified and is compared sorted; random picks are
// checked by shape and membership.

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class DiffSetTest : public DiffTest {
 protected:
  std::set<std::string> Members(Client& c, const std::string& key) {
    std::vector<std::string> v = Strings(c.RawCmd({"SMEMBERS", key}).get());
    return {v.begin(), v.end()};
  }
};

TEST_P(DiffSetTest, Arity) {
  for (const char* name : {"SADD", "SREM", "SISMEMBER", "SMISMEMBER", "SMEMBERS", "SCARD", "SPOP",
                           "SRANDMEMBER", "SMOVE", "SINTER", "SINTERCARD", "SUNION", "SDIFF",
                           "SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE", "SSCAN"}) {
    Same({name});
  }
  Script({{"SADD", "s"},
          {"SREM", "s"},
          {"SISMEMBER", "s"},
          {"SISMEMBER", "s", "a", "b"},
          {"SMISMEMBER", "s"},
          {"SCARD", "s", "x"},
          {"SMOVE", "a", "b"},
          {"SINTERSTORE", "d"},
          {"SSCAN", "s"}});
}

TEST_P(DiffSetTest, OneKey) {
  Script({
      {"SADD", "i", "3", "1", "2", "-5", "1"},
      {"SMEMBERS", "i"},
      {"OBJECT", "ENCODING", "i"},
      {"SADD", "i", "007", "+1", "9223372036854775807", "-9223372036854775808"},
      {"OBJECT", "ENCODING", "i"},
      {"SADD", "j", "10", "-3", "9223372036854775807"},
      {"SMEMBERS", "j"},
      {"SCARD", "i"},
      {"SISMEMBER", "j", "10"},
      {"SISMEMBER", "j", "010"},
      {"SISMEMBER", "j", "x"},
      {"SISMEMBER", "missing", "x"},
      {"SMISMEMBER", "j", "10", "x", "-3"},
      {"SMISMEMBER", "missing", "a", "b"},
      {"SREM", "j", "10", "x", "10"},
      {"SREM", "missing", "a"},
      {"SMEMBERS", "j"},
      {"SMEMBERS", "missing"},
      {"SCARD", "missing"},
      {"SADD", "s", "a", "1"},
      {"OBJECT", "ENCODING", "s"},
      {"SADD", "s", "a"},
      {"SREM", "s", "a", "1"},
      {"EXISTS", "s"},
      {"TYPE", "i"},
      {"SADD", "e", ""},
      {"SISMEMBER", "e", ""},
      {"SCARD", "e"},
  });
  SameSorted({"SMEMBERS", "i"});
}

TEST_P(DiffSetTest, WrongType) {
  Script({{"SET", "str", "v"}, {"HSET", "h", "f", "v"}, {"SADD", "s", "m"}});
  for (const char* key : {"str", "h"}) {
    Script({{"SADD", key, "m"},
            {"SREM", key, "m"},
            {"SISMEMBER", key, "m"},
            {"SMISMEMBER", key, "m"},
            {"SMEMBERS", key},
            {"SCARD", key},
            {"SPOP", key},
            {"SPOP", key, "2"},
            {"SRANDMEMBER", key},
            {"SRANDMEMBER", key, "2"},
            {"SSCAN", key, "0"},
            {"SINTER", "s", key},
            {"SINTER", "missing", key},
            {"SUNION", "s", key},
            {"SDIFF", "s", key},
            {"SINTERCARD", "2", "s", key},
            {"SINTERSTORE", "d", "s", key},
            {"SMOVE", "s", key, "m"},
            {"SMOVE", key, "s", "m"},
            {"SMOVE", "missing", key, "m"}});
  }
  Script({{"GET", "s"},
          {"HGET", "s", "f"},
          {"ZCARD", "s"},
          {"SINTERSTORE", "str", "s"},
          {"TYPE", "str"}});
}

TEST_P(DiffSetTest, Encodings) {
  Args add = {"SADD", "i"};
  for (int n = 0; n < 512; ++n) add.push_back(std::to_string(n * 3 - 700));
  Same(add);
  Script({{"OBJECT", "ENCODING", "i"},
          {"SMEMBERS", "i"},
          {"SADD", "i", "5000"},
          {"OBJECT", "ENCODING", "i"},
          {"SREM", "i", "5000", "-700"},
          {"OBJECT", "ENCODING", "i"}});
  SameSorted({"SMEMBERS", "i"});
  Script({{"CONFIG", "SET", "set-max-intset-entries", "3"},
          {"CONFIG", "GET", "set-max-intset-entries"},
          {"SADD", "k", "1", "2", "3"},
          {"OBJECT", "ENCODING", "k"},
          {"SADD", "k", "4"},
          {"OBJECT", "ENCODING", "k"},
          {"CONFIG", "SET", "set-max-intset-entries", "x"},
          {"CONFIG", "SET", "set-max-intset-entries", "-1"},
          {"CONFIG", "SET", "set-max-intset-entries", "0"},
          {"SADD", "z", "1"},
          {"OBJECT", "ENCODING", "z"}});
  // Strings: small and big, compared sorted.
  Args strs = {"SADD", "strs"};
  for (int n = 0; n < 2000; ++n) strs.push_back(absl::StrCat("m", n));
  Same(strs);
  Script({{"SCARD", "strs"}, {"OBJECT", "ENCODING", "strs"}, {"SISMEMBER", "strs", "m1999"}});
  SameSorted({"SMEMBERS", "strs"});
  Same({"SADD", "long", std::string(100, 'x'), "a"});
  SameSorted({"SMEMBERS", "long"});
}

TEST_P(DiffSetTest, PopAndRandom) {
  Script({{"SADD", "i", "5", "3", "1"},
          {"SPOP", "missing"},
          {"SPOP", "missing", "2"},
          {"SPOP", "i", "0"},
          {"SPOP", "i", "-1"},
          {"SPOP", "i", "x"},
          {"SPOP", "i", "1", "2"},
          {"SRANDMEMBER", "missing"},
          {"SRANDMEMBER", "missing", "3"},
          {"SRANDMEMBER", "i", "0"},
          {"SRANDMEMBER", "i", "3"},
          {"SRANDMEMBER", "i", "10"},
          {"SRANDMEMBER", "i", "x"},
          {"SRANDMEMBER", "i", "1", "2"},
          {"SRANDMEMBER", "i", "-9223372036854775808"},
          {"SPOP", "i", "10"},
          {"EXISTS", "i"}});
  const std::set<std::string> all = {"a", "b", "c", "d", "e"};
  Same({"SADD", "s", "a", "b", "c", "d", "e"});
  std::vector<std::string> r = Strings(rcc_->RawCmd({"SRANDMEMBER", "s", "3"}).get());
  EXPECT_EQ(std::set<std::string>(r.begin(), r.end()).size(), 3u);
  r = Strings(rcc_->RawCmd({"SRANDMEMBER", "s", "-20"}).get());
  EXPECT_EQ(r.size(), 20u);
  for (const auto& m : r) EXPECT_TRUE(all.count(m)) << m;
  // SPOP on ringcache only, then the same members off redis so both stay in step.
  r = Strings(rcc_->RawCmd({"SPOP", "s", "2"}).get());
  ASSERT_EQ(r.size(), 2u);
  Args rem = {"SREM", "s"};
  for (const auto& m : r) {
    EXPECT_TRUE(all.count(m)) << m;
    rem.push_back(m);
  }
  redisc_->Cmd(rem);
  Client::ReplyPtr one = rcc_->RawCmd({"SPOP", "s"});
  ASSERT_EQ(one->type, REDIS_REPLY_STRING);
  redisc_->Cmd({"SREM", "s", std::string(one->str, one->len)});
  SameSorted({"SMEMBERS", "s"});
  Same({"SCARD", "s"});
  // A big set: distinct picks and pops.
  Args big = {"SADD", "big"};
  for (int n = 0; n < 1000; ++n) big.push_back(absl::StrCat("x", n));
  Same(big);
  r = Strings(rcc_->RawCmd({"SRANDMEMBER", "big", "50"}).get());
  EXPECT_EQ(std::set<std::string>(r.begin(), r.end()).size(), 50u);
  r = Strings(rcc_->RawCmd({"SPOP", "big", "700"}).get());
  EXPECT_EQ(std::set<std::string>(r.begin(), r.end()).size(), 700u);
  EXPECT_EQ(rcc_->Cmd({"SCARD", "big"}), ":300");
}

TEST_P(DiffSetTest, MultiKeyAcrossShards) {
  std::vector<std::string> k = Spread("k", 4);
  std::vector<std::string> d = Spread("d", 3);
  Script({{"SADD", k[0], "1", "2", "3", "4", "5"},
          {"SADD", k[1], "4", "5", "6", "2"},
          {"SADD", k[2], "a", "b", "4", "2"},
          {"SINTER", k[0], k[1]},
          {"SINTER", k[0], k[1], k[2]},
          {"SINTER", k[0], "missing"},
          {"SINTER", k[0]},
          {"SUNION", k[0], k[1]},
          {"SUNION", "missing", k[1]},
          {"SDIFF", k[0], k[1]},
          {"SDIFF", k[0], k[1], k[2]},
          {"SDIFF", "missing", k[1]},
          {"SDIFF", k[0], "missing"},
          {"SINTERCARD", "2", k[0], k[1]},
          {"SINTERCARD", "3", k[0], k[1], k[2], "LIMIT", "1"},
          {"SINTERCARD", "2", k[0], k[1], "LIMIT", "0"},
          {"SINTERCARD", "2", k[0], "missing"},
          {"SINTERCARD", "0", k[0]},
          {"SINTERCARD", "x", k[0]},
          {"SINTERCARD", "3", k[0], k[1]},
          {"SINTERCARD", "1", k[0], "LIMIT"},
          {"SINTERCARD", "1", k[0], "LIMIT", "-1"},
          {"SINTERCARD", "1", k[0], "LIMIT", "x"},
          {"SINTERCARD", "1", k[0], "FOO", "1"},
          {"SINTERSTORE", d[0], k[0], k[1]},
          {"SMEMBERS", d[0]},
          {"OBJECT", "ENCODING", d[0]},
          {"SUNIONSTORE", d[1], k[0], k[1]},
          {"SMEMBERS", d[1]},
          {"SDIFFSTORE", d[2], k[0], k[1]},
          {"SMEMBERS", d[2]},
          {"SINTERSTORE", d[2], k[0], k[1], k[2]},
          {"OBJECT", "ENCODING", d[2]},
          {"SINTERSTORE", d[2], k[0], "missing"},
          {"EXISTS", d[2]},
          {"SET", d[2], "str"},
          {"EXPIRE", d[2], "100"},
          {"SUNIONSTORE", d[2], k[0]},
          {"TYPE", d[2]},
          {"TTL", d[2]},
          {"SDIFFSTORE", d[2], k[0], k[0]},
          {"EXISTS", d[2]},
          {"SUNIONSTORE", k[0], k[0], k[1]},
          {"SMEMBERS", k[0]},
          {"SMOVE", k[0], k[3], "1"},
          {"SMOVE", k[0], k[3], "1"},
          {"SMOVE", k[0], k[3], "zz"},
          {"SMOVE", k[0], k[0], "2"},
          {"SMOVE", k[0], k[0], "zz"},
          {"SMOVE", "missing", k[3], "1"},
          {"SMOVE", k[3], k[2], "1"},
          {"EXISTS", k[3]},
          {"OBJECT", "ENCODING", k[2]},
          {"SMEMBERS", k[0]}});
  for (const auto& cmd : std::vector<Args>{{"SINTER", k[0], k[2]},
                                           {"SUNION", k[0], k[1], k[2]},
                                           {"SDIFF", k[2], k[0]},
                                           {"SMEMBERS", k[2]}}) {
    SameSorted(cmd);
  }
}

TEST_P(DiffSetTest, Scan) {
  Script({{"SADD", "i", "3", "1", "2"},
          {"SSCAN", "i", "0"},
          {"SSCAN", "i", "0", "MATCH", "1*"},
          {"SSCAN", "i", "0", "COUNT", "0"},
          {"SSCAN", "i", "x"},
          {"SSCAN", "missing", "0"}});
  Args big = {"SADD", "big"};
  for (int n = 0; n < 3000; ++n) big.push_back(absl::StrCat("m", n));
  Same(big);
  for (Client* c : {rcc_.get(), redisc_.get()}) {
    std::set<std::string> seen;
    std::string cursor = "0";
    do {
      Client::ReplyPtr r = c->RawCmd({"SSCAN", "big", cursor, "COUNT", "50"});
      ASSERT_EQ(r->elements, 2u);
      cursor.assign(r->element[0]->str, r->element[0]->len);
      for (auto& m : Strings(r->element[1])) seen.insert(m);
    } while (cursor != "0");
    EXPECT_EQ(seen.size(), 3000u);
  }
  Same({"SADD", "ss1", "a"});
  std::vector<std::string> keys = ScanAll(*rcc_, {"TYPE", "set"});
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"big", "i", "ss1"}));
}

TEST_P(DiffSetTest, Keyspace) {
  Script({{"SADD", "s", "a", "b"},
          {"EXPIRE", "s", "100"},
          {"SADD", "s", "c"},
          {"TTL", "s"},
          {"RENAME", "s", "t"},
          {"TTL", "t"},
          {"SCARD", "t"},
          {"SREM", "t", "a", "b", "c"},
          {"EXISTS", "t"},
          {"SADD", "u", "1"},
          {"DEL", "u"},
          {"SADD", "v", "x"},
          {"UNLINK", "v"},
          {"DBSIZE"}});
  // COPY of each encoding, TTL carried.
  Args big = {"SADD", "big"};
  for (int n = 0; n < 300; ++n) big.push_back(absl::StrCat("m", n));
  Same(big);
  Script({{"SADD", "ints", "3", "1", "2"},
          {"EXPIRE", "ints", "100"},
          {"COPY", "ints", "ints2"},
          {"SMEMBERS", "ints2"},
          {"OBJECT", "ENCODING", "ints2"},
          {"TTL", "ints2"},
          {"COPY", "big", "big2"},
          {"SCARD", "big2"},
          {"SADD", "big2", "extra"},
          {"SCARD", "big"},
          {"SCARD", "big2"}});
  SameSorted({"SMEMBERS", "big2"});
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffSetTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
