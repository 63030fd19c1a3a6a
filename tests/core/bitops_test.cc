// The word-at-a-time bit scans against bit-by-bit references over random strings, with
// ranges starting and ending at every alignment.

#include "core/bitops.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace rc::bits {
namespace {

bool BitAt(const std::string& s, uint64_t i) { return (uint8_t(s[i >> 3]) >> (7 - (i & 7))) & 1; }

std::string RandomBytes(std::mt19937_64& rng, size_t n, int density) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n * 8; ++i) {
    if (int(rng() % 100) < density) s[i >> 3] = char(uint8_t(s[i >> 3]) | (0x80 >> (i & 7)));
  }
  return s;
}

const uint8_t* U(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

TEST(BitOpsTest, PopCountAndRangesMatchBitByBit) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::string s = RandomBytes(rng, 1 + rng() % 100, int(rng() % 101));
    const uint64_t nbits = s.size() * 8;
    uint64_t all = 0;
    for (uint64_t i = 0; i < nbits; ++i) all += BitAt(s, i);
    ASSERT_EQ(PopCount(U(s), s.size()), all);
    for (int q = 0; q < 20; ++q) {
      uint64_t a = rng() % nbits, b = rng() % nbits;
      if (a > b) std::swap(a, b);
      uint64_t want = 0;
      for (uint64_t i = a; i <= b; ++i) want += BitAt(s, i);
      ASSERT_EQ(PopCountRange(U(s), a, b), want) << a << ".." << b;
    }
  }
}

TEST(BitOpsTest, FindBitMatchesBitByBit) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 300; ++round) {
    // Sparse and dense strings, so long runs of equal words are skipped.
    const int density = round % 3 == 0 ? 0 : round % 3 == 1 ? 100 : int(rng() % 101);
    std::string s = RandomBytes(rng, 1 + rng() % 300, density);
    if (rng() % 2) s[rng() % s.size()] ^= char(1 << (rng() % 8));
    const uint64_t nbits = s.size() * 8;
    for (int q = 0; q < 20; ++q) {
      uint64_t a = rng() % nbits, b = rng() % nbits;
      if (a > b) std::swap(a, b);
      for (bool bit : {false, true}) {
        int64_t want = -1;
        for (uint64_t i = a; i <= b; ++i) {
          if (BitAt(s, i) == bit) {
            want = int64_t(i);
            break;
          }
        }
        ASSERT_EQ(FindBit(U(s), a, b, bit), want) << a << ".." << b << " bit " << bit;
      }
    }
  }
}

TEST(BitOpsTest, BitOpPadsShortSourcesWithZeros) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 100; ++round) {
    std::vector<std::string> srcs;
    size_t len = 0;
    const size_t k = 1 + rng() % 4;
    for (size_t i = 0; i < k; ++i) {
      srcs.push_back(RandomBytes(rng, rng() % 70, 50));
      len = std::max(len, srcs.back().size());
    }
    std::vector<std::string_view> views(srcs.begin(), srcs.end());
    for (BitOpKind op : {BitOpKind::kAnd, BitOpKind::kOr, BitOpKind::kXor, BitOpKind::kNot}) {
      const size_t n = op == BitOpKind::kNot ? 1 : k;
      const size_t out_len = op == BitOpKind::kNot ? srcs[0].size() : len;
      std::string out(out_len, '?');
      BitOp(op, absl::MakeConstSpan(views.data(), n), out.data(), out_len);
      for (size_t i = 0; i < out_len; ++i) {
        auto at = [&](size_t s) { return i < srcs[s].size() ? uint8_t(srcs[s][i]) : uint8_t(0); };
        uint8_t want = at(0);
        for (size_t s = 1; s < n; ++s) {
          if (op == BitOpKind::kAnd) want &= at(s);
          if (op == BitOpKind::kOr) want |= at(s);
          if (op == BitOpKind::kXor) want ^= at(s);
        }
        if (op == BitOpKind::kNot) want = uint8_t(~want);
        ASSERT_EQ(uint8_t(out[i]), want) << "op " << int(op) << " byte " << i;
      }
    }
  }
}

TEST(BitOpsTest, FieldsRoundTripAtEveryAlignment) {
  std::mt19937_64 rng(5);
  std::string buf(32, '\0');
  auto* p = reinterpret_cast<uint8_t*>(buf.data());
  for (unsigned width = 1; width <= 64; ++width) {
    for (uint64_t offset = 0; offset < 16; ++offset) {
      const uint64_t v = width == 64 ? rng() : rng() & ((uint64_t(1) << width) - 1);
      SetField(p, offset, width, v);
      ASSERT_EQ(GetField(p, buf.size(), offset, width), v) << width << "@" << offset;
    }
  }
  // Past the end reads as zeros: the top bits of 0xff followed by padding.
  const uint8_t one = 0xff;
  EXPECT_EQ(GetField(&one, 1, 4, 8), 0xf0u);
  EXPECT_EQ(SignExtend(0x80, 8), -128);
  EXPECT_EQ(SignExtend(0x7f, 8), 127);
}

TEST(BitOpsTest, OverflowFollowsRedis) {
  uint64_t u;
  int64_t i;
  EXPECT_TRUE(AddUnsigned(250, 10, 8, Overflow::kWrap, &u));
  EXPECT_EQ(u, 4u);
  EXPECT_TRUE(AddUnsigned(250, 10, 8, Overflow::kSat, &u));
  EXPECT_EQ(u, 255u);
  EXPECT_FALSE(AddUnsigned(250, 10, 8, Overflow::kFail, &u));
  EXPECT_TRUE(AddUnsigned(5, -10, 8, Overflow::kSat, &u));
  EXPECT_EQ(u, 0u);
  // SET u8 -1: the value itself is out of range.
  EXPECT_TRUE(AddUnsigned(uint64_t(-1), 0, 8, Overflow::kWrap, &u));
  EXPECT_EQ(u, 255u);
  EXPECT_TRUE(AddSigned(120, 10, 8, Overflow::kWrap, &i));
  EXPECT_EQ(i, -126);
  EXPECT_TRUE(AddSigned(-120, -10, 8, Overflow::kSat, &i));
  EXPECT_EQ(i, -128);
  EXPECT_TRUE(AddSigned(INT64_MAX, 1, 64, Overflow::kWrap, &i));
  EXPECT_EQ(i, INT64_MIN);
  EXPECT_FALSE(AddSigned(INT64_MIN, -1, 64, Overflow::kFail, &i));
  EXPECT_TRUE(AddSigned(100, -50, 64, Overflow::kFail, &i));
  EXPECT_EQ(i, 50);
}

}  // namespace
}  // namespace rc::bits
