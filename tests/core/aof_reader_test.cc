#include "core/aof_reader.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rc {
namespace {

// '#' then n times c (built whole: GCC 12 warns falsely on "#" + std::string&&).
std::string HashLine(size_t n, char c) {
  std::string s(n + 1, c);
  s[0] = '#';
  return s;
}

using Result = AofCommandReader::Result;
using Argv = std::vector<std::string>;

// appendonly.aof.1.incr.aof as redis-server 7.0.15 wrote it (aof-timestamp-enabled yes)
// for: SET foo bar; MULTI, INCR n, SET a 1, EXEC; EXPIRE foo 100; SET e v EX 50.
const std::string kTs = "#TS:1795872900\r\n";
const std::vector<std::string> kRecords = {
    "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n",
    "*3\r\n$3\r\nset\r\n$3\r\nfoo\r\n$3\r\nbar\r\n",
    "*1\r\n$5\r\nMULTI\r\n",
    "*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n",
    "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n",
    "*1\r\n$4\r\nEXEC\r\n",
    "*3\r\n$9\r\nPEXPIREAT\r\n$3\r\nfoo\r\n$13\r\n1795873000869\r\n",
    "*5\r\n$3\r\nSET\r\n$1\r\ne\r\n$1\r\nv\r\n$4\r\nPXAT\r\n$13\r\n1795872950908\r\n",
};
const std::vector<Argv> kCommands = {
    {"SELECT", "0"},
    {"set", "foo", "bar"},
    {"MULTI"},
    {"INCR", "n"},
    {"SET", "a", "1"},
    {"EXEC"},
    {"PEXPIREAT", "foo", "1795873000869"},
    {"SET", "e", "v", "PXAT", "1795872950908"},
};
constexpr size_t kMulti = 2, kExec = 5;  // indexes in kRecords

std::string RealIncr() {
  std::string s = kTs;
  for (const std::string& r : kRecords) s += r;
  return s;
}

// Reads to the end: the commands, and the result that ended them.
Result ReadAll(AofCommandReader& reader, std::vector<Argv>* cmds) {
  std::vector<std::string_view> argv;
  Result r;
  while ((r = reader.Next(&argv)) == Result::kCommand) cmds->emplace_back(argv.begin(), argv.end());
  return r;
}

Result ReadAll(std::string_view data, std::vector<Argv>* cmds = nullptr) {
  AofCommandReader reader(data);
  std::vector<Argv> ignored;
  return ReadAll(reader, cmds != nullptr ? cmds : &ignored);
}

TEST(AofReader, RealIncrFile) {
  const std::string data = RealIncr();
  ASSERT_EQ(data.size(), 252u);
  AofCommandReader reader(data);
  std::vector<Argv> cmds;
  EXPECT_EQ(ReadAll(reader, &cmds), Result::kEnd);
  EXPECT_EQ(cmds, kCommands);
  EXPECT_EQ(reader.valid_end(), data.size());
  EXPECT_FALSE(reader.in_multi());
  std::vector<std::string_view> argv;
  EXPECT_EQ(reader.Next(&argv), Result::kEnd);  // sticky
}

TEST(AofReader, AppendCommandWritesAsRedis) {
  for (size_t i = 0; i < kCommands.size(); ++i) {
    std::vector<std::string_view> argv(kCommands[i].begin(), kCommands[i].end());
    std::string out = "x";
    AofAppendCommand(argv, &out);
    EXPECT_EQ(out, "x" + kRecords[i]);
  }
  // SET "k 2" "v\nx", as redis-server wrote it: lengths, not escapes, carry any byte.
  std::string out;
  AofAppendCommand({"set", "k 2", "v\nx"}, &out);
  EXPECT_EQ(out, "*3\r\n$3\r\nset\r\n$3\r\nk 2\r\n$3\r\nv\nx\r\n");
  std::vector<Argv> cmds;
  EXPECT_EQ(ReadAll(out, &cmds), Result::kEnd);
  EXPECT_EQ(cmds, (std::vector<Argv>{{"set", "k 2", "v\nx"}}));
  out.clear();
  AofAppendCommand({"set", "", std::string_view("\0\r\n", 3)}, &out);
  EXPECT_EQ(out, std::string("*3\r\n$3\r\nset\r\n$0\r\n\r\n$3\r\n\0\r\n\r\n", 28));
  cmds.clear();
  EXPECT_EQ(ReadAll(out, &cmds), Result::kEnd);
  EXPECT_EQ(cmds, (std::vector<Argv>{{"set", "", std::string("\0\r\n", 3)}}));
}

// Each prefix of the real file, as redis-server 7.0.15 loads it with aof-load-truncated
// yes (checked against it for all 253 prefixes): a cut inside the annotation is a clean
// end; a cut inside a command truncates after the last whole one; a clean end between
// MULTI and EXEC reverts to before the MULTI.
TEST(AofReader, TruncatedAtEveryOffset) {
  const std::string data = RealIncr();
  std::vector<size_t> ends;  // where each record ends
  size_t at = kTs.size();
  for (const std::string& r : kRecords) ends.push_back(at += r.size());
  const size_t before_multi = ends[kMulti - 1];

  for (size_t n = 0; n <= data.size(); ++n) {
    SCOPED_TRACE(n);
    AofCommandReader reader(std::string_view(data).substr(0, n));
    std::vector<Argv> cmds;
    const Result r = ReadAll(reader, &cmds);
    size_t whole = 0;
    while (whole < ends.size() && ends[whole] <= n) ++whole;
    const size_t last_end = whole == 0 ? 0 : ends[whole - 1];
    const bool clean = n <= kTs.size() || n == last_end;
    EXPECT_EQ(r, clean ? Result::kEnd : Result::kTruncated);
    EXPECT_EQ(cmds, std::vector<Argv>(kCommands.begin(), kCommands.begin() + whole));
    EXPECT_EQ(reader.valid_end(), last_end);
    const bool in_multi = whole > kMulti && whole <= kExec;
    EXPECT_EQ(reader.in_multi(), in_multi);
    if (in_multi) {
      EXPECT_EQ(reader.valid_before_multi(), before_multi);
    }
    if (!clean) {
      EXPECT_EQ(reader.error_offset(), last_end == 0 ? kTs.size() : last_end);
    }
  }
}

// Cases redis-server 7.0.15 loaded with aof-load-truncated yes, and where it truncated.
const std::string kSetA = "*3\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\n1\r\n";  // 27 bytes
const std::string kSetB = "*3\r\n$3\r\nset\r\n$1\r\nb\r\n$1\r\n2\r\n";
const std::string kMultiRec = "*1\r\n$5\r\nMULTI\r\n";

TEST(AofReader, UnfinishedMulti) {
  // A clean end inside MULTI: Redis reverts to 27, before the annotation too.
  const std::string open = kSetA + "#TS:1\r\n" + kMultiRec + kSetB;
  AofCommandReader a(open);
  std::vector<Argv> cmds;
  EXPECT_EQ(ReadAll(a, &cmds), Result::kEnd);
  EXPECT_TRUE(a.in_multi());
  EXPECT_EQ(a.valid_before_multi(), 27u);
  EXPECT_EQ(a.valid_end(), open.size());
  // Cut inside the EXEC: Redis truncates at 76, after SET b, inside the MULTI.
  const std::string cut = open + "*1\r\n$4\r\nEX";
  AofCommandReader b(cut);
  cmds.clear();
  EXPECT_EQ(ReadAll(b, &cmds), Result::kTruncated);
  EXPECT_EQ(b.valid_end(), 76u);
  EXPECT_TRUE(b.in_multi());
  EXPECT_EQ(b.error_offset(), 76u);
  EXPECT_EQ(cmds.size(), 3u);
}

TEST(AofReader, OnlyExecEndsMulti) {
  const std::string exec = "*1\r\n$4\r\nexec\r\n";
  const std::string discard = "*1\r\n$7\r\nDISCARD\r\n";
  const std::string m = "*1\r\n$5\r\nmulti\r\n";  // lookupCommand ignores case
  // Redis's loader queues DISCARD and a nested MULTI; the nested one moves the mark.
  const std::string data = kSetA + m + kSetB + discard + m + kSetB;
  AofCommandReader reader(data);
  std::vector<Argv> cmds;
  EXPECT_EQ(ReadAll(reader, &cmds), Result::kEnd);
  EXPECT_TRUE(reader.in_multi());
  EXPECT_EQ(reader.valid_before_multi(), kSetA.size() + m.size() + kSetB.size() + discard.size());
  const std::string closed_data = data + exec;
  AofCommandReader closed(closed_data);
  EXPECT_EQ(ReadAll(closed, &cmds), Result::kEnd);
  EXPECT_FALSE(closed.in_multi());
  // EXEC outside a transaction leaves the state alone (Redis would stop on its error).
  const std::string stray_data = exec + kSetA;
  AofCommandReader stray(stray_data);
  EXPECT_EQ(ReadAll(stray, &cmds), Result::kEnd);
  EXPECT_FALSE(stray.in_multi());
}

TEST(AofReader, Annotations) {
  // Redis reads lines 1023 bytes at a time: a longer annotation's rest is a bad line.
  const std::string a1023 = HashLine(1020, 'x') + "\r\n";
  const std::string a1024 = HashLine(1021, 'x') + "\r\n";
  const std::string hashes = HashLine(1100, '#') + "\r\n";
  std::vector<Argv> cmds;
  EXPECT_EQ(ReadAll(a1023 + kSetA, &cmds), Result::kEnd);
  EXPECT_EQ(cmds, (std::vector<Argv>{{"set", "a", "1"}}));
  const std::string long_data = a1024 + kSetA;
  AofCommandReader long_one(long_data);
  EXPECT_EQ(ReadAll(long_one, &cmds), Result::kCorrupt);
  EXPECT_EQ(long_one.error_offset(), 1023u);
  EXPECT_EQ(ReadAll(hashes + kSetA), Result::kEnd);  // its pieces all start with '#'
  // Between commands only; a cut annotation at the end is a clean end, and annotations
  // after the last command are not part of the valid prefix.
  EXPECT_EQ(ReadAll("*3\r\n#TS:1\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\n1\r\n"), Result::kCorrupt);
  const std::string tail_data = kSetA + "#TS:1";
  AofCommandReader tail(tail_data);
  EXPECT_EQ(ReadAll(tail, &cmds), Result::kEnd);
  EXPECT_EQ(tail.valid_end(), 27u);
  AofCommandReader only(std::string_view("#TS:1\r\n#TS:2\r\n"));
  EXPECT_EQ(ReadAll(only, &cmds), Result::kEnd);
  EXPECT_EQ(only.valid_end(), 0u);
}

// Where Redis's fgets/atoi reading accepts what a strict parser would not; each of these
// redis-server 7.0.15 loaded.
TEST(AofReader, LenientAsRedis) {
  std::vector<Argv> cmds;
  EXPECT_EQ(ReadAll("*3\r\n$3\r\nsetXY$1\r\naZZ$1\r\n1\r\n", &cmds), Result::kEnd);
  EXPECT_EQ(ReadAll("*3junk\n$3 x\nset\r\n$1\r\na\r\n$1\r\n1\r\n", &cmds), Result::kEnd);
  EXPECT_EQ(ReadAll("* 2\r\n$+1\r\nx\r\n$ 0\r\n\r\n", &cmds), Result::kEnd);
  EXPECT_EQ(cmds, (std::vector<Argv>{{"set", "a", "1"}, {"set", "a", "1"}, {"x", ""}}));
  // atoi keeps the low 32 bits of strtol: 2^32 + 1 is one argument.
  cmds.clear();
  EXPECT_EQ(ReadAll("*4294967297\r\n$1\r\nx\r\n", &cmds), Result::kEnd);
  EXPECT_EQ(cmds, (std::vector<Argv>{{"x"}}));
}

TEST(AofReader, CorruptAndTruncated) {
  struct Case {
    std::string tail;
    Result want;
    size_t offset;  // of the bad line, or of the unfinished command
  };
  const std::vector<Case> cases = {
      {"x", Result::kCorrupt, 27},               // junk, even at the end
      {"\r\n", Result::kCorrupt, 27},            // an empty line
      {"*0\r\n" + kSetB, Result::kCorrupt, 27},  // argc < 1
      {"*-1\r\n" + kSetB, Result::kCorrupt, 27},
      {"*\r\n" + kSetB, Result::kCorrupt, 27},                    // atoi("\r\n") == 0
      {std::string("*\0\r\n", 4) + kSetB, Result::kCorrupt, 27},  // Redis: read error
      {"*1\r\nx", Result::kCorrupt, 31},                          // '$' expected
      {"*1\r\n$-1\r\n" + kSetB, Result::kCorrupt, 31},            // Redis fails to allocate it
      {"*2\r\n$1\r\nx\r\n*1\r\n", Result::kCorrupt, 38},
      {"*", Result::kTruncated, 27},
      {std::string("*\0", 2), Result::kTruncated, 27},
      {"*1", Result::kTruncated, 27},
      {"*1\r\n", Result::kTruncated, 27},
      {"*1\r\n$", Result::kTruncated, 27},  // $ alone: length 0, then no CRLF
      {"*1\r\n$3\r\nab", Result::kTruncated, 27},
      {"*1\r\n$3\r\nabc\r", Result::kTruncated, 27},
      {"*1\r\n$1000000\r\nabc\r\n", Result::kTruncated, 27},  // longer than the rest
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.tail);
    const std::string data = kSetA + c.tail;
    AofCommandReader reader(data);
    std::vector<Argv> cmds;
    EXPECT_EQ(ReadAll(reader, &cmds), c.want);
    EXPECT_EQ(reader.error_offset(), c.offset);
    EXPECT_EQ(reader.valid_end(), 27u);
    std::vector<std::string_view> argv;
    EXPECT_EQ(reader.Next(&argv), c.want);  // sticky
  }
}

TEST(AofReader, RdbPreamble) {
  // The first bytes of appendonly.aof.1.base.rdb from redis-server 7.0.15.
  EXPECT_TRUE(AofIsRdbPreamble(std::string_view("REDIS0010\xfa\x09redis-ver", 20)));
  EXPECT_FALSE(AofIsRdbPreamble(RealIncr()));
  EXPECT_FALSE(AofIsRdbPreamble("REDI"));
  EXPECT_FALSE(AofIsRdbPreamble(""));
}

}  // namespace
}  // namespace rc
