// Sorted-set commands against redis-server 7.0 (1, 2 and 3 threads), byte for byte: every
// option and error of ZADD, ZINCRBY, ZREM, the reads, the ZRANGE family, ZREMRANGEBY*,
// ZPOP*, ZRANDMEMBER (exact where Redis is deterministic, shape otherwise), ZSCAN, WRONGTYPE
// against a string, a set that empties ceasing to exist, TTLs on sorted sets, and the
// cross-key commands with keys spread over every shard. Score formatting is Redis 7.0's
// "%.17g". The seeded random test is in differential_zset_random_test.cc.

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"
#include "tests/integration/polling.h"

namespace rc::it {
namespace {

class DiffZsetTest : public DiffTest {
 protected:
  // The string elements of `cmd`'s reply on each server.
  std::vector<std::string> Elements(Client& c, const Args& cmd) {
    return Strings(c.RawCmd(cmd).get());
  }
};

TEST_P(DiffZsetTest, Arity) {
  for (const char* name :
       {"ZADD", "ZINCRBY", "ZREM", "ZSCORE", "ZMSCORE", "ZCARD", "ZCOUNT", "ZLEXCOUNT", "ZRANK",
        "ZREVRANK", "ZRANGE", "ZRANGESTORE", "ZREVRANGE", "ZRANGEBYSCORE", "ZREVRANGEBYSCORE",
        "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZREMRANGEBYRANK", "ZREMRANGEBYSCORE", "ZREMRANGEBYLEX",
        "ZPOPMIN", "ZPOPMAX", "ZRANDMEMBER", "ZSCAN", "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE",
        "ZUNION", "ZINTER", "ZDIFF", "ZINTERCARD"}) {
    Same({name});
    Same({name, "k"});
  }
  Script({{"ZADD", "k", "1"},
          {"ZINCRBY", "k", "1"},
          {"ZINCRBY", "k", "1", "m", "x"},
          {"ZSCORE", "k", "m", "x"},
          {"ZCARD", "k", "x"},
          {"ZCOUNT", "k", "1"},
          {"ZRANK", "k", "m", "WITHSCORE"},
          {"ZREVRANK", "k", "m", "WITHSCORE"},
          {"ZRANGE", "k", "0"},
          {"ZRANGESTORE", "d", "k", "0"},
          {"ZREMRANGEBYRANK", "k", "0", "1", "2"},
          {"ZUNIONSTORE", "d", "1"}});
}

TEST_P(DiffZsetTest, ZAddOptionsAndErrors) {
  Script({
      {"ZADD", "z", "1", "a", "2", "b", "3", "c"},
      {"ZADD", "z", "1", "a", "5", "b", "9", "d"},
      {"ZADD", "z", "CH", "1", "a", "6", "b", "10", "e"},
      {"ZADD", "z", "NX", "100", "a", "7", "f"},
      {"ZADD", "z", "XX", "100", "a", "7", "g"},
      {"ZADD", "z", "XX", "CH", "101", "a", "7", "g"},
      {"ZADD", "z", "GT", "CH", "50", "a", "200", "a"},
      {"ZADD", "z", "LT", "CH", "300", "b", "1", "b", "4", "h"},
      {"ZADD", "z", "gt", "xx", "ch", "1000", "c", "-5", "d"},
      {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
      {"ZADD", "z", "INCR", "5", "a"},
      {"ZADD", "z", "INCR", "NX", "5", "a"},
      {"ZADD", "z", "INCR", "NX", "5", "new"},
      {"ZADD", "z", "INCR", "XX", "5", "absent"},
      {"ZADD", "z", "INCR", "GT", "-1", "a"},
      {"ZADD", "z", "INCR", "LT", "-1", "a"},
      {"ZADD", "z", "INCR", "GT", "0", "a"},
      {"ZADD", "z", "INCR", "0", "a"},
      {"ZADD", "z", "incr", "ch", "1", "a"},
      // Errors, each before anything changes.
      {"ZADD", "z", "NX", "XX", "1", "a"},
      {"ZADD", "z", "NX", "GT", "1", "a"},
      {"ZADD", "z", "LT", "NX", "1", "a"},
      {"ZADD", "z", "GT", "LT", "1", "a"},
      {"ZADD", "z", "NX", "XX", "GT", "1", "a"},
      {"ZADD", "z", "INCR", "1", "a", "2", "b"},
      {"ZADD", "z", "1", "a", "2"},
      {"ZADD", "z", "NX"},
      {"ZADD", "z", "NX", "XX"},
      {"ZADD", "z", "FOO", "1", "a"},
      {"ZADD", "z", "1", "a", "x", "b"},
      {"ZADD", "z", "nan", "a"},
      {"ZADD", "z", "1e400", "a"},
      {"ZADD", "z", "", "a"},
      {"ZADD", "z", " 1", "a"},
      {"ZADD", "z", "1 ", "a"},
      {"ZADD", "z", "1", "a", "1", "a", "2", "a"},
      {"ZADD", "z", "INCR", "NX", "XX", "1", "a"},
      {"ZADD", "z", "inf", "a"},
      {"ZADD", "z", "INCR", "-inf", "a"},
      {"ZSCORE", "z", "a"},
      {"ZADD", "z", "INCR", "+inf", "a"},
      {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
      // A missing key: XX creates nothing; INCR XX answers nil.
      {"ZADD", "missing", "XX", "1", "a"},
      {"ZADD", "missing", "XX", "INCR", "1", "a"},
      {"EXISTS", "missing"},
      {"ZADD", "missing2", "GT", "1", "a"},
      {"ZADD", "missing3", "INCR", "LT", "1", "a"},
      {"ZRANGE", "missing2", "0", "-1", "WITHSCORES"},
  });
}

TEST_P(DiffZsetTest, ScoreParsingAndFormatting) {
  for (const char* v :
       {"0.1", "1e300", "3.0", "-0.0", "-0", "0", "inf", "-inf", "+inf", "Infinity", "1.5e-300",
        "123456789012345678", "4503599627370496", "-4503599627370495", "0x10", "+5", "1.1",
        "1e-310", "9007199254740993", "1e17", "1e16", "-1.25", ".5", "5.", "1E3", "2.5e+20"}) {
    SCOPED_TRACE(v);
    Script({{"ZADD", "f", v, "m"},
            {"ZSCORE", "f", "m"},
            {"ZRANGE", "f", "0", "-1", "WITHSCORES"},
            {"ZSCAN", "f", "0"},
            {"ZINCRBY", "f", v, "n"},
            {"ZINCRBY", "f", "0", "n"},
            {"ZMSCORE", "f", "m", "n", "nope"},
            {"DEL", "f"}});
  }
  Script({{"ZINCRBY", "f", "-0", "q"},
          {"ZSCORE", "f", "q"},
          {"ZINCRBY", "f", "abc", "q"},
          {"ZINCRBY", "f", "nan", "q"},
          {"ZINCRBY", "f", "inf", "q"},
          {"ZINCRBY", "f", "-inf", "q"},
          {"ZSCORE", "f", "q"},
          {"ZINCRBY", "f", "nx", "q"},
          {"ZINCRBY", "f", "1e400", "q"}});
  // -0 survives only where Redis keeps the set in a skiplist (a member longer than 64 bytes
  // or more than 128 members); a listpack stores it as the integer 0.
  const std::string long_member(65, 'x');
  Script({{"ZADD", "neg", "-0", "a", "-0", long_member, "-0", "b"},
          {"ZMSCORE", "neg", "a", long_member, "b"},
          {"ZRANGE", "neg", "0", "-1", "WITHSCORES"},
          {"ZINCRBY", "neg", "-0", "a"},
          {"ZPOPMIN", "neg", "3"},
          {"ZADD", "neg2", "-0", "a"},
          {"ZADD", "neg2", "-0", long_member},
          {"ZADD", "neg2", "-0", "c"},
          {"ZMSCORE", "neg2", "a", long_member, "c"},
          {"ZUNIONSTORE", "neg3", "1", "neg2", "WEIGHTS", "-1"},
          {"ZRANGE", "neg3", "0", "-1", "WITHSCORES"},
          {"ZUNION", "1", "neg2", "WEIGHTS", "-1", "WITHSCORES"},
          {"ZRANGESTORE", "neg4", "neg2", "0", "-1"},
          {"ZRANGE", "neg4", "0", "-1", "WITHSCORES"}});
  Args big = {"ZADD", "negbig"};
  for (int i = 0; i < 200; ++i) {
    big.push_back(i % 2 ? "-0" : "0");
    big.push_back(absl::StrCat("m", i));
  }
  Same(big);
  Script({{"ZRANGE", "negbig", "0", "5", "WITHSCORES"},
          {"ZADD", "negbig", "-0", "new"},
          {"ZSCORE", "negbig", "new"},
          {"ZINTERSTORE", "negsmall", "2", "negbig", "neg2"},
          {"ZRANGE", "negsmall", "0", "-1", "WITHSCORES"},
          {"ZRANGESTORE", "negr", "negbig", "0", "-1"},
          {"ZRANGE", "negr", "0", "-1", "WITHSCORES"},
          {"ZRANGESTORE", "negr", "negbig", "-inf", "+inf", "BYSCORE"},
          {"ZRANGE", "negr", "0", "-1", "WITHSCORES"},
          {"ZRANGESTORE", "negr", "negbig", "+inf", "-inf", "BYSCORE", "REV"},
          {"ZRANGE", "negr", "0", "-1", "WITHSCORES"},
          {"ZRANGESTORE", "negr", "negbig", "0", "99"},
          {"ZRANGE", "negr", "0", "-1", "WITHSCORES"},
          {"ZUNIONSTORE", "negr", "1", "negbig"},
          {"ZRANGE", "negr", "0", "-1", "WITHSCORES"}});
}

TEST_P(DiffZsetTest, RemoveAndEmptySetDeletion) {
  Script({{"ZADD", "z", "1", "a", "2", "b"},
          {"ZREM", "z", "a", "nope", "a"},
          {"EXISTS", "z"},
          {"TYPE", "z"},
          {"ZREM", "z", "b"},
          {"EXISTS", "z"},
          {"TYPE", "z"},
          {"ZREM", "z", "b"},
          {"ZCARD", "z"},
          {"ZADD", "z", "1", "a"},
          {"ZPOPMIN", "z"},
          {"EXISTS", "z"},
          {"ZADD", "z", "1", "a", "2", "b"},
          {"ZREMRANGEBYSCORE", "z", "-inf", "+inf"},
          {"EXISTS", "z"},
          {"ZADD", "z", "1", "a", "2", "b"},
          {"ZREMRANGEBYRANK", "z", "0", "-1"},
          {"EXISTS", "z"},
          {"ZADD", "z", "0", "a", "0", "b"},
          {"ZREMRANGEBYLEX", "z", "-", "+"},
          {"EXISTS", "z"},
          {"DBSIZE"}});
}

TEST_P(DiffZsetTest, ReadsAndRangeBounds) {
  Script({{"ZADD", "z", "1", "a", "2", "b", "2", "bb", "3", "c", "-inf", "lo", "+inf", "hi"},
          {"ZCARD", "z"},
          {"ZCARD", "missing"},
          {"ZSCORE", "missing", "a"},
          {"ZSCORE", "z", "nope"},
          {"ZMSCORE", "missing", "a", "b"},
          {"ZRANK", "z", "bb"},
          {"ZREVRANK", "z", "bb"},
          {"ZRANK", "z", "nope"},
          {"ZREVRANK", "missing", "a"},
          {"ZRANK", "z", "lo"},
          {"ZREVRANK", "z", "lo"}});
  for (auto [lo, hi] : std::vector<std::pair<std::string, std::string>>{
           {"-inf", "+inf"}, {"1", "2"}, {"(1", "2"}, {"1", "(2"}, {"(1", "(2"}, {"2", "1"},
           {"(2", "2"}, {"2", "2"}, {"-inf", "-inf"}, {"inf", "inf"}, {"(-inf", "(inf"},
           {"", "5"}, {"(", "5"}, {" 1", "5"}, {"0x1", "0x3"}, {"1e400", "inf"},
           {"a", "1"}, {"1", "nan"}, {"((1", "2"}, {"[1", "2"}, {"1 ", "2"}}) {
    SCOPED_TRACE(lo + " " + hi);
    Script({{"ZCOUNT", "z", lo, hi},
            {"ZCOUNT", "missing", lo, hi},
            {"ZRANGEBYSCORE", "z", lo, hi, "WITHSCORES"},
            {"ZREVRANGEBYSCORE", "z", hi, lo, "WITHSCORES"},
            {"ZRANGE", "z", lo, hi, "BYSCORE"},
            {"ZRANGE", "z", hi, lo, "BYSCORE", "REV", "LIMIT", "1", "2"}});
  }
  Script({{"DEL", "z"}, {"ZADD", "z", "0", "a", "0", "b", "0", "c", "0", "d", "0", "", "0", "ab"}});
  for (auto [lo, hi] : std::vector<std::pair<std::string, std::string>>{
           {"-", "+"}, {"[a", "[c"}, {"(a", "(c"}, {"[b", "[a"}, {"(b", "(b"}, {"[b", "[b"},
           {"+", "-"}, {"-", "-"}, {"[", "(b"}, {"(", "+"}, {"a", "[c"}, {"[a", "c"},
           {"", "+"}, {"-a", "+"}, {"+x", "+"}, {"[ab", "(d"}}) {
    SCOPED_TRACE(lo + " " + hi);
    Script({{"ZLEXCOUNT", "z", lo, hi},
            {"ZLEXCOUNT", "missing", lo, hi},
            {"ZRANGEBYLEX", "z", lo, hi},
            {"ZREVRANGEBYLEX", "z", hi, lo},
            {"ZRANGEBYLEX", "z", lo, hi, "LIMIT", "1", "2"},
            {"ZRANGE", "z", lo, hi, "BYLEX"},
            {"ZRANGE", "z", hi, lo, "BYLEX", "REV", "LIMIT", "0", "3"}});
  }
}

TEST_P(DiffZsetTest, RangeFamilyOptions) {
  Same({"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"});
  for (auto [s, e] : std::vector<std::pair<std::string, std::string>>{
           {"0", "-1"}, {"1", "3"}, {"-2", "-1"}, {"-100", "100"}, {"3", "1"}, {"5", "10"},
           {"-1", "-5"}, {"0", "0"}, {"4", "4"}, {"-6", "-6"}, {"x", "1"}, {"1", "1.5"}}) {
    SCOPED_TRACE(s + " " + e);
    Script({{"ZRANGE", "z", s, e},
            {"ZRANGE", "z", s, e, "WITHSCORES"},
            {"ZRANGE", "z", s, e, "REV", "withscores"},
            {"ZREVRANGE", "z", s, e},
            {"ZREVRANGE", "z", s, e, "WITHSCORES"},
            {"ZRANGE", "missing", s, e}});
  }
  Script({
      {"ZRANGE", "z", "0", "-1", "LIMIT", "0", "1"},
      {"ZRANGE", "z", "0", "-1", "LIMIT", "0", "-1"},
      {"ZRANGE", "z", "0", "-1", "LIMIT", "0"},
      {"ZRANGE", "z", "0", "-1", "REV", "REV"},
      {"ZRANGE", "z", "0", "-1", "BYSCORE", "BYSCORE"},
      {"ZRANGE", "z", "0", "-1", "BYSCORE", "BYLEX"},
      {"ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES"},
      {"ZRANGE", "z", "0", "-1", "FOO"},
      {"ZRANGE", "z", "(1", "5", "BYSCORE", "LIMIT", "x", "1"},
      {"ZRANGE", "z", "(1", "5", "BYSCORE", "LIMIT", "1", "x"},
      {"ZRANGE", "z", "(1", "5", "BYSCORE", "LIMIT", "-1", "2"},
      {"ZRANGE", "z", "(1", "5", "BYSCORE", "LIMIT", "1", "-1"},
      {"ZRANGE", "z", "(1", "5", "BYSCORE", "LIMIT", "1", "0"},
      {"ZRANGE", "z", "(1", "5", "BYSCORE", "LIMIT", "10", "1"},
      {"ZRANGE", "z", "(1", "5", "BYSCORE", "LIMIT", "0", "1", "LIMIT", "2", "2"},
      {"ZRANGE", "z", "5", "(1", "byscore", "rev", "withscores", "limit", "1", "2"},
      {"ZRANGE", "z", "x", "5", "BYSCORE"},
      {"ZRANGE", "z", "-", "+", "BYLEX", "LIMIT", "1", "1"},
      {"ZRANGE", "z", "a", "+", "BYLEX"},
      {"ZRANGE", "missing", "a", "+", "BYLEX"},
      {"ZRANGE", "missing", "0", "-1", "FOO"},
      {"ZRANGEBYSCORE", "z", "0", "10", "REV"},
      {"ZRANGEBYSCORE", "z", "0", "10", "BYSCORE"},
      {"ZRANGEBYSCORE", "z", "0", "10", "LIMIT", "1", "2", "WITHSCORES"},
      {"ZREVRANGEBYSCORE", "z", "10", "0", "LIMIT", "1", "2", "WITHSCORES"},
      {"ZREVRANGEBYSCORE", "z", "10", "0", "BYLEX"},
      {"ZRANGEBYLEX", "z", "-", "+", "WITHSCORES"},
      {"ZRANGEBYLEX", "z", "-", "+", "BYSCORE"},
      {"ZREVRANGEBYLEX", "z", "+", "-", "LIMIT", "0", "2"},
      {"ZREVRANGE", "z", "0", "-1", "LIMIT", "0", "1"},
      {"ZREVRANGE", "z", "0", "-1", "REV"},
      {"ZREVRANGE", "z", "0", "-1", "BYSCORE"},
      {"ZRANGE", "z", "0", "-1", "withscores", "withscores"},
  });
}

TEST_P(DiffZsetTest, RangeStore) {
  std::vector<std::string> k = Spread("rs", 3);
  const std::string src = k[0];
  const std::string dst = k[1];
  const std::string same = KeysOnShard("rsame", ShardOf(src, threads()), threads(), 1)[0];
  Script({
      {"ZADD", src, "1", "a", "2", "b", "3", "c", "4", "d"},
      {"ZRANGESTORE", dst, src, "0", "1"},
      {"ZRANGE", dst, "0", "-1", "WITHSCORES"},
      {"ZRANGESTORE", same, src, "(1", "+inf", "BYSCORE", "REV", "LIMIT", "0", "2"},
      {"ZRANGE", same, "0", "-1", "WITHSCORES"},
      {"ZRANGESTORE", dst, src, "[b", "+", "BYLEX"},
      {"ZRANGE", dst, "0", "-1", "WITHSCORES"},
      {"SET", k[2], "v"},
      {"EXPIRE", k[2], "1000"},
      {"ZRANGESTORE", k[2], src, "0", "0"},
      {"TTL", k[2]},
      {"TYPE", k[2]},
      // An empty result deletes the destination; a missing source too.
      {"ZRANGESTORE", dst, src, "10", "20"},
      {"EXISTS", dst},
      {"SET", dst, "x"},
      {"ZRANGESTORE", dst, "missing", "0", "-1"},
      {"EXISTS", dst},
      // Errors, and the source's type checked.
      {"ZRANGESTORE", dst, src, "0", "-1", "WITHSCORES"},
      {"ZRANGESTORE", dst, src, "0", "-1", "LIMIT", "0", "1"},
      {"ZRANGESTORE", dst, src, "a", "b", "BYSCORE"},
      {"ZRANGESTORE", dst, src, "a", "b", "BYLEX"},
      {"ZRANGESTORE", dst, k[2], "0", "-1"},
      {"ZRANGESTORE", src, src, "1", "2"},
      {"ZRANGE", src, "0", "-1", "WITHSCORES"},
  });
}

TEST_P(DiffZsetTest, RemoveRanges) {
  auto fill = [&] { Script({{"DEL", "z"}, {"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}}); };
  for (auto [s, e] : std::vector<std::pair<std::string, std::string>>{
           {"0", "1"}, {"-2", "-1"}, {"3", "1"}, {"-100", "100"}, {"10", "20"}, {"x", "1"}}) {
    fill();
    Script({{"ZREMRANGEBYRANK", "z", s, e}, {"ZRANGE", "z", "0", "-1"}});
  }
  for (auto [s, e] : std::vector<std::pair<std::string, std::string>>{
           {"(1", "3"}, {"-inf", "(2"}, {"4", "2"}, {"x", "1"}, {"2", "nan"}}) {
    fill();
    Script({{"ZREMRANGEBYSCORE", "z", s, e}, {"ZRANGE", "z", "0", "-1"}});
  }
  Script({{"DEL", "z"}, {"ZADD", "z", "0", "a", "0", "b", "0", "c", "0", "d"}});
  Script({{"ZREMRANGEBYLEX", "z", "(a", "[c"},
          {"ZRANGE", "z", "0", "-1"},
          {"ZREMRANGEBYLEX", "z", "a", "c"},
          {"ZREMRANGEBYLEX", "z", "+", "-"},
          {"ZREMRANGEBYLEX", "missing", "-", "+"},
          {"ZREMRANGEBYRANK", "missing", "0", "-1"},
          {"ZREMRANGEBYSCORE", "missing", "x", "1"},
          {"ZREMRANGEBYRANK", "missing", "x", "1"}});
}

TEST_P(DiffZsetTest, Pops) {
  Script({{"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"},
          {"ZPOPMIN", "z"},
          {"ZPOPMAX", "z"},
          {"ZPOPMIN", "z", "2"},
          {"ZPOPMAX", "z", "0"},
          {"ZPOPMIN", "z", "-1"},
          {"ZPOPMIN", "z", "abc"},
          {"ZPOPMIN", "z", "1", "2"},
          {"ZPOPMAX", "z", "100"},
          {"EXISTS", "z"},
          {"ZPOPMIN", "z"},
          {"ZPOPMAX", "missing", "3"},
          {"ZPOPMIN", "missing", "-3"},
          {"ZPOPMIN", "missing", "0"}});
}

TEST_P(DiffZsetTest, RandMember) {
  Script({{"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"},
          {"ZRANDMEMBER", "missing"},
          {"ZRANDMEMBER", "missing", "5"},
          {"ZRANDMEMBER", "missing", "-5", "WITHSCORES"},
          {"ZRANDMEMBER", "z", "0"},
          {"ZRANDMEMBER", "z", "5"},
          {"ZRANDMEMBER", "z", "6", "WITHSCORES"},
          {"ZRANDMEMBER", "z", "100", "withscores"},
          {"ZRANDMEMBER", "z", "abc"},
          {"ZRANDMEMBER", "missing", "abc"},
          {"ZRANDMEMBER", "z", "1", "FOO"},
          {"ZRANDMEMBER", "z", "1", "WITHSCORES", "x"},
          {"ZRANDMEMBER", "z", "-9223372036854775808"},
          {"ZRANDMEMBER", "z", "9223372036854775807", "WITHSCORES"},
          {"ZRANDMEMBER", "z", "-4611686018427387904", "WITHSCORES"},
          {"ZRANDMEMBER", "z", "4611686018427387904", "WITHSCORES"}});
  const std::map<std::string, std::string> scores = {
      {"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}, {"e", "5"}};
  auto check = [&](const Args& cmd, size_t want, bool uniq, bool withscores) {
    std::vector<std::string> got = Elements(*rcc_, cmd);
    ASSERT_EQ(got.size(), want * (withscores ? 2 : 1)) << Describe(cmd);
    std::set<std::string> seen;
    for (size_t i = 0; i < got.size(); i += withscores ? 2 : 1) {
      ASSERT_TRUE(scores.count(got[i])) << got[i];
      if (withscores) {
        EXPECT_EQ(got[i + 1], scores.at(got[i]));
      }
      seen.insert(got[i]);
    }
    if (uniq) {
      EXPECT_EQ(seen.size(), want) << Describe(cmd);
    }
  };
  for (int i = 0; i < 20; ++i) {
    check({"ZRANDMEMBER", "z", "3"}, 3, true, false);
    check({"ZRANDMEMBER", "z", "4", "WITHSCORES"}, 4, true, true);
    check({"ZRANDMEMBER", "z", "1"}, 1, true, false);
    check({"ZRANDMEMBER", "z", "-12"}, 12, false, false);
    check({"ZRANDMEMBER", "z", "-7", "WITHSCORES"}, 7, false, true);
    std::string one = rcc_->Cmd({"ZRANDMEMBER", "z"});
    ASSERT_EQ(one.size(), 2u) << one;
    EXPECT_TRUE(scores.count(one.substr(1))) << one;
  }
  // Few members of a large set (drawn without a pass over every rank): still distinct.
  Args add = {"ZADD", "big"};
  for (int i = 0; i < 500; ++i) {
    add.push_back(std::to_string(i));
    add.push_back(absl::StrCat("m", i));
  }
  Same(add);
  for (const char* n : {"2", "10", "100", "166", "167", "499"}) {
    std::vector<std::string> got = Elements(*rcc_, {"ZRANDMEMBER", "big", n, "WITHSCORES"});
    ASSERT_EQ(got.size(), 2 * std::stoul(n));
    std::set<std::string> seen;
    for (size_t i = 0; i < got.size(); i += 2) {
      EXPECT_EQ("m" + got[i + 1], got[i]);
      seen.insert(got[i]);
    }
    EXPECT_EQ(seen.size(), std::stoul(n));
  }
}

TEST_P(DiffZsetTest, Scan) {
  Script({{"ZADD", "z", "1", "a", "2.5", "b", "3", "c", "inf", "d", "-0.1", "ab"},
          {"ZSCAN", "z", "0"},
          {"ZSCAN", "z", "0", "MATCH", "a*"},
          {"ZSCAN", "z", "0", "COUNT", "1", "MATCH", "*b"},
          {"ZSCAN", "z", "123"},
          {"ZSCAN", "z", "0", "COUNT", "0"},
          {"ZSCAN", "z", "0", "COUNT", "x"},
          {"ZSCAN", "z", "0", "COUNT"},
          {"ZSCAN", "z", "0", "FOO", "bar"},
          {"ZSCAN", "z", "0", "TYPE", "zset"},
          {"ZSCAN", "z", "abc"},
          {"ZSCAN", "z", "-1"},
          {"ZSCAN", "z", " 0"},
          {"ZSCAN", "missing", "0", "COUNT", "0"},
          {"ZSCAN", "missing", "abc"}});
  // A large set (not a listpack in Redis): a full iteration returns every member once or
  // more, each with its score.
  std::map<std::string, std::string> want;
  Args add = {"ZADD", "big"};
  for (int i = 0; i < 300; ++i) {
    std::string m = absl::StrCat("member:", i);
    add.push_back(absl::StrCat(i, ".5"));
    add.push_back(m);
    want[m] = absl::StrCat(i, ".5");
  }
  Same(add);
  std::map<std::string, std::string> got;
  std::string cursor = "0";
  int calls = 0;
  do {
    Client::ReplyPtr r = rcc_->RawCmd({"ZSCAN", "big", cursor, "COUNT", "20"});
    ASSERT_TRUE(r && r->type == REDIS_REPLY_ARRAY && r->elements == 2) << Canon(r.get());
    cursor.assign(r->element[0]->str, r->element[0]->len);
    std::vector<std::string> kv = Strings(r->element[1]);
    ASSERT_EQ(kv.size() % 2, 0u);
    for (size_t i = 0; i < kv.size(); i += 2) got[kv[i]] = kv[i + 1];
    ASSERT_LT(++calls, 1000);
  } while (cursor != "0");
  EXPECT_EQ(got, want);
  EXPECT_GT(calls, 1);
}

// A set that grew past 128 members (or took a member over 64 bytes) and shrank again stays
// a skiplist in Redis and stays big here: OBJECT ENCODING, ZSCAN's cursor walk and score
// text, and -0, all as Redis has them. A set that never grew is still a listpack.
TEST_P(DiffZsetTest, GrownThenShrunkStaysSkiplist) {
  // Every member and score a full ZSCAN walk returns, on either server.
  auto scan_all = [](Client& c, const std::string& key) {
    std::map<std::string, std::string> got;
    std::string cursor = "0";
    int calls = 0;
    do {
      Client::ReplyPtr r = c.RawCmd({"ZSCAN", key, cursor, "COUNT", "5"});
      EXPECT_TRUE(r && r->type == REDIS_REPLY_ARRAY && r->elements == 2) << Canon(r.get());
      if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) break;
      cursor.assign(r->element[0]->str, r->element[0]->len);
      std::vector<std::string> kv = Strings(r->element[1]);
      for (size_t i = 0; i + 1 < kv.size(); i += 2) got[kv[i]] = kv[i + 1];
      if (++calls > 1000) break;
    } while (cursor != "0");
    return got;
  };
  const std::string long_member(65, 'x');
  for (const std::string key : {"grown", "widened", "small"}) {
    Args add = {"ZADD", key};
    const int n = key == "grown" ? 200 : 20;
    for (int i = 0; i < n; ++i) {
      add.push_back(std::to_string(i));
      add.push_back(absl::StrCat("m", i));
    }
    if (key == "widened") add.insert(add.end(), {"1", long_member});
    Same(add);
    Same({"OBJECT", "ENCODING", key});
    Args rem = {"ZREM", key, long_member};
    for (int i = 5; i < n; ++i) rem.push_back(absl::StrCat("m", i));
    Same(rem);
    // A score whose integer and %.17g texts differ, and -0 (a listpack stores 0).
    Script({{"ZADD", key, "123456789012345678", "m1", "-0", "m2"},
            {"ZCARD", key},
            {"OBJECT", "ENCODING", key},
            {"ZSCORE", key, "m2"},
            {"ZRANGE", key, "0", "-1", "WITHSCORES"}});
    EXPECT_EQ(scan_all(*rcc_, key), scan_all(*redisc_, key)) << key;
    if (key == "small") Same({"ZSCAN", key, "0", "COUNT", "1"});  // all, cursor 0
  }
  // The store commands build their result afresh: small results are listpacks again.
  Script({{"ZUNIONSTORE", "u", "1", "grown"},
          {"OBJECT", "ENCODING", "u"},
          {"ZSCAN", "u", "0"},
          {"ZRANGESTORE", "r", "grown", "0", "-1"},
          {"OBJECT", "ENCODING", "r"},
          {"ZRANGE", "r", "0", "-1", "WITHSCORES"}});
}

// zset-max-listpack-entries / -value under both names: a write converts by the limits
// in force, and so do the store commands and RESTORE.
TEST_P(DiffZsetTest, ListpackLimitsAreSettings) {
  Script({{"CONFIG", "SET", "zset-max-listpack-entries", "3"},
          {"CONFIG", "GET", "zset-max-ziplist-entries"},
          {"ZADD", "t", "1", "a", "2", "b", "3", "c"},
          {"OBJECT", "ENCODING", "t"},
          {"ZADD", "t", "4", "d"},
          {"OBJECT", "ENCODING", "t"},
          {"ZREM", "t", "a", "b", "c"},
          {"OBJECT", "ENCODING", "t"},
          {"ZADD", "four", "1", "a", "2", "b", "3", "c", "4", "d"},
          {"OBJECT", "ENCODING", "four"},
          {"ZUNIONSTORE", "u", "1", "four"},
          {"OBJECT", "ENCODING", "u"},
          {"ZRANGESTORE", "r", "four", "0", "1"},
          {"OBJECT", "ENCODING", "r"},
          {"CONFIG", "SET", "zset-max-ziplist-value", "4"},
          {"CONFIG", "GET", "zset-max-listpack-value"},
          {"ZADD", "v", "1", "abcd"},
          {"OBJECT", "ENCODING", "v"},
          {"ZADD", "v", "1", "abcde"},
          {"OBJECT", "ENCODING", "v"},
          {"CONFIG", "SET", "zset-max-listpack-value", "200"},
          {"CONFIG", "SET", "zset-max-listpack-entries", "300"},
          {"ZADD", "w", "1", std::string(150, 'w')},
          {"OBJECT", "ENCODING", "w"},
          {"CONFIG", "SET", "zset-max-listpack-value", "x"},
          {"CONFIG", "SET", "zset-max-listpack-entries", "-1"},
          {"CONFIG", "SET", "zset-max-listpack-entries", "0"},
          {"ZADD", "zero", "1", "a"},
          {"OBJECT", "ENCODING", "zero"}});
  // A set RESTOREd from a listpack that is over the limits in force converts.
  Args add = {"ZADD", "dumped"};
  for (int i = 0; i < 10; ++i) add.insert(add.end(), {std::to_string(i), absl::StrCat("m", i)});
  Script({{"CONFIG", "SET", "zset-max-listpack-entries", "128"}, add,
          {"OBJECT", "ENCODING", "dumped"}});
  Client::ReplyPtr dump = rcc_->RawCmd({"DUMP", "dumped"});
  ASSERT_TRUE(dump && dump->type == REDIS_REPLY_STRING);
  Script({{"CONFIG", "SET", "zset-max-listpack-entries", "5"},
          {"RESTORE", "back", "0", std::string(dump->str, dump->len)},
          {"OBJECT", "ENCODING", "back"},
          {"ZRANGE", "back", "0", "-1", "WITHSCORES"}});
  // Longer members than a compact block holds: refused here, as the block's lengths are
  // one byte (Redis takes any size).
  EXPECT_EQ(rcc_->Cmd({"CONFIG", "SET", "zset-max-listpack-value", "256"}),
            "-ERR CONFIG SET failed (possibly related to argument 'zset-max-listpack-value') - "
            "ringcache's compact sorted sets hold members of at most 255 bytes");
}

// Sets past Redis's listpack limits (a skiplist there; several tree levels here).
TEST_P(DiffZsetTest, LargeSets) {
  std::vector<std::string> k = Spread("big", 3);
  for (int part = 0; part < 3; ++part) {
    Args add = {"ZADD", k[size_t(part)]};
    for (int i = 0; i < 1500; ++i) {
      int v = (i * 7919 + part * 13) % 1000;
      add.push_back(absl::StrCat(v % 3 == 0 ? "-" : "", v / 10, ".", v % 10));
      add.push_back(absl::StrCat("member:", (i * 31 + part * 500) % 2000));
    }
    Same(add);
  }
  const std::string& a = k[0];
  Script({{"ZCARD", a},
          {"ZRANGE", a, "0", "20", "WITHSCORES"},
          {"ZRANGE", a, "700", "760", "WITHSCORES"},
          {"ZRANGE", a, "-30", "-1", "REV", "WITHSCORES"},
          {"ZRANGE", a, "(-10", "10", "BYSCORE", "LIMIT", "5", "40", "WITHSCORES"},
          {"ZRANGE", a, "50", "(-50", "BYSCORE", "REV", "LIMIT", "100", "30"},
          {"ZCOUNT", a, "-50", "(50.5"},
          {"ZCOUNT", a, "(-99.9", "+inf"},
          {"ZRANK", a, "member:1234"},
          {"ZREVRANK", a, "member:1234"},
          {"ZRANK", a, "member:1"},
          {"ZMSCORE", a, "member:0", "member:999", "member:1999", "nope"},
          {"ZINCRBY", a, "1000", "member:5"},
          {"ZREVRANGE", a, "0", "2", "WITHSCORES"},
          {"ZREM", a, "member:5", "member:6", "member:7"},
          {"ZREMRANGEBYRANK", a, "100", "199"},
          {"ZREMRANGEBYSCORE", a, "(10", "20"},
          {"ZCARD", a},
          {"ZPOPMIN", a, "25"},
          {"ZPOPMAX", a, "25"},
          {"ZRANGE", a, "500", "520", "WITHSCORES"},
          {"ZUNIONSTORE", "{u}dst", "3", k[0], k[1], k[2], "WEIGHTS", "1", "2", "-1"},
          {"ZRANGE", "{u}dst", "0", "30", "WITHSCORES"},
          {"ZRANGE", "{u}dst", "-30", "-1", "WITHSCORES"},
          {"ZINTERSTORE", "{u}dst", "3", k[0], k[1], k[2], "AGGREGATE", "MAX"},
          {"ZRANGE", "{u}dst", "0", "-1", "WITHSCORES"},
          {"ZDIFF", "2", k[1], k[0], "WITHSCORES"},
          {"ZRANGESTORE", "{u}dst", k[2], "100", "(200", "BYSCORE"},
          {"ZRANGE", "{u}dst", "0", "-1", "WITHSCORES"},
          {"ZRANDMEMBER", a, "5000", "WITHSCORES"},
          {"ZREMRANGEBYRANK", a, "0", "-1"},
          {"EXISTS", a}});
  Args lex = {"ZADD", "lexbig"};
  for (int i = 0; i < 700; ++i) {
    lex.push_back("0");
    lex.push_back(absl::StrCat("w", (i * 37) % 1000));
  }
  Same(lex);
  Script({{"ZLEXCOUNT", "lexbig", "[w2", "(w5"},
          {"ZRANGEBYLEX", "lexbig", "(w3", "+", "LIMIT", "10", "20"},
          {"ZREVRANGEBYLEX", "lexbig", "[w8", "-", "LIMIT", "5", "15"},
          {"ZREMRANGEBYLEX", "lexbig", "[w1", "(w2"},
          {"ZCARD", "lexbig"},
          {"ZRANGE", "lexbig", "100", "120"}});
}

// Reads count keyspace hits and misses as Redis's lookupKeyRead does; writes count none.
TEST_P(DiffZsetTest, KeyspaceHitsAndMisses) {
  std::vector<std::string> k = Spread("hm", 3);
  Script({{"ZADD", k[0], "1", "a"},     {"ZADD", k[1], "2", "b"},
          {"ZSCORE", k[0], "a"},        {"ZSCORE", k[2], "a"},
          {"ZMSCORE", k[0], "a", "b"},  {"ZCARD", k[2]},
          {"ZRANK", k[1], "b"},         {"ZRANGE", k[0], "0", "-1"},
          {"ZRANGEBYSCORE", k[2], "0", "1"},
          {"ZCOUNT", k[0], "0", "1"},   {"ZLEXCOUNT", k[2], "-", "+"},
          {"ZRANDMEMBER", k[0]},        {"ZSCAN", k[2], "0"},
          {"ZRANGESTORE", k[2], k[0], "0", "-1"},
          {"ZUNIONSTORE", k[2], "3", k[0], k[1], "nope"},
          {"ZINTER", "2", k[0], k[1]},  {"ZDIFF", "2", "nope", k[1]},
          {"ZREM", k[2], "a"},          {"ZREMRANGEBYRANK", "nope", "0", "1"},
          {"ZPOPMIN", "nope"},          {"ZADD", k[2], "1", "a"},
          {"ZINCRBY", k[2], "1", "a"}});
  for (const char* field : {"keyspace_hits", "keyspace_misses"}) {
    EXPECT_EQ(InfoInt(*rcc_, "stats", field), InfoInt(*redisc_, "stats", field)) << field;
  }
}

TEST_P(DiffZsetTest, WrongType) {
  Same({"SET", "s", "v"});
  for (const Args& cmd : std::vector<Args>{
           {"ZADD", "s", "1", "a"}, {"ZADD", "s", "XX", "1", "a"}, {"ZINCRBY", "s", "1", "a"},
           {"ZREM", "s", "a"}, {"ZSCORE", "s", "a"}, {"ZMSCORE", "s", "a"}, {"ZCARD", "s"},
           {"ZCOUNT", "s", "0", "1"}, {"ZCOUNT", "s", "x", "1"}, {"ZLEXCOUNT", "s", "-", "+"},
           {"ZRANK", "s", "a"}, {"ZREVRANK", "s", "a"}, {"ZRANGE", "s", "0", "-1"},
           {"ZRANGE", "s", "0", "-1", "FOO"}, {"ZREVRANGE", "s", "0", "-1"},
           {"ZRANGEBYSCORE", "s", "0", "1"}, {"ZREVRANGEBYSCORE", "s", "1", "0"},
           {"ZRANGEBYLEX", "s", "-", "+"}, {"ZREVRANGEBYLEX", "s", "+", "-"},
           {"ZREMRANGEBYRANK", "s", "0", "1"}, {"ZREMRANGEBYSCORE", "s", "0", "1"},
           {"ZREMRANGEBYLEX", "s", "-", "+"}, {"ZPOPMIN", "s"}, {"ZPOPMAX", "s", "2"},
           {"ZPOPMIN", "s", "0"}, {"ZPOPMIN", "s", "x"}, {"ZRANDMEMBER", "s"},
           {"ZRANDMEMBER", "s", "2"}, {"ZRANDMEMBER", "s", "0"}, {"ZSCAN", "s", "0"},
           {"ZSCAN", "s", "0", "COUNT", "0"}, {"ZRANGESTORE", "d", "s", "0", "-1"},
           {"ZUNIONSTORE", "d", "1", "s"}, {"ZUNIONSTORE", "d", "1", "s", "WEIGHTS", "x"},
           {"ZINTERSTORE", "d", "2", "missing", "s"}, {"ZDIFFSTORE", "d", "1", "s"},
           {"ZUNION", "1", "s"}, {"ZINTER", "1", "s", "FOO"}, {"ZDIFF", "2", "missing", "s"},
           {"ZINTERCARD", "2", "s", "missing"}, {"ZINTERCARD", "1", "s", "LIMIT", "-1"}}) {
    Same(cmd);
  }
  Script({{"GET", "s"}, {"ZADD", "z", "1", "a"}, {"GET", "z"}, {"INCR", "z"}, {"APPEND", "z", "x"},
          {"TYPE", "z"}, {"STRLEN", "z"}, {"MGET", "s", "z"}, {"SET", "z", "now a string"},
          {"TYPE", "z"}, {"ZCARD", "z"}});
}

TEST_P(DiffZsetTest, TtlOnSortedSet) {
  Script({{"ZADD", "z", "1", "a"},
          {"EXPIRE", "z", "100"},
          {"ZADD", "z", "2", "b"},
          {"ZINCRBY", "z", "1", "a"},
          {"ZREM", "z", "b"},
          {"TTL", "z"},
          {"PERSIST", "z"},
          {"TTL", "z"},
          {"ZADD", "gone", "1", "a"},
          {"PEXPIREAT", "gone", "1"},
          {"EXISTS", "gone"},
          {"ZCARD", "gone"},
          {"ZADD", "soon", "1", "a", "2", "b"},
          {"PEXPIRE", "soon", "50"}});
  EXPECT_TRUE(PollUntil([&] { return rcc_->Cmd({"EXISTS", "soon"}) == ":0"; }));
  EXPECT_TRUE(PollUntil([&] { return redisc_->Cmd({"EXISTS", "soon"}) == ":0"; }));
  Script({{"ZRANGE", "soon", "0", "-1"}, {"ZADD", "soon", "XX", "1", "a"}, {"TTL", "soon"},
          {"ZADD", "soon", "1", "a"}, {"TTL", "soon"}, {"TYPE", "soon"}});
}

TEST_P(DiffZsetTest, SetOperationsAcrossShards) {
  std::vector<std::string> k = Spread("so", 6);
  Script({
      {"ZADD", k[0], "1", "a", "2", "b", "3", "c"},
      {"ZADD", k[1], "10", "b", "20", "c", "30", "d"},
      {"ZADD", k[2], "100", "c", "200", "d", "inf", "e"},
      {"ZADD", k[4], "-inf", "e", "0", "a"},
  });
  for (const char* op : {"ZUNION", "ZINTER", "ZDIFF"}) {
    std::string store = absl::StrCat(op, "STORE");
    for (const Args& tail : std::vector<Args>{
             {"1", k[0]},
             {"2", k[0], k[1]},
             {"3", k[0], k[1], k[2]},
             {"3", k[2], k[1], k[0]},
             {"2", k[0], k[3]},
             {"2", k[0], k[0]},
             {"2", k[2], k[4]},
             {"2", k[0], k[1], "WEIGHTS", "2", "-1"},
             {"2", k[0], k[1], "WEIGHTS", "0", "1", "AGGREGATE", "MIN"},
             {"2", k[2], k[4], "WEIGHTS", "0", "1"},
             {"2", k[2], k[4], "WEIGHTS", "1", "-1", "AGGREGATE", "max"},
             {"2", k[2], k[4], "AGGREGATE", "sum"},
             {"2", k[0], k[1], "AGGREGATE", "MAX", "AGGREGATE", "MIN"},
             {"2", k[0], k[1], "WEIGHTS", "1"},
             {"2", k[0], k[1], "WEIGHTS", "1", "x"},
             {"2", k[0], k[1], "WEIGHTS", "1", "nan"},
             {"2", k[0], k[1], "AGGREGATE", "avg"},
             {"2", k[0], k[1], "AGGREGATE"},
             {"2", k[0], k[1], "FOO"},
             {"2", k[0], k[1], "WITHSCORES", "WITHSCORES"},
             {"0", k[0]},
             {"-1", k[0]},
             {"x", k[0]},
             {"3", k[0], k[1]},
             {"1", k[0], k[1]},
         }) {
      Args read = {op};
      read.insert(read.end(), tail.begin(), tail.end());
      Same(read);
      Args scored = read;
      scored.push_back("WITHSCORES");
      Same(scored);
      Args write = {store, k[5]};
      write.insert(write.end(), tail.begin(), tail.end());
      Same(write);
      Same({"ZRANGE", k[5], "0", "-1", "WITHSCORES"});
      Args write_ws = write;
      write_ws.push_back("WITHSCORES");
      Same(write_ws);
    }
  }
  for (const Args& tail : std::vector<Args>{
           {"2", k[0], k[1]}, {"3", k[0], k[1], k[2]}, {"2", k[0], k[3]}, {"1", k[0]},
           {"2", k[0], k[1], "LIMIT", "1"}, {"2", k[0], k[1], "LIMIT", "0"},
           {"2", k[0], k[1], "LIMIT", "100"}, {"2", k[0], k[1], "LIMIT", "-1"},
           {"2", k[0], k[1], "LIMIT", "x"}, {"2", k[0], k[1], "LIMIT"},
           {"2", k[0], k[1], "WITHSCORES"}, {"2", k[0], k[1], "WEIGHTS", "1", "1"},
           {"2", k[0], k[1], "AGGREGATE", "SUM"}, {"0", k[0]}, {"3", k[0], k[1]}}) {
    Args card = {"ZINTERCARD"};
    card.insert(card.end(), tail.begin(), tail.end());
    Same(card);
  }
  // The destination may be one of the sources, or hold another type with a TTL.
  Script({{"ZUNIONSTORE", k[0], "2", k[0], k[1]},
          {"ZRANGE", k[0], "0", "-1", "WITHSCORES"},
          {"SET", k[3], "v"},
          {"EXPIRE", k[3], "100"},
          {"ZINTERSTORE", k[3], "2", k[0], k[1]},
          {"TTL", k[3]},
          {"TYPE", k[3]},
          {"ZDIFFSTORE", k[3], "2", k[0], k[0]},
          {"EXISTS", k[3]},
          // Summation order follows the inputs' sizes, smallest first.
          {"ZADD", k[1], "1e16", "m"},
          {"ZADD", k[2], "1", "m"},
          {"ZADD", k[4], "1", "m"},
          {"ZUNION", "3", k[4], k[2], k[1], "WITHSCORES"},
          {"ZUNION", "3", k[1], k[2], k[4], "WITHSCORES"}});
}

TEST_P(DiffZsetTest, CommandInfo) {
  for (const char* name :
       {"zadd", "zincrby", "zrem", "zscore", "zmscore", "zcard", "zcount", "zlexcount", "zrank",
        "zrevrank", "zrange", "zrangestore", "zrevrange", "zrangebyscore", "zrevrangebyscore",
        "zrangebylex", "zrevrangebylex", "zremrangebyrank", "zremrangebyscore", "zremrangebylex",
        "zpopmin", "zpopmax", "zrandmember", "zscan", "zunionstore", "zinterstore", "zdiffstore",
        "zunion", "zinter", "zdiff", "zintercard"}) {
    SCOPED_TRACE(name);
    Client::ReplyPtr want = redisc_->RawCmd({"COMMAND", "INFO", name});
    Client::ReplyPtr got = rcc_->RawCmd({"COMMAND", "INFO", name});
    ASSERT_TRUE(want && got);
    ASSERT_EQ(got->elements, 1u) << Canon(got.get());
    const redisReply* g = got->element[0];
    const redisReply* w = want->element[0];
    ASSERT_EQ(g->type, REDIS_REPLY_ARRAY) << Canon(got.get());
    for (size_t i : {0, 1, 3, 4, 5, 6}) {
      EXPECT_EQ(Canon(g->element[i]), Canon(w->element[i]))
          << "field " << i << "\n  redis:     " << Canon(w) << "\n  ringcache: " << Canon(g);
    }
    std::vector<std::string> gf = Strings(g->element[2]), wf = Strings(w->element[2]);
    for (const char* flag : {"write", "readonly", "fast", "denyoom"}) {
      EXPECT_EQ(std::count(gf.begin(), gf.end(), flag), std::count(wf.begin(), wf.end(), flag))
          << "flag " << flag << "\n  redis:     " << Canon(w->element[2])
          << "\n  ringcache: " << Canon(g->element[2]);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffZsetTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
