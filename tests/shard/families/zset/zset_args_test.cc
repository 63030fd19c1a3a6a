// The sorted-set argument helpers against Redis 7.0's rules: score and lex bounds, the
// ZRANGE grammar, the rank walk a query plans, and how scores print.

#include "shard/families/zset/zset_args.h"

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rc {
namespace {

TEST(ZSetArgs, ScoreBounds) {
  ScoreBound b;
  ASSERT_TRUE(ParseScoreBound("1.5", &b));
  EXPECT_EQ(b.value, 1.5);
  EXPECT_FALSE(b.exclusive);
  ASSERT_TRUE(ParseScoreBound("(2", &b));
  EXPECT_EQ(b.value, 2);
  EXPECT_TRUE(b.exclusive);
  ASSERT_TRUE(ParseScoreBound("-inf", &b));
  EXPECT_TRUE(std::isinf(b.value) && b.value < 0);
  ASSERT_TRUE(ParseScoreBound("(+inf", &b));
  EXPECT_TRUE(std::isinf(b.value) && b.value > 0);
  // zslParseRange is plain strtod: these pass in Redis too.
  EXPECT_TRUE(ParseScoreBound("", &b));
  EXPECT_TRUE(ParseScoreBound("(", &b));
  EXPECT_TRUE(ParseScoreBound(" 1", &b));
  EXPECT_TRUE(ParseScoreBound("1e400", &b));
  EXPECT_TRUE(ParseScoreBound(std::string_view("3\0x", 3), &b));
  EXPECT_EQ(b.value, 3);
  for (const char* bad : {"nan", "(nan", "1 ", "x", "((1", "[1", "1x"}) {
    EXPECT_FALSE(ParseScoreBound(bad, &b)) << bad;
  }
}

TEST(ZSetArgs, LexBounds) {
  LexBound b;
  ASSERT_TRUE(ParseLexBound("-", &b));
  EXPECT_EQ(b.kind, LexBound::Kind::kMin);
  ASSERT_TRUE(ParseLexBound("+", &b));
  EXPECT_EQ(b.kind, LexBound::Kind::kMax);
  ASSERT_TRUE(ParseLexBound("[abc", &b));
  EXPECT_EQ(b.kind, LexBound::Kind::kInclusive);
  EXPECT_EQ(b.value, "abc");
  ASSERT_TRUE(ParseLexBound("(", &b));
  EXPECT_EQ(b.kind, LexBound::Kind::kExclusive);
  EXPECT_EQ(b.value, "");
  for (const char* bad : {"", "a", "+a", "-a", "]"}) EXPECT_FALSE(ParseLexBound(bad, &b)) << bad;
}

TEST(ZSetArgs, ScoresPrintAsRedis70) {
  auto print = [](double d) {
    std::string out;
    ReplyBuilder rb(&out);
    ReplyScore(rb, d);
    return out;
  };
  EXPECT_EQ(print(0.1), "$19\r\n0.10000000000000001\r\n");
  EXPECT_EQ(print(3), "$1\r\n3\r\n");
  EXPECT_EQ(print(-0.0), "$2\r\n-0\r\n");
  EXPECT_EQ(print(INFINITY), "$3\r\ninf\r\n");
  EXPECT_EQ(print(-INFINITY), "$4\r\n-inf\r\n");
  EXPECT_EQ(ListpackScore(123456789012345678.0), "123456789012345680");
  EXPECT_EQ(ListpackScore(-0.0), "0");
  EXPECT_EQ(ListpackScore(2.5), "2.5");
  EXPECT_EQ(ListpackScore(1e300), "1.0000000000000001e+300");
  EXPECT_EQ(ListpackScore(INFINITY), "inf");
}

TEST(ZSetArgs, NegativeZeroIsKeptOnlyWhereRedisUsesASkiplist) {
  const ZSet::Limits redis;  // 128 members of 64 bytes
  ZSet z;
  EXPECT_FALSE(std::signbit(ScoreToStore(z, redis, "m", -0.0)));
  EXPECT_TRUE(std::signbit(ScoreToStore(z, redis, std::string(65, 'x'), -0.0)));
  EXPECT_EQ(ScoreToStore(z, redis, "m", 2.5), 2.5);
  for (int i = 0; i < 128; ++i) z.Add(std::to_string(i), i, redis);
  EXPECT_FALSE(std::signbit(ScoreToStore(z, redis, "5", -0.0)));   // an update: still 128
  EXPECT_TRUE(std::signbit(ScoreToStore(z, redis, "new", -0.0)));  // the 129th member
  EXPECT_TRUE(ListpackLike(z, redis));
  EXPECT_FALSE(ListpackLike(z, redis, 1, 1));
  // Other limits (CONFIG SET zset-max-listpack-*) move the line.
  EXPECT_FALSE(std::signbit(ScoreToStore(z, {200, 64}, "new", -0.0)));
  EXPECT_TRUE(std::signbit(ScoreToStore(z, {200, 2}, "new", -0.0)));
  // Grown past the limit and shrunk back: a skiplist in Redis for good, so -0 stays.
  z.Add("new", 1, redis);
  for (int i = 0; i < 120; ++i) z.Remove(std::to_string(i));
  EXPECT_FALSE(z.compact());
  EXPECT_FALSE(ListpackLike(z, redis));
  EXPECT_TRUE(std::signbit(ScoreToStore(z, redis, "other", -0.0)));
}

TEST(ZSetArgs, BuildZSetFollowsTheLimits) {
  const ScoredMembers three = {{"a", 1}, {"b", 2}, {"c", 3}};
  EXPECT_TRUE(BuildZSet(three, {})->compact());
  EXPECT_FALSE(BuildZSet(three, {2, 64})->compact());
  EXPECT_FALSE(BuildZSet(three, {128, 0})->compact());
  EXPECT_TRUE(BuildZSet(three, {3, 1}, /*incremental=*/true, 3)->compact());
  EXPECT_FALSE(BuildZSet(three, {2, 64}, /*incremental=*/true, 3)->compact());
}

TEST(ZSetArgs, ClampRanksLikeRedis) {
  size_t f, l;
  ASSERT_TRUE(ClampRanks(0, -1, 5, &f, &l));
  EXPECT_EQ(f, 0u);
  EXPECT_EQ(l, 4u);
  ASSERT_TRUE(ClampRanks(-100, 100, 5, &f, &l));
  EXPECT_EQ(f, 0u);
  EXPECT_EQ(l, 4u);
  EXPECT_FALSE(ClampRanks(3, 1, 5, &f, &l));
  EXPECT_FALSE(ClampRanks(5, 10, 5, &f, &l));
  EXPECT_FALSE(ClampRanks(0, -1, 0, &f, &l));
  EXPECT_FALSE(ClampRanks(-1, -6, 5, &f, &l));
}

class RangeQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 1; i <= 5; ++i) z_.Add(std::string(1, char('a' + i - 1)), i);
  }
  // ZRANGE-style args from a string list; returns the members selected, or the error.
  std::string Run(std::vector<std::string> words, RangeQuery q = {}) {
    std::vector<std::string_view> args(words.begin(), words.end());
    std::string error;
    if (!ParseRangeQuery(ArgList(args.data(), args.size()), 1, false, &q, &error)) return error;
    std::string out;
    Walk(z_, PlanRange(z_, q), [&](std::string_view m, double) { out.append(m); });
    return out;
  }
  ZSet z_;
};

TEST_F(RangeQueryTest, RankScoreAndLex) {
  EXPECT_EQ(Run({"zrange", "k", "0", "-1"}), "abcde");
  EXPECT_EQ(Run({"zrange", "k", "1", "2", "REV"}), "dc");
  EXPECT_EQ(Run({"zrange", "k", "(1", "4", "BYSCORE"}), "bcd");
  EXPECT_EQ(Run({"zrange", "k", "4", "(1", "BYSCORE", "REV"}), "dcb");
  EXPECT_EQ(Run({"zrange", "k", "-inf", "+inf", "BYSCORE", "LIMIT", "1", "2"}), "bc");
  EXPECT_EQ(Run({"zrange", "k", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", "1", "2"}), "dc");
  EXPECT_EQ(Run({"zrange", "k", "-inf", "+inf", "BYSCORE", "LIMIT", "-1", "2"}), "");
  EXPECT_EQ(Run({"zrange", "k", "-inf", "+inf", "BYSCORE", "LIMIT", "3", "-1"}), "de");
  EXPECT_EQ(Run({"zrange", "k", "3", "2", "BYSCORE"}), "");
  EXPECT_EQ(Run({"zrange", "k", "(2", "2", "BYSCORE"}), "");
  EXPECT_EQ(Run({"zrange", "k", "[b", "(d", "BYLEX"}), "bc");
  EXPECT_EQ(Run({"zrange", "k", "+", "[c", "BYLEX", "REV"}), "edc");
}

TEST_F(RangeQueryTest, GrammarErrors) {
  EXPECT_EQ(Run({"zrange", "k", "0", "-1", "LIMIT", "0", "1"}),
            "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or "
            "BYLEX");
  EXPECT_EQ(Run({"zrange", "k", "-", "+", "BYLEX", "WITHSCORES"}),
            "ERR syntax error, WITHSCORES not supported in combination with BYLEX");
  EXPECT_EQ(Run({"zrange", "k", "0", "-1", "REV", "REV"}), "ERR syntax error");
  EXPECT_EQ(Run({"zrange", "k", "0", "-1", "BYSCORE", "BYLEX"}), "ERR syntax error");
  EXPECT_EQ(Run({"zrange", "k", "x", "1", "BYSCORE"}), "ERR min or max is not a float");
  EXPECT_EQ(Run({"zrange", "k", "a", "+", "BYLEX"}), "ERR min or max not valid string range item");
  EXPECT_EQ(Run({"zrange", "k", "0", "x"}), "ERR value is not an integer or out of range");
  RangeQuery fixed;
  fixed.type = RangeQuery::Type::kScore;
  fixed.rev_fixed = true;
  EXPECT_EQ(Run({"zrangebyscore", "k", "0", "1", "REV"}, fixed), "ERR syntax error");
  EXPECT_EQ(Run({"zrangebyscore", "k", "0", "1", "BYSCORE"}, fixed), "ERR syntax error");
}

TEST(ZSetArgs, BuildZSetStoresNormalizedScores) {
  auto z = BuildZSet({{"a", -0.0}, {"b", 2}}, {});
  ASSERT_EQ(z->size(), 2u);
  EXPECT_FALSE(std::signbit(*z->Score("a")));
  ScoredMembers all = CopyRange(*z, RankWalk{0, 2, false});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].first, "b");
  EXPECT_TRUE(BuildZSet({}, {})->size() == 0);
}

}  // namespace
}  // namespace rc
