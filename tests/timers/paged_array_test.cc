// PagedArray against std::vector under random pushes and pops, with pages of 8 items so
// page boundaries are crossed constantly; capacity must stay within two pages of size.

#include "timers/paged_array.h"

#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace rc {
namespace {

TEST(PagedArrayTest, MatchesVectorAndFreesPages) {
  using Array = PagedArray<uint64_t, 3>;
  Array a;
  std::vector<uint64_t> want;
  std::mt19937_64 rng(7);
  for (int step = 0; step < 200000; ++step) {
    // Phases of growth and shrinkage so the size sweeps up and down by hundreds.
    bool grow = (step / 5000) % 2 == 0 ? rng() % 4 != 0 : rng() % 4 == 0;
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
    ASSERT_LT(a.capacity() - a.size(), 2 * Array::kPageItems) << "at size " << a.size();
    if (step % 1000 == 0) {
      for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(a[i], want[i]) << i;
    }
  }
  a.clear();
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(a.capacity(), 0u);
}

TEST(PagedArrayTest, WritesThroughIndexStick) {
  PagedArray<int, 2> a;
  for (int i = 0; i < 50; ++i) a.push_back(i);
  for (size_t i = 0; i < 50; ++i) a[i] *= 2;
  for (size_t i = 0; i < 50; ++i) EXPECT_EQ(a[i], int(i) * 2);
  EXPECT_EQ(a.front(), 0);
  EXPECT_EQ(a.back(), 98);
}

}  // namespace
}  // namespace rc
