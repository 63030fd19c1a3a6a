// Every expectation on Redis's behaviour here was checked against redis-server 7.0.15 by
// sending it the same raw bytes.

#include "net/resp_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "tests/sanitizer_scale.h"

namespace rc::net {
namespace {

using namespace std::literals;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using Args = std::vector<std::string>;
using Status = RespParser::Status;
using test::SanitizerScaled;

constexpr size_t kInlineMax = 64 * 1024;

struct Outcome {
  std::vector<Args> commands;  // Including empty ones (`*0`, blank lines).
  Status last = Status::kNeedMore;
  std::string error;
  size_t leftover = 0;  // Unconsumed bytes at the end.
  uint64_t work = 0;
  size_t calls = 0;
};

// Feeds `stream` as a connection would: append a chunk, parse until kNeedMore, repeat. The
// buffer is compacted and reallocated along the way so that a parser holding views into an
// old buffer across kNeedMore would be caught (by ASan, or by wrong bytes).
template <typename ChunkFn>
Outcome Feed(std::string_view stream, ChunkFn next_chunk, ParserLimits limits = {}) {
  RespParser parser(limits);
  Outcome out;
  std::string buf;
  size_t head = 0, fed = 0;
  std::vector<std::string_view> args;
  while (true) {
    while (true) {
      size_t consumed = 0;
      ++out.calls;
      out.last = parser.Parse(std::string_view(buf).substr(head), &consumed, &args);
      if (out.last != Status::kOk) break;
      EXPECT_GT(consumed, 0u);
      out.commands.emplace_back(args.begin(), args.end());
      head += consumed;
    }
    if (out.last == Status::kError || fed == stream.size()) break;
    if (head > buf.size() / 2) {
      buf.erase(0, head);
      head = 0;
    }
    const size_t needed = parser.BytesNeeded();
    if (needed > buf.size() - head) buf.reserve(head + needed);
    const size_t n = std::min(next_chunk(), stream.size() - fed);
    buf.append(stream.substr(fed, n));
    fed += n;
  }
  out.error = parser.error();
  out.leftover = buf.size() - head;
  out.work = parser.work();
  return out;
}

Outcome FeedWhole(std::string_view stream, ParserLimits limits = {}) {
  auto everything = [&] { return stream.size(); };
  return Feed(stream, everything, limits);
}

Outcome FeedBytewise(std::string_view stream, ParserLimits limits = {}) {
  auto one_byte = [] { return size_t{1}; };
  return Feed(stream, one_byte, limits);
}

std::string Multibulk(const Args& args) {
  std::string s = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) s += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return s;
}

TEST(RespParserTest, ParsesMultibulkAndLeavesTheNextRequest) {
  RespParser parser;
  std::string buf = Multibulk({"SET", "k", "a\r\nb"}) + "*1\r\n$4\r\nPI";
  std::vector<std::string_view> args;
  size_t consumed = 0;
  ASSERT_EQ(parser.Parse(buf, &consumed, &args), Status::kOk);
  EXPECT_THAT(args, ElementsAre("SET", "k", "a\r\nb"));
  EXPECT_EQ(consumed, Multibulk({"SET", "k", "a\r\nb"}).size());
  EXPECT_EQ(parser.Parse(std::string_view(buf).substr(consumed), &consumed, &args),
            Status::kNeedMore);
  EXPECT_EQ(consumed, 0u);
  EXPECT_THAT(args, IsEmpty());
}

TEST(RespParserTest, EmptyRequestsAreConsumedWithNoArgs) {
  for (std::string_view in : {"*0\r\n", "*-1\r\n", "*-5\r\n", "*-9223372036854775808\r\n", "\r\n",
                              "\n", "   \t \r\n", "\v\f\n"}) {
    Outcome out = FeedWhole(in);
    EXPECT_EQ(out.last, Status::kNeedMore) << in;
    ASSERT_EQ(out.commands.size(), 1u) << in;
    EXPECT_THAT(out.commands[0], IsEmpty()) << in;
    EXPECT_EQ(out.leftover, 0u) << in;
  }
}

struct ErrorCase {
  std::string input;
  std::string error;
};

// Each input is rejected with Redis's text whether it arrives at once or a byte at a time.
TEST(RespParserTest, ProtocolErrorsMatchRedis) {
  const std::string kBig(kInlineMax, '1');
  const std::vector<ErrorCase> cases = {
      {"*+1\r\n", "Protocol error: invalid multibulk length"},
      {"* 1\r\n", "Protocol error: invalid multibulk length"},
      {"*1 \r\n", "Protocol error: invalid multibulk length"},
      {"*01\r\n", "Protocol error: invalid multibulk length"},
      {"*-0\r\n", "Protocol error: invalid multibulk length"},
      {"*-\r\n", "Protocol error: invalid multibulk length"},
      {"*\r\n", "Protocol error: invalid multibulk length"},
      {"*a\r\n", "Protocol error: invalid multibulk length"},
      {"*1\n\r\n", "Protocol error: invalid multibulk length"},
      {"*00\r\n", "Protocol error: invalid multibulk length"},
      {"*1048577\r\n", "Protocol error: invalid multibulk length"},  // Our cap.
      {"*1234567890123456789\r\n", "Protocol error: invalid multibulk length"},
      {"*99999999999999999999\r\n", "Protocol error: invalid multibulk length"},
      {"*-9223372036854775809\r\n", "Protocol error: invalid multibulk length"},
      {"*" + kBig, "Protocol error: too big mbulk count string"},
      {"*1\x00\r\n"s + kBig, "Protocol error: too big mbulk count string"},
      {"*1\r\n$-1\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$+4\r\nPING\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$04\r\nPING\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$4 \r\nPING\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$00\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$536870913\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$123456789012345678\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$1234567890123456789\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$9223372036854775808\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$" + kBig, "Protocol error: too big bulk count string"},
      {"*1\r\nX" + kBig, "Protocol error: too big bulk count string"},
      {"*1\r\n\x00"s + kBig, "Protocol error: too big bulk count string"},
      {"*1\r\nX4\r\nPING\r\n", "Protocol error: expected '$', got 'X'"},
      {"*1\r\n\r\n", "Protocol error: expected '$', got ' '"},
      {"*1\r\n\n4\r\n", "Protocol error: expected '$', got ' '"},
      {"*1\r\n\x01\r\n", "Protocol error: expected '$', got '\x01'"},
      {"*2\r\n$1\r\na\r\n*1\r\n", "Protocol error: expected '$', got '*'"},
      {std::string(kInlineMax + 1, 'a'), "Protocol error: too big inline request"},
      {std::string(kInlineMax + 1, 'a') + "\n", "Protocol error: too big inline request"},
      {"ab\x00"s + kBig, "Protocol error: too big inline request"},
      {"SET \"abc\r\n", "Protocol error: unbalanced quotes in request"},
      {"SET \"abc\\\"\r\n", "Protocol error: unbalanced quotes in request"},
      {"SET \"abc\\\n", "Protocol error: unbalanced quotes in request"},
      {"SET ab\"cd ef\"gh\r\n", "Protocol error: unbalanced quotes in request"},
      {"SET \"ab\"cd\r\n", "Protocol error: unbalanced quotes in request"},
      {"SET 'ab'cd\r\n", "Protocol error: unbalanced quotes in request"},
      {"SET \"ab\"'cd'\r\n", "Protocol error: unbalanced quotes in request"},
      {"SET 'a\\'b\\\\'\r\n", "Protocol error: unbalanced quotes in request"},
  };
  for (const ErrorCase& c : cases) {
    const std::string shown = c.input.substr(0, 40);
    Outcome whole = FeedWhole(c.input);
    EXPECT_EQ(whole.last, Status::kError) << shown;
    EXPECT_EQ(whole.error, c.error) << shown;
    Outcome bytewise = FeedBytewise(c.input);
    EXPECT_EQ(bytewise.last, Status::kError) << shown;
    EXPECT_EQ(bytewise.error, c.error) << shown;
  }
}

// Inputs Redis neither rejects nor completes: it waits for more bytes.
TEST(RespParserTest, IncompleteInputsWaitLikeRedis) {
  const std::vector<std::string> cases = {
      "*1048576\r\n",               // max_multibulk_len; Redis's own cap is INT_MAX.
      "*1\r\n$536870912\r\n",       // Exactly proto-max-bulk-len.
      "*1\r\nX4",                   // '$' is only checked once the line is complete.
      "*1\r\n$4\r\nPINGX",          // Data present but only one of the two trailing bytes.
      "*1\r",                       // A '\r' needs the byte after it.
      "*1\x00\r\n$4\r\nPING\r\n"s,  // strchr stops at the NUL: the '\r' is never seen.
      "*1\r\n\x00\r\n"s,            //
      "*1\r\n$4\x00\r\nPING\r\n"s,  //
      "PI\x00NG\n"s,                //
      "*" + std::string(kInlineMax - 1, '1'),
      "*1\r\n$" + std::string(kInlineMax - 1, '1'),
      std::string(kInlineMax, 'a'),
  };
  for (const std::string& in : cases) {
    EXPECT_EQ(FeedWhole(in).last, Status::kNeedMore) << in.substr(0, 40);
    Outcome bytewise = FeedBytewise(in);
    EXPECT_EQ(bytewise.last, Status::kNeedMore) << in.substr(0, 40);
    EXPECT_THAT(bytewise.commands, IsEmpty()) << in.substr(0, 40);
  }
}

TEST(RespParserTest, TrailingBytesOfABulkAreNotChecked) {
  Outcome out = FeedBytewise("*1\r\n$4\r\nPINGXY*1\rX$4\rXPING\r\n");
  EXPECT_THAT(out.commands, ElementsAre(Args{"PING"}, Args{"PING"}));
  EXPECT_EQ(out.leftover, 0u);
}

TEST(RespParserTest, InlineLengthLimitIsExact) {
  const std::string ok = std::string(kInlineMax, 'a') + "\n";
  EXPECT_THAT(FeedWhole(ok).commands, ElementsAre(Args{std::string(kInlineMax, 'a')}));
  const std::string crlf = std::string(kInlineMax - 1, 'a') + "\r\n";
  EXPECT_THAT(FeedWhole(crlf).commands, ElementsAre(Args{std::string(kInlineMax - 1, 'a')}));
  // '*' plus 65535 digits is a legal-length count line that fails only as a number.
  EXPECT_EQ(FeedWhole("*" + std::string(kInlineMax - 1, '1') + "\r\n").error,
            "Protocol error: invalid multibulk length");
}

TEST(RespParserTest, InlineSplittingFollowsSdssplitargs) {
  struct Case {
    std::string line;
    Args args;
  };
  const std::vector<Case> cases = {
      {"PING\r\n", {"PING"}},
      {"PING\r\r\n", {"PING"}},
      {"a\rb\r\r\n", {"a", "b"}},
      {"  SET\tk  v  \n", {"SET", "k", "v"}},
      {"\va\fb\v\n", {"a\fb\v"}},
      {"\"\" '' x\n", {"", "", "x"}},
      {"x\"y z\"\n", {"xy z"}},
      {"\"ab\"\tcd\n", {"ab", "cd"}},
      {"\"ab\"\vcd\n", {"ab", "cd"}},
      {"\"a\\nb\\r\\t\\b\\a\\x00\\xfF\"\n", {std::string("a\nb\r\t\b\a\0\xff", 9)}},
      {"a\\x41 \"\\x4G\\q\\\\\\\"\" '\\\\\\'\\n'\n", {"a\\x41", "x4Gq\\\"", "\\\\'\\n"}},
      {"\"\\x4\"\n", {"x4"}},
      {"FOO\x80 \xff\n", {"FOO\x80", "\xff"}},
  };
  for (const Case& c : cases) {
    Outcome out = FeedWhole(c.line);
    ASSERT_EQ(out.commands.size(), 1u) << c.line;
    EXPECT_EQ(out.commands[0], c.args) << c.line;
  }
}

TEST(RespParserTest, CustomLimits) {
  ParserLimits limits{.max_bulk_len = 4, .max_inline_len = 8, .max_multibulk_len = 2};
  EXPECT_THAT(FeedWhole("*2\r\n$4\r\nPING\r\n$0\r\n\r\n", limits).commands,
              ElementsAre(Args{"PING", ""}));
  EXPECT_EQ(FeedWhole("*1\r\n$5\r\n", limits).error, "Protocol error: invalid bulk length");
  EXPECT_EQ(FeedWhole("*3\r\n", limits).error, "Protocol error: invalid multibulk length");
  EXPECT_EQ(FeedWhole("PING 1234\n", limits).error, "Protocol error: too big inline request");
  EXPECT_THAT(FeedWhole("PING 123\n", limits).commands, ElementsAre(Args{"PING", "123"}));
}

TEST(RespParserTest, UnauthenticatedLimitsOnBothCountPaths) {
  ParserLimits unauth;
  unauth.unauthenticated = true;
  for (auto feed : {FeedWhole, FeedBytewise}) {
    EXPECT_EQ(feed("*11\r\n", unauth).error,
              "Protocol error: unauthenticated multibulk length");
    EXPECT_EQ(feed("*1\r\n$16385\r\n", unauth).error,
              "Protocol error: unauthenticated bulk length");
    // Over proto-max-bulk-len is "invalid" first, as in Redis.
    EXPECT_EQ(feed("*1\r\n$-1\r\n", unauth).error, "Protocol error: invalid bulk length");
    EXPECT_EQ(feed(Multibulk(Args(10, std::string(16384, 'x'))), unauth).commands.size(), 1u);
    // Inline requests are bounded by the 64k line limit only.
    EXPECT_EQ(feed("A B C D E F G H I J K L\n", unauth).commands.size(), 1u);
  }
  // Limits change between requests: the next request is parsed under the new ones.
  RespParser parser(unauth);
  std::vector<std::string_view> args;
  size_t used;
  const std::string eleven = Multibulk(Args(11, "a"));
  parser.set_limits(ParserLimits{});
  EXPECT_EQ(parser.Parse(eleven, &used, &args), Status::kOk);
  parser.set_limits(unauth);
  EXPECT_EQ(parser.Parse(eleven, &used, &args), Status::kError);
}

TEST(RespParserTest, ErrorIsStickyUntilReset) {
  RespParser parser;
  std::vector<std::string_view> args;
  size_t consumed = 0;
  ASSERT_EQ(parser.Parse("*x\r\n", &consumed, &args), Status::kError);
  EXPECT_EQ(parser.Parse("PING\r\n", &consumed, &args), Status::kError);
  parser.Reset();
  EXPECT_EQ(parser.error(), "");
  ASSERT_EQ(parser.Parse("PING\r\n", &consumed, &args), Status::kOk);
  EXPECT_THAT(args, ElementsAre("PING"));
}

TEST(RespParserTest, BytesNeededCoversTheBulkBeingRead) {
  RespParser parser;
  std::vector<std::string_view> args;
  size_t consumed = 0;
  const std::string head = "*2\r\n$3\r\nSET\r\n$1000\r\nxy";
  EXPECT_EQ(parser.BytesNeeded(), 0u);
  ASSERT_EQ(parser.Parse(head, &consumed, &args), Status::kNeedMore);
  EXPECT_EQ(parser.BytesNeeded(), head.size() - 2 + 1000 + 2);
}

// Builds pipelines of random requests of every shape the parser accepts, remembering the
// arguments each should produce.
class RequestGen {
 public:
  explicit RequestGen(uint64_t seed) : rng_(seed) {}

  void Add(std::string* stream, std::vector<Args>* expected) {
    const size_t kind = Uniform(0, 99);
    if (kind < 4) {
      const std::string counts[] = {"0", "-1", "-" + std::to_string(Uniform(1, 1000000))};
      *stream += "*" + counts[Uniform(0, 2)] + "\r\n";
      expected->emplace_back();
    } else if (kind < 8) {
      const char* blanks[] = {"\r\n", "\n", "  \t\r\n", "\v\n"};
      *stream += blanks[Uniform(0, 3)];
      expected->emplace_back();
    } else if (kind < 30) {
      Args args(Uniform(1, 6));
      for (std::string& a : args) a = RandomArg(300);
      *stream += Inline(args);
      expected->push_back(std::move(args));
    } else {
      Args args(Uniform(0, 19) == 0 ? Uniform(1, 200) : Uniform(1, 8));
      for (std::string& a : args) a = RandomArg(Uniform(0, 999) == 0 ? 70000 : 40);
      *stream += "*" + std::to_string(args.size()) + "\r\n";
      for (const std::string& a : args) {
        *stream += "$" + std::to_string(a.size()) + "\r\n" + a;
        // Redis skips the two bytes after a bulk without looking at them.
        *stream += Uniform(0, 19) == 0 ? std::string{RandomByte(), RandomByte()} : "\r\n";
      }
      expected->push_back(std::move(args));
    }
  }

  size_t Uniform(size_t lo, size_t hi) {
    return std::uniform_int_distribution<size_t>(lo, hi)(rng_);
  }

 private:
  char RandomByte() {
    static constexpr std::string_view kTricky = "\r\n\t\v\f\0 '\"\\*$x0-"sv;
    if (Uniform(0, 2) == 0) return kTricky[Uniform(0, kTricky.size() - 1)];
    return static_cast<char>(Uniform(0, 255));
  }

  std::string RandomArg(size_t max_len) {
    std::string s(Uniform(0, 3) == 0 ? 0 : Uniform(1, max_len), '\0');
    const bool text = Uniform(0, 1) == 0;
    for (char& c : s) c = text ? static_cast<char>('a' + Uniform(0, 25)) : RandomByte();
    return s;
  }

  static bool IsBareSafe(std::string_view s) {
    if (s.empty() || s[0] == '*') return false;  // A leading '*' would mean multibulk.
    for (char c : s) {
      if (c == '\0' || c == '"' || c == '\'' || c == ' ' || (c >= '\t' && c <= '\r')) return false;
    }
    return true;
  }

  // Encodes one inline line with random spacing, quoting and escape spellings.
  std::string Inline(const Args& args) {
    std::string line(Uniform(0, 2), ' ');
    for (const std::string& a : args) {
      if (IsBareSafe(a) && Uniform(0, 1) == 0) {
        line += a;
      } else if (a.find_first_of("\\\n\r"s + '\0') == std::string::npos && Uniform(0, 1) == 0) {
        line += '\'';
        for (char c : a) line += c == '\'' ? "\\'" : std::string(1, c);
        line += '\'';
      } else {
        line += DoubleQuoted(a);
      }
      line += Uniform(0, 3) == 0 ? "\t " : " ";
    }
    return line + (Uniform(0, 1) == 0 ? "\r\n" : "\n");
  }

  std::string DoubleQuoted(std::string_view a) {
    static constexpr char kHex[] = "0123456789abcdef0123456789ABCDEF";
    std::string out = "\"";
    for (char c : a) {
      const auto u = static_cast<unsigned char>(c);
      const char* named = c == '\n'   ? "\\n"
                          : c == '\r' ? "\\r"
                          : c == '\t' ? "\\t"
                          : c == '\b' ? "\\b"
                          : c == '\a' ? "\\a"
                                      : nullptr;
      if (c == '\\' || c == '"') {
        out += {'\\', c};
      } else if (named != nullptr && Uniform(0, 1) == 0) {
        out += named;
      } else if (c == '\0' || c == '\n' || Uniform(0, 4) == 0) {
        const size_t upper = Uniform(0, 1) * 16;
        out += {'\\', 'x', kHex[upper + u / 16], kHex[upper + u % 16]};
      } else {
        out += c;
      }
    }
    return out + "\"";
  }

  std::mt19937_64 rng_;
};

TEST(RespParserTest, RandomSplitsParseLikeTheWholeBuffer) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    RequestGen gen(seed);
    std::string stream;
    std::vector<Args> expected;
    // Under a sanitizer under a third: seeds 1-3 still carry 4-6 arguments over 16 kB each.
    const size_t requests = seed <= 3 ? SanitizerScaled(5000, 1500) : SanitizerScaled(500, 150);
    for (size_t i = 0; i < requests; ++i) gen.Add(&stream, &expected);

    Outcome whole = FeedWhole(stream);
    ASSERT_EQ(whole.last, Status::kNeedMore) << "seed " << seed << ": " << whole.error;
    ASSERT_EQ(whole.commands, expected) << "seed " << seed;
    EXPECT_EQ(whole.leftover, 0u);

    for (size_t max_chunk : {size_t{1}, size_t{7}, size_t{300}, size_t{20000}}) {
      if (max_chunk == 1 && stream.size() > 2'000'000) continue;
      Outcome split = Feed(stream, [&] { return gen.Uniform(1, max_chunk); });
      ASSERT_EQ(split.last, Status::kNeedMore) << "seed " << seed << ": " << split.error;
      ASSERT_EQ(split.commands, expected) << "seed " << seed << " max_chunk " << max_chunk;
      EXPECT_EQ(split.leftover, 0u);
      EXPECT_LE(split.work, 2 * stream.size() + 4 * split.calls);
    }
  }
}

// Work is counted, not timed: a parser that rescanned its buffer on every read would do
// about reads * size / 2 units here.
// Under a sanitizer a quarter of the value in reads a quarter the size: as many reads.
TEST(RespParserTest, LargeBulkInSmallReadsIsLinear) {
  const std::string value(SanitizerScaled(64 << 20, 16 << 20), 'v');
  const std::string stream = Multibulk({"SET", "k", value});
  std::mt19937_64 rng(7);
  const size_t max_read = SanitizerScaled(8192, 2048);
  Outcome out = Feed(stream, [&] { return size_t{1} + rng() % max_read; });
  ASSERT_EQ(out.commands.size(), 1u);
  EXPECT_TRUE(out.commands[0][2] == value);
  EXPECT_GT(out.calls, 10'000u);
  EXPECT_LE(out.work, 64 + 2 * out.calls);  // The data itself is never looked at.
}

TEST(RespParserTest, ManyArgumentsInSmallReadsAreLinear) {
  constexpr size_t kArgs = SanitizerScaled(1'000'000, 200'000);  // in 10,000 reads either way
  std::string stream = "*" + std::to_string(kArgs) + "\r\n$4\r\nMSET\r\n";
  for (size_t i = 1; i < kArgs; ++i) {
    const std::string arg = std::to_string(i * 7919);
    stream += "$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
  }
  const size_t chunk = stream.size() / 10'000;
  Outcome out = Feed(stream, [&] { return chunk; });
  ASSERT_EQ(out.commands.size(), 1u);
  ASSERT_EQ(out.commands[0].size(), kArgs);
  EXPECT_EQ(out.commands[0][kArgs - 1], std::to_string((kArgs - 1) * 7919));
  EXPECT_LE(out.work, 2 * stream.size() + 4 * out.calls);
}

TEST(RespParserTest, TrickledLinesAreLinear) {
  const std::string line = "SET k " + std::string(kInlineMax - 10, 'v') + "\r\n";
  Outcome out = FeedBytewise(line);
  ASSERT_EQ(out.commands.size(), 1u);
  EXPECT_LE(out.work, 2 * line.size() + 4 * out.calls);

  std::string many = "*20000\r\n";
  for (int i = 0; i < 20000; ++i) many += "$3\r\nabc\r\n";
  out = FeedBytewise(many);
  ASSERT_EQ(out.commands.size(), 1u);
  EXPECT_EQ(out.commands[0].size(), 20000u);
  EXPECT_LE(out.work, 2 * many.size() + 4 * out.calls);
}

}  // namespace
}  // namespace rc::net
