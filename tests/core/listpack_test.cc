// Redis's listpack, intset, ziplist and zipmap blobs (core/listpack.h, core/intset.h,
// core/ziplist.h): every integer and string encoding at its boundaries, against the bytes
// redis-server 7.0.15 keeps, and the elements read back as written.
#include "core/listpack.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/intset.h"
#include "core/rdb_value.h"
#include "tests/core/rdb_test_util.h"

namespace rc {
namespace {

// clang-format off
const std::vector<std::string> kBoundaries = {
    "127", "128", "-1", "4095", "4096", "-4096", "-4097", "32767", "32768", "-32768",
    "-32769", "8388607", "8388608", "-8388608", "-8388609", "2147483647", "2147483648",
    "-2147483648", "-2147483649", "9223372036854775807", "-9223372036854775808",
    std::string(63, 'x'), std::string(64, 'y'), std::string(4095, 'z'), std::string(4096, 'w'),
    "-0", "01"};
// clang-format on

// redis-server 7.0.15: CONFIG SET hash-max-listpack-value 5000, then HSET k f0 <v0> f1
// <v1> ... with the values above, then DUMP k: a listpack hash (LZF-compressed).
const char kBoundaryHash[] =
    "10c34167618c188c2100003600826630037f0182663103c0800282663203dfff2006023303cf40060b3403f1"
    "00100382663503d0002015043603f1ffef200e00372007007f2007093803f20080000482663920270b800383"
    "66313004f2ff7fff0420090031200901ff7f4009033204f300202600052014023304f2200a4014023404f320"
    "1e00ff40140035400a01ff7f400a033604f40020202003010009202e003740390100804019023804f4402420"
    "0300ff40190039600e4000007f200e013230603740000080400e033104bf78e0350000402054043204e04079"
    "e0360000422047043304efff7ae0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0"
    "ff00e0ff00e0ff00e0ff00e0ff00e07d000120813007073404f00010000077e0ff00e0ff00e0ff00e0ff00e0"
    "ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e07e00012085300b05350482"
    "2d3003200806360482303103ff0a00162d6f334fbb36ff";

TEST(ListpackTest, EveryEncodingAsRedisWritesIt) {
  Value v = Value::Make<Hash>();
  for (size_t i = 0; i < kBoundaries.size(); ++i) {
    v.get<Hash>()->Set("f" + std::to_string(i), kBoundaries[i], {512, 5000});
  }
  EntryPtr e = Entry::MakeValue("k", std::move(v));
  ASSERT_EQ(EncodingOf(*e), "listpack");
  EXPECT_EQ(ToHex(RdbDumpPayload(*e, true)), kBoundaryHash);
}

TEST(ListpackTest, ElementsReadBackAsWritten) {
  std::string lp;
  listpack::Writer w(&lp);
  for (const std::string& s : kBoundaries) w.Add(s);
  const size_t before_finish = w.bytes();
  w.Finish();
  EXPECT_EQ(before_finish, lp.size());
  EXPECT_EQ(w.count(), kBoundaries.size());
  size_t expected_bytes = listpack::kEmptyBytes;
  for (const std::string& s : kBoundaries) expected_bytes += listpack::EntryBytes(s);
  EXPECT_EQ(lp.size(), expected_bytes);
  std::vector<std::string> back;
  char buf[24];
  ASSERT_TRUE(listpack::ForEach(lp, [&](const listpack::Element& e) {
    back.emplace_back(e.View(buf));
    return true;
  }));
  EXPECT_EQ(back, kBoundaries);
}

TEST(ListpackTest, CountsPast65534AreNotKeptInTheHeader) {
  std::string lp;
  listpack::Writer w(&lp);
  for (int i = 0; i < 70000; ++i) w.AddInt(i % 100);
  w.Finish();
  EXPECT_EQ(uint8_t(lp[4]), 0xff);
  EXPECT_EQ(uint8_t(lp[5]), 0xff);
  size_t n = 0;
  EXPECT_TRUE(listpack::ForEach(lp, [&](const listpack::Element&) { return ++n > 0; }));
  EXPECT_EQ(n, 70000u);
}

TEST(IntsetTest, WidthFollowsTheExtremes) {
  for (const auto& [ints, width] :
       std::vector<std::pair<std::vector<int64_t>, int>>{{{1, 2}, 2},
                                                         {{-32768, 32767}, 2},
                                                         {{-32769, 5}, 4},
                                                         {{0, 2147483647}, 4},
                                                         {{-2147483649LL, 0}, 8},
                                                         {{INT64_MIN, INT64_MAX}, 8}}) {
    std::string blob;
    intset::Append(ints, &blob);
    EXPECT_EQ(uint8_t(blob[0]), width);
    EXPECT_EQ(blob.size(), 8 + width * ints.size());
    std::vector<int64_t> back;
    ASSERT_TRUE(intset::ForEach(blob, [&](int64_t v) {
      back.push_back(v);
      return true;
    }));
    EXPECT_EQ(back, ints);
  }
  std::string empty;
  intset::Append({}, &empty);
  EXPECT_FALSE(intset::ForEach(empty, [](int64_t) { return true; }));
}

}  // namespace
}  // namespace rc
