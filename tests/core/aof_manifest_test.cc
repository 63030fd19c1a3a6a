#include "core/aof_manifest.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rc {
namespace {

// '#' then n times c (built whole: GCC 12 warns falsely on "#" + std::string&&).
std::string Hashed(size_t n, char c) {
  std::string s(n + 1, c);
  s[0] = '#';
  return s;
}

AofManifest Parse(std::string_view text) {
  AofManifest m;
  std::string error;
  EXPECT_TRUE(ParseAofManifest(text, &m, &error)) << error;
  return m;
}

std::string ParseError(std::string_view text) {
  AofManifest m;
  std::string error;
  EXPECT_FALSE(ParseAofManifest(text, &m, &error)) << text;
  EXPECT_TRUE(m.files.empty());
  return error;
}

// Manifests redis-server 7.0.15 wrote: at start; after BGREWRITEAOFs with
// aof-disable-auto-gc yes (history kept, the newest first); after a rewrite whose child
// was killed (two incr files); with appendfilename "we\x01ird \"x.aof".
constexpr char kStart[] =
    "file appendonly.aof.1.base.rdb seq 1 type b\n"
    "file appendonly.aof.1.incr.aof seq 1 type i\n";
constexpr char kHistory[] =
    "file appendonly.aof.4.base.rdb seq 4 type b\n"
    "file appendonly.aof.3.incr.aof seq 3 type h\n"
    "file appendonly.aof.3.base.rdb seq 3 type h\n"
    "file appendonly.aof.2.incr.aof seq 2 type h\n"
    "file appendonly.aof.2.base.aof seq 2 type h\n"
    "file appendonly.aof.4.incr.aof seq 4 type i\n";
constexpr char kTwoIncrs[] =
    "file appendonly.aof.1.base.rdb seq 1 type b\n"
    "file appendonly.aof.1.incr.aof seq 1 type i\n"
    "file appendonly.aof.2.incr.aof seq 2 type i\n";
constexpr char kQuoted[] =
    "file \"we\\x01ird \\\"x.aof.1.base.rdb\" seq 1 type b\n"
    "file \"we\\x01ird \\\"x.aof.1.incr.aof\" seq 1 type i\n";

TEST(AofManifest, RealManifestsRoundTrip) {
  for (const char* text : {kStart, kHistory, kTwoIncrs, kQuoted}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(FormatAofManifest(Parse(text)), text);
  }
  const AofManifest h = Parse(kHistory);
  ASSERT_EQ(h.files.size(), 6u);
  ASSERT_NE(h.base(), nullptr);
  EXPECT_EQ(h.base()->name, "appendonly.aof.4.base.rdb");
  EXPECT_EQ(h.files[2].name, "appendonly.aof.3.base.rdb");
  EXPECT_EQ(h.files[2].type, 'h');
  EXPECT_EQ(h.curr_base_seq, 4);
  EXPECT_EQ(h.curr_incr_seq, 4);
  const AofManifest t = Parse(kTwoIncrs);
  ASSERT_EQ(t.incrs().size(), 2u);
  EXPECT_EQ(t.incrs()[1]->name, "appendonly.aof.2.incr.aof");
  EXPECT_EQ(t.incrs()[1]->seq, 2);
  EXPECT_EQ(t.curr_incr_seq, 2);
  const AofManifest q = Parse(kQuoted);
  EXPECT_EQ(q.base()->name, "we\x01ird \"x.aof.1.base.rdb");
}

TEST(AofManifest, Names) {
  EXPECT_EQ(AofBaseName("appendonly.aof", 1, true), "appendonly.aof.1.base.rdb");
  EXPECT_EQ(AofBaseName("appendonly.aof", 12, false), "appendonly.aof.12.base.aof");
  EXPECT_EQ(AofIncrName("appendonly.aof", 3), "appendonly.aof.3.incr.aof");
  EXPECT_EQ(AofManifestName("appendonly.aof"), "appendonly.aof.manifest");
  const std::string weird = "we\x01ird \"x.aof";
  AofManifest m;
  m.files = {{AofBaseName(weird, 1, true), 1, 'b'}, {AofIncrName(weird, 1), 1, 'i'}};
  EXPECT_EQ(FormatAofManifest(m), kQuoted);
}

TEST(AofManifest, FormatOrdersByKind) {
  AofManifest m;
  m.files = {{"i2", 2, 'i'}, {"h1", 1, 'h'}, {"i3", 3, 'i'}, {"b2", 2, 'b'}, {"h0", 7, 'h'}};
  EXPECT_EQ(FormatAofManifest(m),
            "file b2 seq 2 type b\nfile h1 seq 1 type h\nfile h0 seq 7 type h\n"
            "file i2 seq 2 type i\nfile i3 seq 3 type i\n");
  EXPECT_EQ(FormatAofManifest(AofManifest()), "");
  // sdsneedsrepr("") is false: Redis writes an empty name bare, and cannot read it back.
  m.files = {{"", 1, 'i'}};
  EXPECT_EQ(FormatAofManifest(m), "file  seq 1 type i\n");
  EXPECT_EQ(ParseError(FormatAofManifest(m)), "Invalid AOF manifest file format");
  // Nor is a single quote, which sdssplitargs takes as opening a quoted part: with
  // appendfilename "a'b.aof" redis-server 7.0.15 wrote this, then refused it at restart.
  m.files = {{"a'b.aof.1.base.rdb", 1, 'b'}};
  EXPECT_EQ(FormatAofManifest(m), "file a'b.aof.1.base.rdb seq 1 type b\n");
  EXPECT_EQ(ParseError(FormatAofManifest(m)), "Invalid AOF manifest file format");
  // sdscatrepr's escapes, for names that need quoting.
  m.files = {{"a\\b\n\r\t\a\b\x7f\xff", -5, 'h'}, {"tab\there", 1, 'i'}};
  EXPECT_EQ(FormatAofManifest(m),
            "file \"a\\\\b\\n\\r\\t\\a\\b\\x7f\\xff\" seq -5 type h\n"
            "file \"tab\\there\" seq 1 type i\n");
}

// What redis-server 7.0.15 started with.
TEST(AofManifest, ParseLenientAsRedis) {
  AofManifest m = Parse("TYPE incr SEQ 1 FILE appendonly.aof.1.incr.aof extra x\n");
  ASSERT_EQ(m.files.size(), 1u);
  EXPECT_EQ(m.files[0].type, 'i');  // only the first byte counts
  EXPECT_EQ(m.files[0].name, "appendonly.aof.1.incr.aof");
  m = Parse("  file appendonly.aof.1.incr.aof  seq 1 type i \r\n");
  EXPECT_EQ(m.files[0].name, "appendonly.aof.1.incr.aof");
  m = Parse("# hi\n");  // comments alone: no files, and Redis starts afresh
  EXPECT_TRUE(m.files.empty());
  EXPECT_EQ(m.base(), nullptr);
  // Lines in any order; seq as atoll reads it; a comment, even unended at the end.
  m = Parse("file i seq 5x type i\n# c\nfile b seq -2 type b\n#");
  ASSERT_EQ(m.files.size(), 2u);
  EXPECT_EQ(m.files[0].name, "b");
  EXPECT_EQ(m.curr_base_seq, -2);
  EXPECT_EQ(m.files[1].seq, 5);
  EXPECT_EQ(m.curr_incr_seq, 5);
  // An empty name passes the manifest (Redis then fails to open the file).
  EXPECT_EQ(Parse("file \"\" seq 1 type i\n").files[0].name, "");
  // 1024 bytes with the newline is the longest line; a longer comment's rest is a line.
  const std::string pad = "file a seq 1 type i x ";
  const std::string line1024 = pad + std::string(1023 - pad.size(), 'y') + "\n";
  ASSERT_EQ(line1024.size(), 1024u);
  EXPECT_EQ(Parse(line1024).files.size(), 1u);
  EXPECT_EQ(ParseError(std::string(1, ' ') + line1024),
            "The AOF manifest file contains too long line");
  EXPECT_EQ(ParseError(Hashed(3000, 'c') + "\n"), "The AOF manifest file contains too long line");
  EXPECT_EQ(ParseError(Hashed(2000, 'c') + "\n"), "Invalid AOF manifest file format");
  EXPECT_EQ(ParseError(std::string(1, '#') + line1024),
            "Invalid AOF manifest file format");  // rest: "\n"
  EXPECT_EQ(Parse(Hashed(1022, '#') + "\n" + line1024).files.size(), 1u);
}

// Each message as redis-server 7.0.15 logged it for the same manifest.
TEST(AofManifest, Errors) {
  const std::string invalid = "Invalid AOF manifest file format";
  EXPECT_EQ(ParseError(""), "Found an empty AOF manifest");
  EXPECT_EQ(ParseError("file appendonly.aof.1.incr.aof seq 1 type i"),
            "The AOF manifest file contains too long line");  // no final newline
  EXPECT_EQ(ParseError(std::string("file a seq 1 type i\0\n", 21)),
            "The AOF manifest file contains too long line");  // fgets' C string ends early
  EXPECT_EQ(ParseError("file a seq 1 type i\n\n"), invalid);  // an empty line
  EXPECT_EQ(ParseError("file a seq 1 type i\n \t\r\n"), invalid);
  EXPECT_EQ(ParseError("file \"a seq 1 type i\n"), invalid);  // unbalanced quote
  EXPECT_EQ(ParseError("file a seq 1 type i x\n"), invalid);  // odd count
  EXPECT_EQ(ParseError("file a seq 1\n"), invalid);           // fewer than six
  EXPECT_EQ(ParseError("file x/y seq 0\n"), invalid);         // counted before the path
  EXPECT_EQ(ParseError("file a seq 1 typo i\n"), invalid);    // a field missing
  EXPECT_EQ(ParseError("file a seq 0 type i\n"), invalid);
  EXPECT_EQ(ParseError("file a seq abc type i\n"), invalid);
  EXPECT_EQ(ParseError("file a seq 1 type \"\"\n"), invalid);
  const std::string path = "File can't be a path, just a filename";
  EXPECT_EQ(ParseError("file x/y seq 1 type i\n"), path);
  EXPECT_EQ(ParseError("file a\\b seq 1 type i\n"), path);
  EXPECT_EQ(ParseError("file \"a\\\\b\" seq 1 type i\n"), path);
  EXPECT_EQ(ParseError("file ok seq 1 type i\nfile /abs seq 2 type i\n"), path);
  EXPECT_EQ(ParseError("file a seq 1 type x\n"), "Unknown AOF file type");
  EXPECT_EQ(ParseError("file a seq -1 type i\n"), "Found a non-monotonic sequence number");
  EXPECT_EQ(ParseError("file a seq 2 type i\nfile b seq 2 type i\n"),
            "Found a non-monotonic sequence number");
  EXPECT_EQ(ParseError("file a seq 1 type b\nfile b seq 2 type b\n"),
            "Found duplicate base file information");
}

TEST(AofManifest, RandomNamesRoundTrip) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    AofManifest m;
    const int n = 1 + static_cast<int>(rng() % 5);
    for (int k = 0; k < n; ++k) {
      std::string name;
      // Not empty, no single quote: Redis writes such names bare and cannot read them back.
      const int len = 1 + static_cast<int>(rng() % 12);
      for (int j = 0; j < len; ++j) {
        char c;
        do c = static_cast<char>(rng() % 256);
        while (c == '/' || c == '\\' || c == '\0' || c == '\'');
        name.push_back(c);
      }
      const char type = k == 0 ? 'b' : (rng() % 2 ? 'h' : 'i');
      m.files.push_back(
          {name, type == 'i' ? k : static_cast<int64_t>(rng() % 1000) - 500 + 1000, type});
    }
    // In the order Redis keeps them, which parsing restores.
    std::stable_sort(m.files.begin(), m.files.end(),
                     [](const AofFileInfo& a, const AofFileInfo& b) { return a.type < b.type; });
    m.curr_base_seq = m.files[0].seq;
    for (const AofFileInfo& f : m.files) {
      if (f.type == 'i') m.curr_incr_seq = f.seq;
    }
    const std::string text = FormatAofManifest(m);
    SCOPED_TRACE(text);
    const AofManifest back = Parse(text);
    EXPECT_EQ(FormatAofManifest(back), text);
    ASSERT_EQ(back.files.size(), m.files.size());
    EXPECT_EQ(back.curr_base_seq, m.curr_base_seq);
    EXPECT_EQ(back.curr_incr_seq, m.curr_incr_seq);
    for (size_t k = 0; k < m.files.size(); ++k) {
      EXPECT_EQ(back.files[k].name, m.files[k].name);
      EXPECT_EQ(back.files[k].seq, m.files[k].seq);
      EXPECT_EQ(back.files[k].type, m.files[k].type);
    }
  }
}

}  // namespace
}  // namespace rc
