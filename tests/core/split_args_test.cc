#include "core/split_args.h"

#include "gtest/gtest.h"

namespace rc {
namespace {

using V = std::vector<std::string>;

TEST(SplitArgs, PlainAndQuoted) {
  EXPECT_EQ(*SplitArgs("  set  a   b "), (V{"set", "a", "b"}));
  EXPECT_EQ(*SplitArgs("set \"a b\" 'c d'"), (V{"set", "a b", "c d"}));
  EXPECT_EQ(*SplitArgs("\"\\x41\\n\\t\\\\\""), (V{"A\n\t\\"}));
  EXPECT_EQ(*SplitArgs("'it\\'s'"), (V{"it's"}));
  EXPECT_EQ(*SplitArgs("\"\""), (V{""}));
  EXPECT_EQ(*SplitArgs(""), V{});
}

TEST(SplitArgs, UnbalancedQuotes) {
  EXPECT_FALSE(SplitArgs("set \"abc"));
  EXPECT_FALSE(SplitArgs("set 'abc"));
  // A closing quote must end the argument.
  EXPECT_FALSE(SplitArgs("\"abc\"def"));
}

}  // namespace
}  // namespace rc
