// PackedMap, Hash and MemberSet against std:: reference containers, with Verify() after
// every batch: both encodings, splits and merges of the big table in both directions,
// SCAN's guarantee while the table grows and shrinks, and the encodings' conversions.

#include "core/packed_map.h"

#include <map>
#include <set>
#include <string>

#include "absl/random/random.h"
#include "core/hash.h"
#include "core/member_set.h"
#include "gtest/gtest.h"

namespace rc {
namespace {

std::map<std::string, std::string> Dump(const PackedMap<true>& m) {
  std::map<std::string, std::string> out;
  m.ForEach([&](std::string_view k, std::string_view v) {
    EXPECT_TRUE(out.emplace(std::string(k), std::string(v)).second) << k;
  });
  return out;
}

TEST(PackedMapTest, RandomOpsMatchAMap) {
  for (bool big : {false, true}) {
    absl::BitGen rng;
    PackedMap<true> m;
    if (big) m.ToBig();
    std::map<std::string, std::string> ref;
    for (int round = 0; round < 40; ++round) {
      // Grow for a while, then shrink, so both splits and merges run.
      const bool growing = round < 25;
      for (int i = 0; i < 500; ++i) {
        std::string k = "k" + std::to_string(absl::Uniform(rng, 0,
                                                           !big      ? 300
                                                           : growing ? 20000
                                                                     : 3000));
        if (absl::Bernoulli(rng, growing ? 0.8 : 0.2)) {
          std::string v(absl::Uniform(rng, 0, 300), 'a' + char(i % 26));
          EXPECT_EQ(m.Upsert(k, v), ref.count(k) == 0);
          ref[k] = v;
        } else {
          EXPECT_EQ(m.Erase(k), ref.erase(k) == 1);
        }
      }
      m.Verify();
      ASSERT_EQ(m.size(), ref.size());
      EXPECT_EQ(Dump(m), ref);
      for (const auto& [k, v] : ref) {
        std::string_view got;
        ASSERT_TRUE(m.Find(k, &got));
        EXPECT_EQ(got, v);
      }
      EXPECT_FALSE(m.Find("absent"));
      if (!m.compact()) {
        EXPECT_GT(m.MemoryBytes(), 0u);
      }
    }
  }
}

TEST(PackedMapTest, CompactKeepsInsertionOrder) {
  PackedMap<true> m;
  m.Upsert("c", "1");
  m.Upsert("a", "2");
  m.Upsert("b", "3");
  m.Upsert("a", "a longer value");  // in place
  m.Erase("c");
  std::string order;
  m.ForEach([&](std::string_view k, std::string_view v) {
    order += std::string(k) + "=" + std::string(v) + ";";
  });
  EXPECT_EQ(order, "a=a longer value;b=3;");
  m.Verify();
}

TEST(PackedMapTest, ScanSeesEveryStableElementWhileTheTableChanges) {
  PackedMap<false> m;
  m.ToBig();
  for (int i = 0; i < 5000; ++i) m.Upsert("stable" + std::to_string(i));
  std::set<std::string> seen;
  uint64_t cursor = 0;
  int churn = 0;
  do {
    cursor = m.Scan(cursor, 20, [&](std::string_view k, std::string_view) { seen.emplace(k); });
    // Grow, then shrink, the table under the scan.
    for (int i = 0; i < 100; ++i, ++churn) {
      const std::string k = "churn" + std::to_string(churn % 20000);
      if (churn < 20000) {
        m.Upsert(k);
      } else {
        m.Erase(k);
      }
    }
  } while (cursor != 0);
  for (int i = 0; i < 5000; ++i) EXPECT_TRUE(seen.count("stable" + std::to_string(i))) << i;
  m.Verify();
}

TEST(HashTest, ConvertsAtTheLimits) {
  Hash h;
  const Hash::Limits limits{4, 8};
  for (int i = 0; i < 4; ++i) h.Set("f" + std::to_string(i), "v", limits);
  EXPECT_EQ(h.Encoding(), "listpack");
  h.Set("f0", "12345678", limits);
  EXPECT_EQ(h.Encoding(), "listpack");
  h.Set("f4", "v", limits);
  EXPECT_EQ(h.Encoding(), "hashtable");
  Hash g;
  g.Set("f", "123456789", limits);
  EXPECT_EQ(g.Encoding(), "hashtable");
  EXPECT_EQ(g.size(), 1u);
  h.Verify();
}

TEST(MemberSetTest, IntsetThenMap) {
  MemberSet s(true);
  const MemberSet::Limits limits{4};
  for (const char* m : {"5", "-1", "3", "5"}) s.Add(m, limits);
  EXPECT_EQ(s.Encoding(), "intset");
  std::string order;
  s.ForEach([&](std::string_view m) { order += std::string(m) + ","; });
  EXPECT_EQ(order, "-1,3,5,");
  EXPECT_TRUE(s.Contains("3"));
  EXPECT_FALSE(s.Contains("03"));
  s.Add("x", limits);
  EXPECT_EQ(s.Encoding(), "hashtable");
  EXPECT_TRUE(s.Contains("3"));
  EXPECT_TRUE(s.Contains("x"));
  EXPECT_EQ(s.size(), 4u);
  s.Verify();
  MemberSet t(true);
  for (int i = 0; i < 5; ++i) t.Add(std::to_string(i), limits);
  EXPECT_EQ(t.Encoding(), "hashtable");
  for (int i = 0; i < 500; ++i) t.Add("m" + std::to_string(i), limits);
  EXPECT_EQ(t.size(), 505u);
  t.Verify();
  absl::BitGen rng;
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(t.Contains(t.Random(rng)));
}

}  // namespace
}  // namespace rc
