#include "core/numbers.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace rc {
namespace {

using namespace std::string_view_literals;

// Expected values in the tables below are redis-server 7.0.15's replies: INCRBY for
// integers, ZADD then ZSCORE (skiplist encoding) for doubles, SET then INCRBYFLOAT for long
// doubles. std::nullopt means Redis answered with an error.

struct IntCase {
  std::string_view input;
  std::optional<int64_t> want;
};

TEST(ParseInt64, MatchesRedisIncrby) {
  const IntCase cases[] = {
      {"0", 0},
      {"1", 1},
      {"-1", -1},
      {"42", 42},
      {"9223372036854775807", INT64_MAX},
      {"-9223372036854775808", INT64_MIN},
      {"-9223372036854775807", -INT64_MAX},
      {"-0", std::nullopt},
      {"+1", std::nullopt},
      {" 1", std::nullopt},
      {"1 ", std::nullopt},
      {"\t1", std::nullopt},
      {"01", std::nullopt},
      {"-01", std::nullopt},
      {"00", std::nullopt},
      {"-00", std::nullopt},
      {"", std::nullopt},
      {"-", std::nullopt},
      {"9223372036854775808", std::nullopt},
      {"-9223372036854775809", std::nullopt},
      {"18446744073709551616", std::nullopt},
      {"99999999999999999999", std::nullopt},
      {"12345678901234567890", std::nullopt},
      {"00000000000000000001", std::nullopt},
      {"123a", std::nullopt},
      {"0x10", std::nullopt},
      {"1e3", std::nullopt},
      {"1.0", std::nullopt},
      {"1\0"sv, std::nullopt},
  };
  for (const IntCase& c : cases) {
    int64_t got = 12345;
    const bool ok = ParseInt64(c.input, &got);
    ASSERT_EQ(ok, c.want.has_value()) << '"' << c.input << '"';
    if (ok) {
      EXPECT_EQ(got, *c.want) << '"' << c.input << '"';
    } else {
      EXPECT_EQ(got, 12345) << "output written on failure for \"" << c.input << '"';
    }
  }
}

TEST(ParseInt64, RejectsInputsLongerThanTwentyBytes) {
  int64_t v;
  EXPECT_FALSE(ParseInt64("-92233720368547758080", &v));
  EXPECT_FALSE(ParseInt64(std::string(5000, '9'), &v));
}

TEST(ParseInt64, RoundTripsFormatInt64) {
  std::mt19937_64 rng(1);
  char buf[kMaxInt64Chars];
  for (int i = 0; i < 100000; ++i) {
    // Vary the magnitude so short and long numbers are both common.
    const int64_t v = static_cast<int64_t>(rng()) >> (rng() % 64);
    const std::string_view text(buf, FormatInt64(v, buf) - buf);
    ASSERT_EQ(text, std::to_string(v));
    int64_t back;
    ASSERT_TRUE(ParseInt64(text, &back)) << text;
    ASSERT_EQ(back, v);
  }
}

TEST(ParseUint64, AcceptsTheFullRangeWithOneSpellingPerValue) {
  uint64_t v = 0;
  EXPECT_TRUE(ParseUint64("0", &v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(ParseUint64("18446744073709551615", &v));
  EXPECT_EQ(v, UINT64_MAX);
  EXPECT_TRUE(ParseUint64("9223372036854775808", &v));
  EXPECT_EQ(v, uint64_t{1} << 63);
  for (std::string_view bad :
       {"18446744073709551616"sv, "99999999999999999999"sv, "-1"sv, "-0"sv, "+1"sv, "01"sv, " 1"sv,
        "1 "sv, ""sv, "1x"sv, "184467440737095516150"sv}) {
    EXPECT_FALSE(ParseUint64(bad, &v)) << '"' << bad << '"';
  }
}

TEST(FormatInt64, WritesNoTerminatorAndFitsTheLimit) {
  char buf[kMaxInt64Chars + 1];
  std::memset(buf, 'x', sizeof(buf));
  EXPECT_EQ(FormatInt64(INT64_MIN, buf), buf + kMaxInt64Chars);
  EXPECT_EQ(std::string_view(buf, kMaxInt64Chars), "-9223372036854775808");
  EXPECT_EQ(buf[kMaxInt64Chars], 'x');
  EXPECT_EQ(std::string_view(buf, FormatInt64(0, buf) - buf), "0");
  EXPECT_EQ(std::string_view(buf, FormatInt64(-7, buf) - buf), "-7");
  EXPECT_EQ(std::string_view(buf, FormatInt64(INT64_MAX, buf) - buf), "9223372036854775807");
}

struct DoubleCase {
  std::string_view input;
  std::optional<std::string_view> zscore;
};

TEST(ParseDouble, MatchesRedisZaddThenZscore) {
  const DoubleCase cases[] = {
      {"1.1", "1.1000000000000001"},
      {"0.1", "0.10000000000000001"},
      {"+1.5", "1.5"},
      {"-2.5", "-2.5"},
      {"2", "2"},
      {"100", "100"},
      {"1e-3", "0.001"},
      {"1e-4", "0.0001"},
      {"1e-5", "1.0000000000000001e-05"},
      {"1e-7", "9.9999999999999995e-08"},
      {"-1.5e-10", "-1.5e-10"},
      {"12345.678", "12345.678"},
      {"3.141592653589793", "3.1415926535897931"},
      {"0.30000000000000004", "0.30000000000000004"},
      {"1e15", "1000000000000000"},
      {"1e16", "10000000000000000"},
      {"1e17", "1e+17"},
      {"1e20", "1e+20"},
      {"1e+300", "1.0000000000000001e+300"},
      {"1e308", "1e+308"},
      {"1.7976931348623157e308", "1.7976931348623157e+308"},
      {"9007199254740993", "9007199254740992"},
      {"123456789012345678", "1.2345678901234568e+17"},
      {"1234567890123456789", "1.2345678901234568e+18"},
      {"2.2250738585072014e-308", "2.2250738585072014e-308"},
      {"4.9e-324", "4.9406564584124654e-324"},
      {"2.5e-320", "2.4999721679567075e-320"},
      {"-1e-320", "-9.9998886718268301e-321"},
      {".5", "0.5"},
      {"5.", "5"},
      {"0.1e1", "1"},
      {"1e0", "1"},
      {"1.0e3", "1000"},
      {"00001", "1"},
      {"0", "0"},
      {"-0", "-0"},
      {"0x10", "16"},
      {"0x1p3", "8"},
      {"0X1P-2", "0.25"},
      {"inf", "inf"},
      {"+inf", "inf"},
      {"-inf", "-inf"},
      {"INF", "inf"},
      {"-InF", "-inf"},
      {"infinity", "inf"},
      {"-Infinity", "-inf"},
      {"nan", std::nullopt},
      {"NaN", std::nullopt},
      {"-nan", std::nullopt},
      {"nan(123)", std::nullopt},
      {"1e400", std::nullopt},
      {"-1e400", std::nullopt},
      {"1e-400", std::nullopt},
      {"1.7976931348623159e308", std::nullopt},
      {"", std::nullopt},
      {" 1", std::nullopt},
      {"\t1", std::nullopt},
      {"1 ", std::nullopt},
      {"1\n", std::nullopt},
      {"1\0"sv, std::nullopt},
      {"1e", std::nullopt},
      {"1e+", std::nullopt},
      {"+", std::nullopt},
      {"-", std::nullopt},
      {".", std::nullopt},
      {"e5", std::nullopt},
      {"1,5", std::nullopt},
      {"1_000", std::nullopt},
      {"0x", std::nullopt},
      {"infx", std::nullopt},
      {"in", std::nullopt},
  };
  for (const DoubleCase& c : cases) {
    double got = 12345;
    const bool ok = ParseDouble(c.input, &got);
    ASSERT_EQ(ok, c.zscore.has_value()) << '"' << c.input << '"';
    if (ok) {
      EXPECT_EQ(FormatDouble(got), *c.zscore) << '"' << c.input << '"';
    } else {
      EXPECT_EQ(got, 12345) << "output written on failure for \"" << c.input << '"';
    }
  }
}

TEST(ParseDouble, HandlesInputsLongerThanTheStackBuffer) {
  double v;
  const std::string zeros(200, '0');
  ASSERT_TRUE(ParseDouble("0." + zeros + "1", &v));
  EXPECT_EQ(v, 1e-201);
  ASSERT_TRUE(ParseDouble(zeros + "7", &v));
  EXPECT_EQ(v, 7);
  EXPECT_FALSE(ParseDouble(zeros + "7 ", &v));
  EXPECT_FALSE(ParseDouble(zeros + std::string("7\0", 2), &v));
  // Redis answers "not a valid float" for both: overflow, and underflow all the way to 0.
  EXPECT_FALSE(ParseDouble("-" + std::string(400, '1'), &v));
  EXPECT_FALSE(ParseDouble("0." + std::string(400, '0') + "1", &v));
}

TEST(FormatDouble, AgreesWithPrintfPrecision17) {
  // FormatDouble uses to_chars for speed; Redis 7.0 uses snprintf("%.17g"). Compare them over
  // random bit patterns, which reach every exponent, denormals included.
  std::mt19937_64 rng(7);
  char mine[kMaxDoubleChars];
  char want[64];
  for (int i = 0; i < 200000; ++i) {
    const uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    if (!std::isfinite(d)) continue;
    std::snprintf(want, sizeof(want), "%.17g", d);
    ASSERT_EQ(std::string_view(mine, FormatDouble(d, mine) - mine), want) << bits;
  }
}

TEST(FormatDouble, RoundTripsExactly) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    if (!std::isfinite(d) || d == 0) continue;
    double back;
    const std::string text = FormatDouble(d);
    // Denormals that strtod flags ERANGE still parse; only a collapse to zero is refused.
    ASSERT_TRUE(ParseDouble(text, &back)) << text;
    ASSERT_EQ(back, d) << text;
  }
}

TEST(FormatDouble, SpecialValues) {
  EXPECT_EQ(FormatDouble(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(FormatDouble(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(FormatDouble(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(FormatDouble(-std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(FormatDouble(-0.0), "-0");
  EXPECT_EQ(FormatDouble(-std::numeric_limits<double>::min()), "-2.2250738585072014e-308");
  EXPECT_EQ(FormatDouble(-std::numeric_limits<double>::min()).size(), kMaxDoubleChars);
}

struct IncrCase {
  std::string_view stored;
  std::string_view increment;
  std::string_view reply;  // "ERR" for a parse error, "NANINF" for a NaN/inf result.
};

std::string IncrByFloat(std::string_view stored, std::string_view increment) {
  long double a;
  long double b;
  if (!ParseLongDouble(stored, &a) || !ParseLongDouble(increment, &b)) return "ERR";
  const long double sum = a + b;
  if (std::isnan(sum) || std::isinf(sum)) return "NANINF";
  return FormatLongDouble(sum);
}

TEST(FormatLongDouble, MatchesRedisIncrbyfloat) {
  const IncrCase cases[] = {
      {"10.5", "0.1", "10.6"},
      {"10.50", "0.1", "10.6"},
      {"0", "3.0e3", "3000"},
      {"0", "5.0e+3", "5000"},
      {"0.1", "0.2", "0.3"},
      {"1.1", "2.2", "3.3"},
      {"3", "1.1", "4.1"},
      {"2.5", "2.5", "5"},
      {"1.0", "1", "2"},
      {"1", "-1", "0"},
      {"-1.5", "1.5", "0"},
      {"5", "-5.5", "-0.5"},
      {"100", "-99.99", "0.01"},
      {"0", "-123.456", "-123.456"},
      {"0", "0.1", "0.1"},
      {"0", "0.0001", "0.0001"},
      {"0", "2.5e-5", "0.000025"},
      {"0", "1e-17", "0.00000000000000001"},
      {"0", "1e-18", "0"},
      {"0", "-1e-18", "0"},
      {"0", "-0.00000000000000000001", "0"},
      {"-0", "0", "0"},
      {"0", "-0.0", "0"},
      {"1e-400", "0", "0"},
      {"1", "1e-16", "1.0000000000000001"},
      {"0", "12345.678", "12345.67799999999999994"},
      {"0", "3.14159265358979323846", "3.14159265358979324"},
      {"0", "0x1p-2", "0.25"},
      {"0", "+1.5", "1.5"},
      {"0", ".5", "0.5"},
      {"0", "5.", "5"},
      {"0", "00001", "1"},
      {"17179869184", "1.5", "17179869185.5"},
      {"0", "9007199254740993", "9007199254740993"},
      {"9223372036854775807", "1", "9223372036854775808"},
      {"-9223372036854775808", "-1", "-9223372036854775809"},
      {"0", "1e16", "10000000000000000"},
      {"0", "1e17", "100000000000000000"},
      {"0", "1e18", "1000000000000000000"},
      {"0", "1e20", "100000000000000000000"},
      {"0", "1.5e20", "150000000000000000000"},
      {"0", "123456789012345678901234567890", "123456789012345678899921813504"},
      {"0", "1e300",
       "1000000000000000000008997324079559193870523944273290747938260082321265646596180935755849"
       "1520837504971903503725086142748359035925561846729839130962605207486462873271356418436532"
       "9408425510760601678972665293237003055138294762099454029477278188962060617926761162709741"
       "0650567187386105690089424915104006144"},
      {"0", "inf", "NANINF"},
      {"inf", "-inf", "NANINF"},
      {"0", "nan", "ERR"},
      {"0", "1 ", "ERR"},
      {"0", " 1", "ERR"},
      {"0", "", "ERR"},
      {"0", "0x", "ERR"},
      {"0", "1e5000", "ERR"},
      {"0", "1e-5000", "ERR"},
      {"0", "1\0"sv, "ERR"},
  };
  for (const IncrCase& c : cases) {
    EXPECT_EQ(IncrByFloat(c.stored, c.increment), c.reply)
        << '"' << c.stored << "\" + \"" << c.increment << '"';
  }
}

TEST(FormatLongDouble, SpecialValuesAndExtremes) {
  EXPECT_EQ(FormatLongDouble(std::numeric_limits<long double>::infinity()), "inf");
  EXPECT_EQ(FormatLongDouble(-std::numeric_limits<long double>::infinity()), "-inf");
  EXPECT_EQ(FormatLongDouble(-0.0L), "0");
  EXPECT_EQ(FormatLongDouble(-1e-30L), "0");
  EXPECT_EQ(FormatLongDouble(1e-30L), "0");
  // Redis replies with 4,933 digits for 1e4932 and for 1.18e4932: never an exponent.
  long double big;
  ASSERT_TRUE(ParseLongDouble("1.18e4932", &big));
  const std::string text = FormatLongDouble(big);
  EXPECT_EQ(text.size(), 4933u);
  EXPECT_EQ(text.substr(0, 30), "118000000000000000000065281291");
  EXPECT_EQ(text.find_first_not_of("0123456789"), std::string::npos);
  EXPECT_EQ(FormatLongDouble(-big), "-" + text);
  EXPECT_EQ(FormatLongDouble(std::numeric_limits<long double>::max()).size(), 4933u);
}

TEST(ParseLongDouble, AcceptsInfinityButNotNan) {
  // INCRBYFLOAT on a stored "inf" fails with "increment would produce NaN or Infinity", not
  // "value is not a valid float": string2ld accepted it.
  long double v;
  ASSERT_TRUE(ParseLongDouble("inf", &v));
  EXPECT_TRUE(std::isinf(v) && v > 0);
  ASSERT_TRUE(ParseLongDouble("-Infinity", &v));
  EXPECT_TRUE(std::isinf(v) && v < 0);
  EXPECT_FALSE(ParseLongDouble("nan", &v));
  EXPECT_FALSE(ParseLongDouble("-NAN", &v));
}

TEST(ParseLongDouble, UsesLongDoubleRange) {
  long double v;
  EXPECT_TRUE(ParseLongDouble("1e400", &v));   // beyond double, within long double
  EXPECT_TRUE(ParseLongDouble("1e-400", &v));  // likewise
  EXPECT_TRUE(ParseLongDouble("1e4932", &v));
  EXPECT_FALSE(ParseLongDouble("1e4933", &v));   // overflow
  EXPECT_FALSE(ParseLongDouble("1e-5000", &v));  // underflow to zero
}

TEST(ParseLongDouble, RejectsInputsOfMaxLongDoubleCharsOrMore) {
  // Redis: SET f 0; INCRBYFLOAT f <"0"*5118 + "1"> gives "1", one byte longer is an error.
  long double v;
  ASSERT_TRUE(ParseLongDouble(std::string(kMaxLongDoubleInputChars - 2, '0') + "1", &v));
  EXPECT_EQ(v, 1);
  EXPECT_FALSE(ParseLongDouble(std::string(kMaxLongDoubleInputChars - 1, '0') + "1", &v));
}

TEST(Numbers, MemoryUnits) {
  int64_t v;
  ASSERT_TRUE(ParseMemory("1k", &v));
  EXPECT_EQ(v, 1000);
  ASSERT_TRUE(ParseMemory("1KB", &v));
  EXPECT_EQ(v, 1024);
  ASSERT_TRUE(ParseMemory("512mb", &v));
  EXPECT_EQ(v, 512LL << 20);
  ASSERT_TRUE(ParseMemory("100", &v));
  EXPECT_EQ(v, 100);
  EXPECT_FALSE(ParseMemory("-1", &v));
  EXPECT_FALSE(ParseMemory("lots", &v));
}

}  // namespace
}  // namespace rc
