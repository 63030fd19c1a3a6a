#include "core/glob.h"

#include <chrono>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"

namespace rc {
namespace {

using namespace std::string_view_literals;

struct GlobCase {
  std::string_view pattern;
  std::string_view str;
  bool match;
};

// Every expectation is redis-server 7.0.15's answer: KEYS <pattern> over a database holding
// only <str>, or, for an empty <str> or the pattern "*" (which KEYS short-cuts), whether
// PUBLISH <str> reached a PSUBSCRIBE <pattern>.
TEST(GlobMatch, MatchesRedisKeys) {
  const GlobCase cases[] = {
      {""sv, ""sv, true},
      {""sv, "a"sv, false},
      {"a"sv, ""sv, false},
      {"?"sv, ""sv, false},
      {"*"sv, ""sv, false},
      {"**"sv, ""sv, false},
      {"*?"sv, ""sv, false},
      {"[a]"sv, ""sv, false},
      {"\\"sv, ""sv, false},
      {"hello"sv, "hello"sv, true},
      {"hello"sv, "hell"sv, false},
      {"hello"sv, "helloo"sv, false},
      {"h?llo"sv, "hello"sv, true},
      {"h?llo"sv, "hllo"sv, false},
      {"h*llo"sv, "hllo"sv, true},
      {"h*llo"sv, "heeeello"sv, true},
      {"h*llo"sv, "hellox"sv, false},
      {"h[ae]llo"sv, "hello"sv, true},
      {"h[ae]llo"sv, "hallo"sv, true},
      {"h[ae]llo"sv, "hillo"sv, false},
      {"h[^e]llo"sv, "hallo"sv, true},
      {"h[^e]llo"sv, "hello"sv, false},
      {"h[a-b]llo"sv, "hbllo"sv, true},
      {"h[a-b]llo"sv, "hcllo"sv, false},
      {"h\\*llo"sv, "h*llo"sv, true},
      {"h\\*llo"sv, "hello"sv, false},
      {"\\?"sv, "?"sv, true},
      {"\\?"sv, "a"sv, false},
      {"a\\"sv, "a\\"sv, true},
      {"a\\"sv, "a"sv, false},
      {"\\\\"sv, "\\"sv, true},
      {"[\\]]"sv, "]"sv, true},
      {"[\\]]"sv, "\\"sv, false},
      {"[\\"sv, "\\"sv, true},
      {"[\\"sv, "x"sv, false},
      {"[a\\-z]"sv, "-"sv, true},
      {"[a\\-z]"sv, "b"sv, false},
      {"[\\a-c]"sv, "b"sv, false},
      {"["sv, "["sv, false},
      {"["sv, "x"sv, false},
      {"[a"sv, "a"sv, true},
      {"[a"sv, "["sv, false},
      {"[^"sv, "x"sv, true},
      {"[^a"sv, "b"sv, true},
      {"[^a"sv, "a"sv, false},
      {"ab["sv, "ab"sv, false},
      {"ab[c"sv, "abc"sv, true},
      {"ab[c"sv, "ab["sv, false},
      {"[a-"sv, "a"sv, true},
      {"[a-"sv, "-"sv, true},
      {"[a-"sv, "b"sv, false},
      {"x[ab]*"sv, "xa"sv, true},
      {"[ab]*["sv, "ab"sv, false},
      {"[ab]*["sv, "a["sv, false},
      {"[z-a]"sv, "m"sv, true},
      {"[z-a]"sv, "A"sv, false},
      {"[a-]"sv, "b"sv, false},
      {"[a-]"sv, "^"sv, true},
      {"[a-]"sv, "]"sv, true},
      {"[a-]"sv, "a"sv, true},
      {"[a-]]"sv, "]]"sv, false},
      {"[a-]]"sv, "a"sv, true},
      {"[]]"sv, "]"sv, false},
      {"[]a]"sv, "a"sv, false},
      {"[]a]"sv, "]"sv, false},
      {"[]"sv, "x"sv, false},
      {"[!a]"sv, "!"sv, true},
      {"[!a]"sv, "b"sv, false},
      {"[a-c-e]"sv, "d"sv, false},
      {"[a-c-e]"sv, "-"sv, true},
      {"[a-c-e]"sv, "e"sv, true},
      {"[^a-c]"sv, "d"sv, true},
      {"[^a-c]"sv, "b"sv, false},
      {"[^]"sv, "^"sv, true},
      {"[^]]"sv, "x"sv, false},
      {"[-a]"sv, "-"sv, true},
      {"[a-a]"sv, "a"sv, true},
      {"*a"sv, "a"sv, true},
      {"*a"sv, "ba"sv, true},
      {"*a"sv, "ab"sv, false},
      {"a*"sv, "a"sv, true},
      {"a**b"sv, "ab"sv, true},
      {"a**b"sv, "axxb"sv, true},
      {"?*"sv, "a"sv, true},
      {"*?*"sv, "ab"sv, true},
      {"*?"sv, "a"sv, true},
      {"a*b*c"sv, "abc"sv, true},
      {"a*b*c"sv, "aXbYc"sv, true},
      {"a*b*c"sv, "acb"sv, false},
      {"*.txt"sv, "notes.txt"sv, true},
      {"*.txt"sv, "notes.txt.bak"sv, false},
      {"user:*:name"sv, "user:42:name"sv, true},
      {"user:*:name"sv, "user:42:email"sv, false},
      {"user:?"sv, "user:"sv, false},
      {"*\\*"sv, "a*"sv, true},
      {"*\\*"sv, "a"sv, false},
      {"[a-\xff]"sv, "\x00"sv, true},
      {"[a-\xff]"sv, "b"sv, false},
      {"[a-\xff]"sv, "\x80"sv, false},
      {"[\x80-\xff]"sv, "\x90"sv, true},
      {"[\x80-\xff]"sv, "a"sv, false},
      {"[\x01-\x7f]"sv, "\x80"sv, false},
      {"\xe4\xb8\xad*"sv, "\xe4\xb8\xad\xe6\x96\x87"sv, true},
      {"?"sv, "\xe4\xb8\xad"sv, false},
      {"a\0b"sv, "a\0b"sv, true},
      {"a?b"sv, "a\0b"sv, true},
      {"a*"sv, "a\x00"sv, true},
  };
  for (const GlobCase& c : cases) {
    EXPECT_EQ(GlobMatch(c.pattern, c.str), c.match)
        << "pattern \"" << c.pattern << "\" string \"" << c.str << '"';
  }
}

// nocase expectations come from COMMAND LIST FILTERBY PATTERN, which Redis matches with
// nocase set, against the command names "get", "bitcount" and "config|get".
TEST(GlobMatch, NocaseMatchesRedisCommandListFilter) {
  const GlobCase cases[] = {
      {"GET", "get", true},
      {"gEt", "get", true},
      {"G?T", "get", true},
      {"[F-H]et", "get", true},
      {"[g]et", "get", true},
      {"[^G]et", "get", false},
      {"[^g]et", "get", false},
      {"[^A-Z]et", "get", false},
      // Escaped bytes inside brackets compare exactly even with nocase; outside they fold.
      {"[\\G]et", "get", false},
      {"\\Get", "get", true},
      // Range ends are ordered first and folded after: [B-a] becomes the empty [b-a].
      {"[B-a]itcount", "bitcount", false},
      {"[a-B]itcount", "bitcount", false},
      {"[b-a]itcount", "bitcount", true},
      {"[A-b]itcount", "bitcount", true},
      {"CONFIG|G*", "config|get", true},
      {"CONFIG|G*", "get", false},
  };
  for (const GlobCase& c : cases) {
    EXPECT_EQ(GlobMatch(c.pattern, c.str, /*nocase=*/true), c.match)
        << "pattern \"" << c.pattern << "\" string \"" << c.str << '"';
  }
  EXPECT_FALSE(GlobMatch("GET", "get"));
  EXPECT_FALSE(GlobMatch("[A-Z]et", "get"));
}

TEST(GlobMatch, NocaseFoldsAsciiOnly) {
  EXPECT_TRUE(GlobMatch("\xc3\x84", "\xc3\x84", true));
  EXPECT_FALSE(GlobMatch("\xc3\x84", "\xc3\xa4", true));  // Ä vs ä in UTF-8
  // Folding the end 'Z' to 'z' widens the range over '[' to '`' too, as in Redis.
  EXPECT_TRUE(GlobMatch("[@-Z]", "a", true));
  EXPECT_TRUE(GlobMatch("[@-Z]", "[", true));
  EXPECT_FALSE(GlobMatch("[@-Z]", "["));
}

// The textbook O(n*m) dynamic program, as the reference for patterns of literals, '?' and
// '*'. Redis differs in one spot: a non-empty pattern never matches the empty string,
// since its loop needs a byte of input to start.
bool ReferenceMatch(std::string_view p, std::string_view s) {
  if (s.empty()) return p.empty();
  std::vector<std::vector<bool>> m(p.size() + 1, std::vector<bool>(s.size() + 1));
  m[0][0] = true;
  for (size_t i = 1; i <= p.size(); ++i) {
    for (size_t j = 0; j <= s.size(); ++j) {
      if (p[i - 1] == '*') {
        m[i][j] = m[i - 1][j] || (j > 0 && m[i][j - 1]);
      } else {
        m[i][j] = j > 0 && m[i - 1][j - 1] && (p[i - 1] == '?' || p[i - 1] == s[j - 1]);
      }
    }
  }
  return m[p.size()][s.size()];
}

TEST(GlobMatch, AgreesWithReferenceOnStarsAndQuestionMarks) {
  // Checks that skipping longer matches for earlier stars never loses a real match.
  std::mt19937 rng(5);
  const char pattern_bytes[] = {'a', 'b', '*', '?'};
  const char string_bytes[] = {'a', 'b'};
  for (int i = 0; i < 100000; ++i) {
    std::string p(rng() % 9, ' ');
    for (char& c : p) c = pattern_bytes[rng() % 4];
    std::string s(rng() % 12, ' ');
    for (char& c : s) c = string_bytes[rng() % 2];
    ASSERT_EQ(GlobMatch(p, s), ReferenceMatch(p, s))
        << "pattern \"" << p << "\" string \"" << s << '"';
  }
}

std::string Repeat(std::string_view piece, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += piece;
  return out;
}

TEST(GlobMatch, PathologicalPatternsFinishQuickly) {
  // Without the early exit each of these takes exponential time in the number of stars.
  const std::string as(100000, 'a');
  std::string ab;
  for (int i = 0; i < 50000; ++i) ab += "ab";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(GlobMatch("a*a*a*a*a*a*a*a*b", as));
  EXPECT_FALSE(GlobMatch(Repeat("*a", 40) + "b", as));
  EXPECT_FALSE(GlobMatch(Repeat("a*", 40) + "?b", as));
  EXPECT_FALSE(GlobMatch(Repeat("*?", 30) + "c", ab));
  EXPECT_FALSE(GlobMatch(Repeat("*[ab]", 30) + "c*", ab));
  EXPECT_TRUE(GlobMatch(Repeat("a*", 40) + "a", as));
  EXPECT_TRUE(GlobMatch(Repeat("*ab", 40) + "*", ab));
  // Generous enough for sanitizer builds; the exponential version would take years.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(GlobMatch, GivesUpBeyondOneThousandNestedStars) {
  // Redis 7.0.15: KEYS ("a*" x 1001) finds the key "a" x 1001; one star more finds nothing,
  // because the last star sits 1001 recursion levels deep.
  EXPECT_TRUE(GlobMatch(Repeat("a*", 1001), std::string(1001, 'a')));
  EXPECT_FALSE(GlobMatch(Repeat("a*", 1002), std::string(1002, 'a')));
  // Consecutive stars collapse into one level, so they do not count against the limit.
  EXPECT_TRUE(GlobMatch("a" + std::string(5000, '*') + "b", "axxb"));
  // A pattern this deep must fail fast instead of exhausting the stack.
  EXPECT_FALSE(GlobMatch(Repeat("*a", 100000), std::string(100000, 'a')));
}

}  // namespace
}  // namespace rc
