// MappedArray against std::vector under random pushes and pops that sweep the size up and
// down across many remaps (growth and shrinkage), checking every item survives each move.

#include "timers/mapped_array.h"

#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace rc {
namespace {

TEST(MappedArrayTest, MatchesVectorAcrossRemaps) {
  MappedArray<uint64_t> a;
  std::vector<uint64_t> want;
  std::mt19937_64 rng(7);
  size_t remaps = 0, last_capacity = 0;
  for (int step = 0; step < 400000; ++step) {
    // Phases of growth and of shrinkage, so the size sweeps between 0 and ~50k.
    bool grow = (step / 100000) % 2 == 0 ? rng() % 4 != 0 : rng() % 4 == 0;
    if (grow || want.empty()) {
      uint64_t v = rng();
      a.push_back(v);
      want.push_back(v);
    } else {
      ASSERT_EQ(a.back(), want.back());
      a.pop_back();
      want.pop_back();
    }
    ASSERT_EQ(a.size(), want.size());
    ASSERT_GE(a.capacity(), a.size());
    if (a.capacity() != last_capacity) {
      ++remaps;
      last_capacity = a.capacity();
      for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(a[i], want[i]) << i;
    }
  }
  EXPECT_GT(remaps, 10u);
  // Shrinkage gave the tail back: capacity is within 4x of what is stored (or the minimum).
  EXPECT_LE(a.capacity(), std::max<size_t>(4 * a.size(), 4096 / sizeof(uint64_t)) * 2);
  a.clear();
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(a.capacity(), 0u);
  a.push_back(42);  // usable again after clear
  EXPECT_EQ(a.front(), 42u);
}

TEST(MappedArrayTest, MemoryCountsTouchedPagesOnly) {
  MappedArray<uint64_t> a;
  EXPECT_EQ(a.MemoryBytes(), 0u);
  for (uint64_t i = 0; i < 1000; ++i) a.push_back(i);  // 8000 bytes: two pages
  EXPECT_EQ(a.MemoryBytes(), 8192u);
  for (size_t i = 0; i < 1000; ++i) EXPECT_EQ(a[i], i);
}

}  // namespace
}  // namespace rc
