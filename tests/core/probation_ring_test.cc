// ProbationRing keeps FIFO order across growth; GhostFilter remembers recent hashes and
// forgets what later ones overwrite.

#include "core/probation_ring.h"

#include <cstdint>
#include <deque>

#include "core/ghost_filter.h"
#include "gtest/gtest.h"

namespace rc {
namespace {

TEST(ProbationRing, FifoAcrossWrapAndGrowth) {
  ProbationRing ring;
  ring.Reserve(16);
  std::deque<uint32_t> ref;
  uint32_t next = 1;
  for (int round = 0; round < 1000; ++round) {
    // Push a few (growing when full at times), pop a few: the ring wraps many times.
    for (int i = 0; i < 3; ++i) {
      if (ring.full()) {
        if (round % 7 == 0) {
          ring.Reserve(ring.capacity() * 2);
        } else {
          ASSERT_EQ(ring.Pop(), ref.front());
          ref.pop_front();
        }
      }
      ring.Push(next);
      ref.push_back(next++);
    }
    for (int i = 0; i < 2 && !ref.empty(); ++i) {
      ASSERT_EQ(ring.Pop(), ref.front());
      ref.pop_front();
    }
    ASSERT_EQ(ring.size(), ref.size());
  }
  while (!ref.empty()) {
    ASSERT_EQ(ring.Pop(), ref.front());
    ref.pop_front();
  }
  EXPECT_TRUE(ring.empty());
  EXPECT_EQ(ring.MemoryBytes(), ring.capacity() * sizeof(uint32_t));
}

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

TEST(GhostFilter, RemembersRecentKeysWithFewFalsePositives) {
  GhostFilter ghost;
  EXPECT_FALSE(ghost.Contains(Mix(1)));  // no slots yet: remembers nothing
  ghost.Add(Mix(1));
  EXPECT_FALSE(ghost.Contains(Mix(1)));
  ghost.Reset(1024);
  EXPECT_EQ(ghost.slots(), 1024u);
  EXPECT_EQ(ghost.MemoryBytes(), 1024u);
  for (uint64_t i = 0; i < 100; ++i) ghost.Add(Mix(i));
  int remembered = 0;
  for (uint64_t i = 0; i < 100; ++i) remembered += ghost.Contains(Mix(i)) ? 1 : 0;
  EXPECT_GE(remembered, 90);  // a few share a slot with a later one
  int false_positives = 0;
  for (uint64_t i = 1000; i < 101000; ++i) false_positives += ghost.Contains(Mix(i)) ? 1 : 0;
  // ~10% of slots are occupied and one tag in 255 matches: ~40 of 100000.
  EXPECT_LT(false_positives, 150);
  // Many later keys overwrite the early ones.
  for (uint64_t i = 200000; i < 220000; ++i) ghost.Add(Mix(i));
  remembered = 0;
  for (uint64_t i = 0; i < 100; ++i) remembered += ghost.Contains(Mix(i)) ? 1 : 0;
  EXPECT_LT(remembered, 5);
}

}  // namespace
}  // namespace rc
