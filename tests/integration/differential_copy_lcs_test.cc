// COPY (strings and sorted sets, TTLs, REPLACE, DB), LCS (every option) and SUBSTR sent to
// ringcache (1, 2 and 3 threads) and to redis-server; every reply must be identical. Keys
// without hash tags, so with 2 and 3 threads the two keys of COPY and LCS often live on
// different shards.

#include <chrono>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class DiffCopyLcsTest : public DiffTest {};

TEST_P(DiffCopyLcsTest, CopyStrings) {
  for (int i = 0; i < 8; ++i) {
    const std::string src = absl::StrCat("src", i), dst = absl::StrCat("dst", i);
    SCOPED_TRACE(src + " -> " + dst);
    Script({
        {"COPY", src, dst},
        {"SET", src, absl::StrCat("value", i)},
        {"COPY", src, dst},
        {"GET", dst},
        {"COPY", src, dst},
        {"SET", src, "changed"},
        {"GET", dst},
        {"COPY", src, dst, "REPLACE"},
        {"GET", dst},
        {"APPEND", dst, "+"},
        {"GET", src},
        {"SET", src, std::string(300, 'x'), "EX", "1000"},
        {"COPY", src, dst, "replace"},
        {"TTL", dst},
        {"STRLEN", dst},
        {"PERSIST", src},
        {"COPY", src, dst, "REPLACE", "DB", "0"},
        {"TTL", dst},
        {"OBJECT", "ENCODING", dst},
        {"SET", src, "12345"},
        {"COPY", src, dst, "DB", "0", "REPLACE"},
        {"OBJECT", "ENCODING", dst},
        {"INCR", dst},
        {"GET", src},
    });
  }
}

TEST_P(DiffCopyLcsTest, CopySortedSetsInBothEncodings) {
  Script({{"ZADD", "small", "1", "a", "2", "b", "-0", "c"}});
  for (int i = 0; i < 200; ++i) Same({"ZADD", "big", std::to_string(i), absl::StrCat("m", i)});
  // Shrunk below the listpack limit: Redis keeps it a skiplist, and so does its copy.
  for (int i = 0; i < 190; ++i) Same({"ZREM", "big", absl::StrCat("m", i)});
  for (int i = 0; i < 4; ++i) {
    const std::string d1 = absl::StrCat("zcopy", i), d2 = absl::StrCat("zbig", i);
    Script({
        {"COPY", "small", d1},
        {"ZRANGE", d1, "0", "-1", "WITHSCORES"},
        {"OBJECT", "ENCODING", d1},
        {"ZADD", d1, "9", "z"},
        {"ZCARD", "small"},
        {"COPY", "big", d2},
        {"OBJECT", "ENCODING", d2},
        {"ZRANGE", d2, "0", "-1", "WITHSCORES"},
        {"ZREM", d2, "m195"},
        {"ZCARD", "big"},
        {"ZSCORE", d2, "m199"},
        {"EXPIRE", "small", "500"},
        {"COPY", "small", d2, "REPLACE"},
        {"TYPE", d2},
        {"TTL", d2},
        {"ZRANGE", d2, "0", "-1"},
        {"COPY", "big", d1},
        {"SET", "str", "s"},
        {"COPY", "str", d1, "REPLACE"},
        {"TYPE", d1},
        {"COPY", d2, "str", "REPLACE"},
        {"TYPE", "str"},
        {"MEMORY", "USAGE", "missing"},
    });
  }
}

TEST_P(DiffCopyLcsTest, CopyErrors) {
  Script({
      {"SET", "a", "1"},
      {"COPY", "a", "a"},
      {"COPY", "a", "a", "REPLACE"},
      {"COPY", "missing", "missing"},
      {"COPY", "a", "b", "FOO"},
      {"COPY", "a", "b", "DB"},
      {"COPY", "a", "b", "DB", "x"},
      {"COPY", "a", "b", "DB", "-1"},
      {"COPY", "a", "b", "DB", "99"},
      {"COPY", "a", "b", "DB", "99999999999"},
      {"COPY", "a", "b", "REPLACE", "REPLACE"},
      {"COPY", "a", "a", "DB", "0"},
      {"COPY", "a", "a", "FOO"},
      {"COPY", "a"},
      {"COPY"},
      {"EXISTS", "b"},
  });
  // Redis has 16 databases; ringcache one, and refuses others as SELECT does.
  Expect({"COPY", "a", "b", "DB", "1"}, "-ERR DB index is out of range");
  Expect({"SELECT", "1"}, "-ERR DB index is out of range");
  Same({"EXISTS", "b"});
}

TEST_P(DiffCopyLcsTest, CopyExpiredSourceAndDestination) {
  Script({
      {"SET", "gone", "v", "PX", "1"},
      {"SET", "live", "v"},
      {"SET", "old", "x", "PX", "1"},
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  Script({
      {"COPY", "gone", "d"},
      {"EXISTS", "d"},
      {"COPY", "live", "old"},
      {"GET", "old"},
      {"TTL", "old"},
  });
}

TEST_P(DiffCopyLcsTest, CopyInsideTransactions) {
  Script({
      {"SET", "a", "1"},
      {"MULTI"},
      {"COPY", "a", "b"},
      {"INCR", "b"},
      {"COPY", "b", "c"},
      {"COPY", "a", "c"},
      {"EXEC"},
      {"MGET", "a", "b", "c"},
  });
}

TEST_P(DiffCopyLcsTest, LcsOptions) {
  Script({
      {"SET", "a", "ohmytext"},
      {"SET", "b", "mynewtext"},
      {"LCS", "a", "b"},
      {"LCS", "a", "b", "LEN"},
      {"LCS", "a", "b", "IDX"},
      {"LCS", "a", "b", "IDX", "WITHMATCHLEN"},
      {"LCS", "a", "b", "IDX", "MINMATCHLEN", "4"},
      {"LCS", "a", "b", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"},
      {"LCS", "a", "b", "idx", "minmatchlen", "-5", "withmatchlen"},
      {"LCS", "a", "b", "WITHMATCHLEN"},
      {"LCS", "a", "b", "MINMATCHLEN", "2"},
      {"LCS", "a", "b", "LEN", "WITHMATCHLEN", "MINMATCHLEN", "1"},
      {"LCS", "b", "a", "IDX"},
      {"LCS", "a", "a", "IDX", "WITHMATCHLEN"},
      {"LCS", "a", "missing"},
      {"LCS", "missing", "a", "IDX"},
      {"LCS", "missing", "other", "LEN"},
      {"SET", "x", "GTACGTCGATCGTAGCTAGCTTTAACGGCATAAA"},
      {"SET", "y", "TTGCGATCGATCGATCGTAGCTAGCTAGACGATCG"},
      {"LCS", "x", "y"},
      {"LCS", "x", "y", "IDX", "WITHMATCHLEN"},
      {"LCS", "x", "y", "IDX", "MINMATCHLEN", "3", "WITHMATCHLEN"},
      {"SET", "bin1", std::string("a\0b\xff\0c", 6)},
      {"SET", "bin2", std::string("\0\xff\0", 3)},
      {"LCS", "bin1", "bin2"},
      {"LCS", "bin1", "bin2", "IDX"},
      {"SET", "e", ""},
      {"LCS", "e", "a", "IDX"},
  });
}

TEST_P(DiffCopyLcsTest, LcsErrors) {
  Script({
      {"SET", "a", "abc"},
      {"SET", "b", "bcd"},
      {"LCS", "a", "b", "LEN", "IDX"},
      {"LCS", "a", "b", "FOO"},
      {"LCS", "a", "b", "MINMATCHLEN"},
      {"LCS", "a", "b", "MINMATCHLEN", "x"},
      {"LCS", "a", "b", "MINMATCHLEN", "1.5", "LEN", "IDX"},
      {"ZADD", "z", "1", "m"},
      {"LCS", "a", "z"},
      {"LCS", "z", "a", "FOO"},
      {"LCS", "missing", "z", "LEN", "IDX"},
      {"LCS", "a"},
  });
}

TEST_P(DiffCopyLcsTest, Substr) {
  Script({
      {"SET", "s", "Hello World"},
      {"SUBSTR", "s", "0", "4"},
      {"SUBSTR", "s", "-5", "-1"},
      {"SUBSTR", "s", "5", "2"},
      {"SUBSTR", "s", "0", "100"},
      {"SUBSTR", "s", "-100", "-50"},
      {"SUBSTR", "missing", "0", "1"},
      {"SUBSTR", "s", "x", "1"},
      {"SUBSTR", "s", "0"},
      {"ZADD", "z", "1", "m"},
      {"SUBSTR", "z", "0", "1"},
  });
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffCopyLcsTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
