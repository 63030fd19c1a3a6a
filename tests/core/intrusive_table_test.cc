#include "core/intrusive_table.h"

#include <bit>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/sanitizer_scale.h"

namespace rc {
namespace {

using test::SanitizerScaled;

struct TestNode {
  TestNode* next = nullptr;
  std::string key;
};

struct TestTraits {
  static uint64_t HashKey(std::string_view k) { return absl::Hash<std::string_view>{}(k); }
  static TestNode* Next(const TestNode* n) { return n->next; }
  static void SetNext(TestNode* n, TestNode* next) { n->next = next; }
  static uint64_t Hash(const TestNode* n) { return HashKey(n->key); }
};

// Only 64 distinct hashes: long chains sharing few buckets, where migration and scan
// cursor bugs hide.
struct CollidingTraits : TestTraits {
  static uint64_t HashKey(std::string_view k) { return TestTraits::HashKey(k) & 63; }
  static uint64_t Hash(const TestNode* n) { return HashKey(n->key); }
};

// Owns the nodes, mirrors the table in a std::unordered_map, and records the most nodes
// any single operation migrated.
template <typename Traits>
class Harness {
 public:
  using Table = IntrusiveTable<TestNode, Traits>;

  ~Harness() {
    table.Clear([](TestNode*) {});
  }

  bool Insert(const std::string& key) {
    if (live.contains(key)) return false;
    auto node = std::make_unique<TestNode>();
    node->key = key;
    Bounded([&] { table.Insert(node.get(), Traits::HashKey(key)); });
    keys.push_back(key);
    live[key] = {std::move(node), keys.size() - 1};
    return true;
  }

  TestNode* Find(std::string_view key) {
    TestNode* found = nullptr;
    Bounded([&] { found = table.Find(Traits::HashKey(key), Eq(key)); });
    return found;
  }

  // Detaches through the table and checks it handed back the mirror's node.
  bool Detach(const std::string& key) {
    TestNode* got = nullptr;
    Bounded([&] { got = table.Detach(Traits::HashKey(key), Eq(key)); });
    auto it = live.find(key);
    if (it == live.end()) {
      EXPECT_EQ(got, nullptr) << key;
      return false;
    }
    EXPECT_EQ(got, it->second.node.get()) << key;
    EXPECT_EQ(got->next, nullptr);
    const size_t idx = it->second.idx;
    live.erase(it);
    if (idx != keys.size() - 1) {
      keys[idx] = std::move(keys.back());
      live[keys[idx]].idx = idx;
    }
    keys.pop_back();
    return true;
  }

  void Replace(const std::string& key) {
    auto& slot = live.at(key).node;
    auto fresh = std::make_unique<TestNode>(*slot);
    Bounded([&] { table.Replace(slot.get(), fresh.get(), Traits::HashKey(key)); });
    slot = std::move(fresh);  // frees the old node only after Replace, as documented
  }

  const std::string& RandomLiveKey(std::mt19937_64& rng) const {
    return keys[std::uniform_int_distribution<size_t>(0, keys.size() - 1)(rng)];
  }

  void CheckContents() {
    table.Verify();
    ASSERT_EQ(table.size(), live.size());
    size_t visited = 0;
    table.ForEach([&](TestNode* n) {
      ++visited;
      auto it = live.find(n->key);
      ASSERT_TRUE(it != live.end()) << n->key;
      ASSERT_EQ(it->second.node.get(), n);
    });
    ASSERT_EQ(visited, live.size());
  }

  static auto Eq(std::string_view key) {
    return [key](const TestNode* n) { return n->key == key; };
  }

  Table table;
  struct Entry {
    std::unique_ptr<TestNode> node;
    size_t idx = 0;  // position in `keys`
  };
  std::unordered_map<std::string, Entry> live;
  std::vector<std::string> keys;  // live keys, for picking one at random in O(1)
  uint64_t max_moved_per_op = 0;

 private:
  template <typename F>
  void Bounded(F&& f) {
    const uint64_t before = table.NodesMigrated();
    f();
    max_moved_per_op = std::max(max_moved_per_op, table.NodesMigrated() - before);
  }
};

template <typename Traits>
void RunMirrorTest(int cycles, size_t high, size_t low, uint64_t seed) {
  using Table = typename Harness<Traits>::Table;
  Harness<Traits> h;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pct(0, 99);
  std::uniform_int_distribution<uint64_t> key_space(0, 4 * high);
  size_t grows = 0, shrinks = 0, ops = 0;
  for (int cycle = 0; cycle < 2 * cycles; ++cycle) {
    const bool growing = cycle % 2 == 0;
    const int insert_pct = growing ? 60 : 20;
    while (growing ? h.live.size() < high : h.live.size() > low) {
      const size_t buckets = h.table.BucketCount();
      const int r = pct(rng);
      const std::string key = absl::StrCat("k", key_space(rng));
      if (r < insert_pct) {
        if (!h.Insert(key)) {
          ASSERT_EQ(h.Find(key), h.live[key].node.get());
        }
      } else if (r < 80 && !h.keys.empty()) {
        ASSERT_TRUE(h.Detach(h.RandomLiveKey(rng)));
      } else if (r < 85) {
        h.Detach(absl::StrCat("absent", key));
      } else if (r < 92 && !h.keys.empty()) {
        const std::string& k = h.RandomLiveKey(rng);
        ASSERT_EQ(h.Find(k), h.live[k].node.get());
      } else if (r < 96) {
        ASSERT_EQ(h.Find(absl::StrCat("absent", key)), nullptr);
      } else if (!h.keys.empty()) {
        const std::string k = h.RandomLiveKey(rng);
        h.Replace(k);
        ASSERT_EQ(h.Find(k), h.live[k].node.get());
      }
      grows += h.table.BucketCount() > buckets;
      shrinks += h.table.BucketCount() < buckets;
      if (++ops % 100'000 == 0) h.table.Verify();
    }
    ASSERT_NO_FATAL_FAILURE(h.CheckContents());
  }
  EXPECT_LE(h.max_moved_per_op, Table::kRehashNodesPerOp);
  EXPECT_GE(grows, 8u);
  EXPECT_GE(shrinks, 4u);
}

TEST(IntrusiveTableTest, RandomOpsMirrorUnorderedMap) {
  // 120k keys: 17 doublings a cycle; 30k under a sanitizer: 15.
  RunMirrorTest<TestTraits>(/*cycles=*/4, /*high=*/SanitizerScaled<size_t>(120'000, 30'000),
                            /*low=*/50, /*seed=*/1);
}

TEST(IntrusiveTableTest, RandomOpsMirrorWithCollidingHashes) {
  // Chains of ~300 nodes a bucket; ~80 under a sanitizer.
  RunMirrorTest<CollidingTraits>(/*cycles=*/3, /*high=*/SanitizerScaled<size_t>(20'000, 5'000),
                                 /*low=*/5, /*seed=*/2);
}

TEST(IntrusiveTableTest, EmptyTable) {
  Harness<TestTraits> h;
  EXPECT_EQ(h.table.size(), 0u);
  EXPECT_EQ(h.table.BucketBytes(), 0u);  // lazy: nothing allocated until the first insert
  EXPECT_EQ(h.Find("x"), nullptr);
  EXPECT_FALSE(h.Detach("x"));
  EXPECT_EQ(h.table.Scan(0, [](TestNode*) { ADD_FAILURE(); }), 0u);
  absl::BitGen gen;
  EXPECT_EQ(h.table.Random(gen), nullptr);
  EXPECT_FALSE(h.table.RehashStep(100));
  h.table.Verify();
}

TEST(IntrusiveTableTest, MemoryPerKeyStaysWithinOneToTwoPointers) {
  Harness<TestTraits> h;
  const int keys = SanitizerScaled(200'000, 50'000);  // 15 doublings, 13 under a sanitizer
  for (int i = 0; i < keys; ++i) {
    h.Insert(absl::StrCat("key:", i));
    if (!h.table.Rehashing() && h.table.size() >= 8) {
      const double bytes_per_key = double(h.table.BucketBytes()) / h.table.size();
      ASSERT_GE(bytes_per_key, 8.0 - 1e-9);
      ASSERT_LE(bytes_per_key, 16.0);
    }
  }
}

// ---- Bounded work -------------------------------------------------------------------

TEST(IntrusiveTableTest, GrowIsSpreadOverManyOperations) {
  using Table = Harness<TestTraits>::Table;
  Harness<TestTraits> h;
  constexpr size_t kBig = size_t{1} << SanitizerScaled(17, 15);
  int i = 0;
  while (!(h.table.Rehashing() && h.table.BucketCount() == 2 * kBig)) {
    h.Insert(absl::StrCat("key:", i++));
  }
  ASSERT_EQ(h.table.size(), kBig);
  // One more operation moves exactly the bound and leaves the resize running.
  const uint64_t before = h.table.NodesMigrated();
  h.Find("key:0");
  EXPECT_EQ(h.table.NodesMigrated() - before, Table::kRehashNodesPerOp);
  EXPECT_TRUE(h.table.Rehashing());
  h.table.Verify();
  int ops = 1;
  while (h.table.Rehashing()) {
    ASSERT_NE(h.Find(absl::StrCat("key:", ops % kBig)), nullptr);
    ++ops;
  }
  EXPECT_GE(ops, int(kBig / Table::kRehashNodesPerOp));
  EXPECT_LE(h.max_moved_per_op, Table::kRehashNodesPerOp);
  h.CheckContents();
}

// A load that knows its count: the buckets are there from the first insert, nothing
// moves while the count goes in, and the table keeps them, however few it holds, until
// Unreserve lets the usual shrink start.
TEST(IntrusiveTableTest, ReserveSizesOnceAndHoldsUntilUnreserve) {
  Harness<TestTraits> h;
  const size_t n = size_t(SanitizerScaled(100'000, 20'000));
  h.table.Reserve(n);
  const size_t buckets = h.table.BucketCount();
  EXPECT_EQ(buckets, std::bit_ceil(n));
  h.Insert("first");
  EXPECT_FALSE(h.table.Rehashing());  // one node in a big table: no shrink yet
  for (size_t i = 1; i < n; ++i) h.Insert(absl::StrCat("key:", i));
  EXPECT_EQ(h.table.NodesMigrated(), 0u);
  EXPECT_EQ(h.table.BucketCount(), buckets);
  for (size_t i = 1; i < n; ++i) ASSERT_TRUE(h.Detach(absl::StrCat("key:", i)));
  EXPECT_FALSE(h.table.Rehashing());
  h.table.Verify();  // a reserved table may be nearly empty
  h.table.Unreserve();
  h.Insert("second");
  EXPECT_TRUE(h.table.Rehashing());  // the shrink the reserve held back
  while (h.table.Rehashing()) h.Find("first");
  EXPECT_LT(h.table.BucketCount(), buckets);
  // Only an empty table takes a reserve.
  h.table.Reserve(n);
  EXPECT_LT(h.table.BucketCount(), buckets);
  h.CheckContents();
}

TEST(IntrusiveTableTest, ShrinkIsSpreadOverManyOperations) {
  using Table = Harness<TestTraits>::Table;
  Harness<TestTraits> h;
  const int keys = SanitizerScaled(100'000, 25'000);
  for (int i = 0; i < keys; ++i) h.Insert(absl::StrCat("key:", i));
  while (h.table.RehashStep(1000)) {
  }
  const size_t big = h.table.BucketCount();
  int i = 0;
  while (!h.table.Rehashing()) ASSERT_TRUE(h.Detach(absl::StrCat("key:", i++)));
  EXPECT_LT(h.table.BucketCount(), big / 4);
  EXPECT_LT(h.table.size() * Table::kShrinkRatio, big);
  int ops = 0;
  while (h.table.Rehashing()) {
    h.Find(absl::StrCat("key:", keys - 1));
    ++ops;
  }
  // kRehashNodesPerOp nodes, or kEmptyVisitsPerNode times that in empty buckets, per step.
  EXPECT_GE(ops, int(big / (Table::kRehashNodesPerOp * Table::kEmptyVisitsPerNode)));
  EXPECT_LE(h.max_moved_per_op, Table::kRehashNodesPerOp);
  h.CheckContents();
}

// A shrink targets the size at its start; inserts while it drains can fill the new array.
// The grow that comes due then must start as soon as the shrink ends, even when a Find,
// not an insert, performs that last step.
TEST(IntrusiveTableTest, ResizeThatComesDueMidResizeStartsWhenItEnds) {
  Harness<TestTraits> h;
  // Verify() after every step of the shrink makes this quadratic in the size.
  const size_t big = SanitizerScaled<size_t>(65536, 8192);
  int i = 0;
  while (h.table.BucketCount() < big || h.table.Rehashing()) {
    h.Insert(absl::StrCat("key:", i++));
  }
  for (int j = 0; !h.table.Rehashing(); ++j) h.Detach(absl::StrCat("key:", j));
  ASSERT_EQ(h.table.BucketCount(), big / 8);
  while (h.table.size() < h.table.BucketCount()) h.Insert(absl::StrCat("key:", i++));
  ASSERT_TRUE(h.table.Rehashing());  // still shrinking, yet already at load 1
  while (h.table.BucketCount() == big / 8) {
    h.Find("key:1");
    h.table.Verify();
  }
  EXPECT_EQ(h.table.BucketCount(), big / 4);
  h.CheckContents();
}

TEST(IntrusiveTableTest, ManualRehashStepHonoursItsLimit) {
  Harness<TestTraits> h;
  for (int i = 0; i < 5000; ++i) h.Insert(absl::StrCat("key:", i));
  while (!h.table.Rehashing()) h.Insert(absl::StrCat("more:", h.table.size()));
  const uint64_t start = h.table.NodesMigrated();
  int steps = 0;
  for (bool more = true; more; ++steps) {
    const uint64_t before = h.table.NodesMigrated();
    more = h.table.RehashStep(7);
    ASSERT_LE(h.table.NodesMigrated() - before, 7u);
  }
  // The inserts' own steps moved some nodes; the manual steps moved the rest, 7 at a time.
  const uint64_t moved = h.table.NodesMigrated() - start;
  EXPECT_GT(moved, 1000u);
  EXPECT_GE(uint64_t(steps) * 7, moved);
  EXPECT_FALSE(h.table.Rehashing());
  h.CheckContents();
}

// ---- Scan ---------------------------------------------------------------------------

template <typename Traits>
void ExpectQuiescentScanSeesEachKeyOnce(Harness<Traits>& h) {
  std::unordered_map<std::string, int> seen;
  uint64_t cursor = 0;
  do {
    cursor = h.table.Scan(cursor, [&](TestNode* n) { ++seen[n->key]; });
  } while (cursor != 0);
  ASSERT_EQ(seen.size(), h.live.size());
  for (const auto& [key, count] : seen) {
    ASSERT_TRUE(h.live.contains(key)) << key;
    ASSERT_EQ(count, 1) << key;  // nothing moved, so not even a duplicate
  }
}

template <typename Traits>
void QuiescentScans() {
  Harness<Traits> h;
  for (int target : {1, 5, 100, 3000, 20000}) {
    while (int(h.live.size()) < target) h.Insert(absl::StrCat("key:", h.live.size()));
    ExpectQuiescentScanSeesEachKeyOnce(h);
  }
  // Mid-grow: two arrays, the old one partly drained.
  while (!h.table.Rehashing()) h.Insert(absl::StrCat("key:", h.live.size()));
  h.Find("key:1");
  ASSERT_TRUE(h.table.Rehashing());
  ExpectQuiescentScanSeesEachKeyOnce(h);
  // Mid-shrink: the larger array is the old one.
  while (h.table.Rehashing()) h.Find("key:1");
  for (int i = 0; !h.table.Rehashing(); ++i) h.Detach(absl::StrCat("key:", i));
  h.Find("key:1");
  ASSERT_TRUE(h.table.Rehashing());
  ExpectQuiescentScanSeesEachKeyOnce(h);
}

TEST(IntrusiveTableTest, QuiescentScanSeesEachKeyOnce) { QuiescentScans<TestTraits>(); }
TEST(IntrusiveTableTest, QuiescentScanCollidingHashes) { QuiescentScans<CollidingTraits>(); }

// Full scans with inserts and deletes between calls, in bursts big enough to grow and
// shrink the table several times within one scan. Every key live for the whole scan must
// be reported; every reported node must be live when reported. The "base:" keys are never
// deleted, so each scan has at least that many keys it must not miss.
template <typename Traits>
void ScansUnderChurn(uint64_t seed, size_t base, size_t burst, size_t high, int scans) {
  Harness<Traits> h;
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < base; ++i) h.Insert(absl::StrCat("base:", i));
  size_t next_key = 0, resized_mid_scan = 0, grew = 0, shrank = 0;
  bool growing = true;
  for (int s = 0; s < scans; ++s) {
    std::unordered_set<std::string> must_see;  // live at start and not deleted since
    for (const auto& [key, e] : h.live) must_see.insert(key);
    std::unordered_set<std::string> seen;
    uint64_t cursor = 0;
    size_t calls = 0, min_buckets = h.table.BucketCount(), max_buckets = min_buckets;
    do {
      cursor = h.table.Scan(cursor, [&](TestNode* n) {
        auto it = h.live.find(n->key);
        ASSERT_TRUE(it != h.live.end() && it->second.node.get() == n) << n->key;
        seen.insert(n->key);
      });
      // Churn between calls: bursts that push the size between ~0 and `high`.
      if (growing && h.live.size() >= high) growing = false;
      if (!growing && h.live.size() <= base + 50) growing = true;
      const size_t n = std::uniform_int_distribution<size_t>(0, burst)(rng);
      for (size_t i = 0; i < n; ++i) {
        const bool insert = std::uniform_int_distribution<int>(0, 99)(rng) < (growing ? 75 : 25);
        if (insert || h.keys.size() == base) {
          h.Insert(absl::StrCat("churn:", next_key++));
        } else {
          // Base keys never move from keys[0, base): removal only swaps churn keys.
          std::string victim =
              h.keys[std::uniform_int_distribution<size_t>(base, h.keys.size() - 1)(rng)];
          must_see.erase(victim);
          h.Detach(victim);
        }
      }
      min_buckets = std::min(min_buckets, h.table.BucketCount());
      max_buckets = std::max(max_buckets, h.table.BucketCount());
      ++calls;
    } while (cursor != 0);
    for (size_t i = 0; i < base; ++i) ASSERT_TRUE(must_see.contains(h.keys[i]));
    for (const std::string& key : must_see) ASSERT_TRUE(seen.contains(key)) << key << " scan " << s;
    grew += max_buckets >= 4 * min_buckets;
    shrank += min_buckets * 4 <= max_buckets && h.table.BucketCount() < max_buckets;
    resized_mid_scan += min_buckets != max_buckets;
  }
  h.CheckContents();
  EXPECT_GT(resized_mid_scan, size_t(scans) / 2);
  EXPECT_GT(grew, 0u);
  EXPECT_GT(shrank, 0u);
}

TEST(IntrusiveTableTest, ScanUnderChurnSeesEveryStableKey) {
  ScansUnderChurn<TestTraits>(/*seed=*/7, /*base=*/500, /*burst=*/100,
                              /*high=*/SanitizerScaled<size_t>(25'000, 10'000),
                              /*scans=*/5);
}

TEST(IntrusiveTableTest, ScanUnderSmallChurnSeesEveryStableKey) {
  ScansUnderChurn<TestTraits>(/*seed=*/8, /*base=*/100, /*burst=*/8,
                              /*high=*/SanitizerScaled<size_t>(5'000, 2'000),
                              /*scans=*/40);
}

TEST(IntrusiveTableTest, ScanUnderChurnCollidingHashes) {
  ScansUnderChurn<CollidingTraits>(/*seed=*/9, /*base=*/100, /*burst=*/40,
                                   /*high=*/SanitizerScaled<size_t>(4'000, 2'000),
                                   /*scans=*/20);
}

// ---- Random -------------------------------------------------------------------------

TEST(IntrusiveTableTest, RandomReturnsMembersAndCoversTheKeys) {
  Harness<TestTraits> h;
  absl::BitGen gen;
  for (int i = 0; i < 1000; ++i) h.Insert(absl::StrCat("key:", i));
  std::unordered_set<const TestNode*> hit;
  for (int i = 0; i < 100'000; ++i) {
    TestNode* n = h.table.Random(gen);
    ASSERT_NE(n, nullptr);
    ASSERT_EQ(h.live.at(n->key).node.get(), n);
    hit.insert(n);
  }
  EXPECT_GE(hit.size(), 990u);
}

TEST(IntrusiveTableTest, RandomWorksMidResizeAndWhenNearlyEmpty) {
  Harness<TestTraits> h;
  std::mt19937 gen(3);  // any URBG works, not just absl::BitGen
  for (int i = 0; i < 50'000; ++i) h.Insert(absl::StrCat("key:", i));
  for (int i = 0; i < 50'000; ++i) {
    h.Detach(absl::StrCat("key:", i));
    if (h.table.size() > 0 && (i % 97 == 0 || h.table.size() < 10)) {
      TestNode* n = h.table.Random(gen);
      ASSERT_NE(n, nullptr);
      ASSERT_EQ(h.live.at(n->key).node.get(), n);
    }
  }
  EXPECT_EQ(h.table.Random(gen), nullptr);
}

// ---- Clear, move, Verify ------------------------------------------------------------

TEST(IntrusiveTableTest, ClearHandsBackEveryNodeMidResize) {
  Harness<TestTraits> h;
  while (!(h.table.Rehashing() && h.table.size() > 1000)) {
    h.Insert(absl::StrCat("key:", h.live.size()));
  }
  h.Find("key:0");
  std::unordered_set<TestNode*> handed;
  h.table.Clear([&](TestNode* n) {
    EXPECT_EQ(n->next, nullptr);
    EXPECT_TRUE(handed.insert(n).second);
  });
  EXPECT_EQ(handed.size(), h.live.size());
  EXPECT_EQ(h.table.size(), 0u);
  EXPECT_EQ(h.table.BucketBytes(), 0u);
  EXPECT_FALSE(h.table.Rehashing());
  h.table.Verify();
  h.live.clear();
  h.keys.clear();
  for (int i = 0; i < 100; ++i) h.Insert(absl::StrCat("again:", i));
  h.CheckContents();
}

TEST(IntrusiveTableTest, MoveTransfersEverything) {
  Harness<TestTraits> h;
  for (int i = 0; i < 3000; ++i) h.Insert(absl::StrCat("key:", i));
  h.Find("key:0");
  Harness<TestTraits>::Table moved(std::move(h.table));
  EXPECT_EQ(h.table.size(), 0u);
  h.table.Verify();
  moved.Verify();
  EXPECT_EQ(moved.size(), 3000u);
  h.table = std::move(moved);
  h.CheckContents();
}

TEST(IntrusiveTableDeathTest, VerifyCatchesCorruption) {
  Harness<TestTraits> h;
  for (int i = 0; i < 100; ++i) h.Insert(absl::StrCat("key:", i));
  TestNode* n = h.live.at("key:5").node.get();
  const std::string key = n->key;
  // absl::Hash is seeded per process: pick a new name whose hash lands in another bucket,
  // or the corruption would be invisible (1 run in ~128).
  while (h.table.RehashStep(1024)) {
  }
  ASSERT_FALSE(h.table.Rehashing());
  const uint64_t mask = h.table.BucketCount() - 1;
  n->key = "renamed without rehash";
  for (int i = 0; (TestTraits::HashKey(n->key) & mask) == (TestTraits::HashKey(key) & mask); ++i) {
    n->key = absl::StrCat("renamed without rehash ", i);
  }
  EXPECT_DEATH(h.table.Verify(), "hash does not map");
  n->key = key;
  TestNode* saved = n->next;
  n->next = n;
  EXPECT_DEATH(h.table.Verify(), "more linked nodes than size");
  n->next = saved;
  h.table.Verify();
}

TEST(IntrusiveTableDeathTest, ReplaceOfAbsentNodeAborts) {
  Harness<TestTraits> h;
  h.Insert("present");
  TestNode stranger{nullptr, "present"};
  TestNode fresh{nullptr, "present"};
  EXPECT_DEATH(h.table.Replace(&stranger, &fresh, TestTraits::HashKey("present")),
               "old node is not in the table");
}

}  // namespace
}  // namespace rc
