// ArgParser: typed reads, options with values, choices, Redis's error texts, and that the
// first error is the one kept.

#include "shard/command/arg_parser.h"

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rc {
namespace {

class ArgParserTest : public ::testing::Test {
 protected:
  // A parser over `words`, starting at `start`.
  ArgParser Parse(std::vector<std::string> words, size_t start = 0) {
    words_ = std::move(words);
    views_.assign(words_.begin(), words_.end());
    return ArgParser(ArgList(views_.data(), views_.size()), start);
  }

 private:
  std::vector<std::string> words_;
  std::vector<std::string_view> views_;
};

TEST_F(ArgParserTest, TypedReads) {
  ArgParser p = Parse({"cmd", "abc", "-42", "2.5", "inf"}, 1);
  EXPECT_EQ(p.Remaining(), 4u);
  EXPECT_EQ(p.Next<std::string_view>(), "abc");
  EXPECT_EQ(p.Next<int64_t>(), -42);
  EXPECT_EQ(p.Next<double>(), 2.5);
  EXPECT_EQ(p.Next<double>(), INFINITY);
  EXPECT_FALSE(p.HasNext());
  EXPECT_TRUE(p.Finish());
  EXPECT_EQ(p.pos(), 5u);
}

TEST_F(ArgParserTest, MalformedValuesGiveRedisTexts) {
  ArgParser p = Parse({"1x"});
  p.Next<int64_t>();
  EXPECT_EQ(p.error(), "ERR value is not an integer or out of range");
  p = Parse({"nan"});
  p.Next<double>();
  EXPECT_EQ(p.error(), "ERR value is not a valid float");
  p = Parse({"x"});
  p.Next<double>("ERR weight value is not a float");
  EXPECT_EQ(p.error(), "ERR weight value is not a float");
  p = Parse({});
  p.Next<std::string_view>();
  EXPECT_EQ(p.error(), "ERR syntax error");
}

TEST_F(ArgParserTest, RangesAsGetRangeLongFromObjectOrReply) {
  ArgParser p = Parse({"-9223372036854775808"});
  p.NextInRange(-INT64_MAX, INT64_MAX);
  EXPECT_EQ(p.error(),
            "ERR value is out of range, value must between -9223372036854775807 and "
            "9223372036854775807");
  // With a message, it serves both failures.
  for (const char* arg : {"-1", "x"}) {
    p = Parse({arg});
    p.NextInRange(0, INT64_MAX, "ERR LIMIT can't be negative");
    EXPECT_EQ(p.error(), "ERR LIMIT can't be negative") << arg;
  }
  p = Parse({"7"});
  EXPECT_EQ(p.NextInRange(0, 7), 7);
  EXPECT_TRUE(p.ok());
}

TEST_F(ArgParserTest, FlagsAreCaseInsensitiveAndConsumeOnlyOnMatch) {
  ArgParser p = Parse({"nX", "other"});
  EXPECT_FALSE(p.Flag("XX"));
  EXPECT_TRUE(p.Flag("NX"));
  EXPECT_FALSE(p.Flag("NX"));
  EXPECT_EQ(p.Peek(), "other");
  EXPECT_FALSE(p.Finish());
  EXPECT_EQ(p.error(), "ERR syntax error");
}

TEST_F(ArgParserTest, OptionNeedsItsValues) {
  // A keyword without enough values after it is not the option (Redis's `moreargs`).
  ArgParser p = Parse({"LIMIT", "1"});
  EXPECT_FALSE(p.Option("LIMIT", 2));
  EXPECT_EQ(p.pos(), 0u);
  EXPECT_TRUE(p.Option("limit", 1));
  EXPECT_EQ(p.Next<int64_t>(), 1);
  p = Parse({"COUNT"});
  EXPECT_FALSE(p.Option("COUNT"));
  EXPECT_TRUE(p.ok());
}

TEST_F(ArgParserTest, Choices) {
  enum class Agg { kSum, kMin, kMax };
  ArgParser p = Parse({"max", "avg"});
  EXPECT_EQ(p.NextOneOf<Agg>({{"SUM", Agg::kSum}, {"MIN", Agg::kMin}, {"MAX", Agg::kMax}}),
            Agg::kMax);
  EXPECT_FALSE(p.Choice<Agg>({{"SUM", Agg::kSum}}).has_value());
  EXPECT_TRUE(p.ok());
  p.NextOneOf<Agg>({{"SUM", Agg::kSum}});
  EXPECT_EQ(p.error(), "ERR syntax error");
}

TEST_F(ArgParserTest, KeepsTheFirstErrorAndStops) {
  ArgParser p = Parse({"x", "y", "z"});
  p.Next<int64_t>();
  p.Fail("ERR second");
  EXPECT_EQ(p.error(), "ERR value is not an integer or out of range");
  // Nothing more is read or consumed once failed.
  EXPECT_FALSE(p.HasNext());
  EXPECT_EQ(p.Remaining(), 0u);
  EXPECT_EQ(p.Next<std::string_view>(), "");
  EXPECT_FALSE(p.Flag("y"));
  EXPECT_EQ(p.pos(), 1u);  // only the malformed argument
  EXPECT_FALSE(p.Finish());
}

TEST_F(ArgParserTest, FinishWithRedisTextOfTheCommand) {
  ArgParser p = Parse({"FLUSH", "later"}, 1);
  p.Choice<bool>({{"SYNC", false}, {"ASYNC", true}});
  EXPECT_FALSE(p.Finish("ERR FUNCTION FLUSH only supports SYNC|ASYNC option"));
  EXPECT_EQ(p.error(), "ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
}

}  // namespace
}  // namespace rc
