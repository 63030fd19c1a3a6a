#include "core/zset.h"

#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/sanitizer_scale.h"

namespace rc {
namespace {

using test::SanitizerScaled;

constexpr double kInf = std::numeric_limits<double>::infinity();

// Mirrors a ZSet in std containers. std::pair<double, std::string> orders exactly as
// Redis does: double < (so -0.0 ties with 0.0), then std::string compare (unsigned bytes,
// a prefix first).
class Mirror {
 public:
  ZSet::AddResult Add(const std::string& m, double s) {
    auto it = scores_.find(m);
    if (it == scores_.end()) {
      scores_[m] = s;
      order_.insert({s, m});
      return ZSet::AddResult::kAdded;
    }
    if (it->second == s) return ZSet::AddResult::kUnchanged;
    order_.erase({it->second, m});
    it->second = s;
    order_.insert({s, m});
    return ZSet::AddResult::kUpdated;
  }
  bool Remove(const std::string& m) {
    auto it = scores_.find(m);
    if (it == scores_.end()) return false;
    order_.erase({it->second, m});
    scores_.erase(it);
    return true;
  }
  std::optional<size_t> Rank(const std::string& m) const {
    auto it = scores_.find(m);
    if (it == scores_.end()) return std::nullopt;
    return size_t(std::distance(order_.begin(), order_.find({it->second, m})));
  }
  template <typename Pred>
  size_t CountWhile(Pred pred) const {
    size_t n = 0;
    for (const auto& e : order_) {
      if (!pred(e)) break;
      ++n;
    }
    return n;
  }
  const std::map<std::string, double>& scores() const { return scores_; }
  const std::set<std::pair<double, std::string>>& order() const { return order_; }

 private:
  std::map<std::string, double> scores_;
  std::set<std::pair<double, std::string>> order_;
};

// Walks the whole set forwards from rank 0 and backwards from the last rank.
void ExpectSameOrder(const ZSet& z, const Mirror& m) {
  ASSERT_EQ(z.size(), m.order().size());
  if (m.order().empty()) {
    EXPECT_FALSE(z.AtRank(0).Valid());
    return;
  }
  auto it = z.AtRank(0);
  for (const auto& [score, member] : m.order()) {
    ASSERT_TRUE(it.Valid());
    ASSERT_EQ(it.member(), member);
    ASSERT_EQ(it.score(), score);
    it.Next();
  }
  EXPECT_FALSE(it.Valid());
  it = z.AtRank(z.size() - 1);
  for (auto r = m.order().rbegin(); r != m.order().rend(); ++r) {
    ASSERT_TRUE(it.Valid());
    ASSERT_EQ(it.member(), r->second);
    it.Prev();
  }
  EXPECT_FALSE(it.Valid());
}

// `wide`: one member in seven is over 64 bytes (so the set cannot stay compact) and over
// 255 (a node's wide length header); else they are 40-58 bytes.
std::string RandomMember(absl::BitGen& rng, size_t pool, bool wide = true) {
  const size_t i = absl::Uniform<size_t>(rng, 0, pool);
  switch (i % 7) {
    case 0:
      return "";  // the empty member, and binary ones, sort by raw bytes
    case 1:
      return std::string("\xff\x00", 2) + std::to_string(i);
    case 2:
      if (!wide) return std::string(40 + i % 15, 'L') + std::to_string(i);
      return std::string(300 + i % 5, 'L') + std::to_string(i);  // wide length header
    default:
      return absl::StrFormat("m%d", i);
  }
}

double RandomScore(absl::BitGen& rng) {
  static const double kScores[] = {-kInf, -1.5, -0.0, 0.0, 1, 2, 2.5, 1e300, kInf};
  if (absl::Bernoulli(rng, 0.7)) return kScores[absl::Uniform<size_t>(rng, 0, 9)];
  return absl::Uniform<int>(rng, -50, 50);
}

ScoreBound RandomScoreBound(absl::BitGen& rng) {
  return {RandomScore(rng), absl::Bernoulli(rng, 0.5)};
}

void CheckQueries(absl::BitGen& rng, const ZSet& z, const Mirror& m, size_t pool,
                  bool wide = true) {
  for (int q = 0; q < 20; ++q) {
    const std::string member = RandomMember(rng, pool, wide);
    auto it = m.scores().find(member);
    const std::optional<double> score = z.Score(member);
    ASSERT_EQ(score.has_value(), it != m.scores().end()) << member;
    if (score) {
      ASSERT_EQ(*score, it->second);
    }
    ASSERT_EQ(z.Rank(member), m.Rank(member)) << member;

    const ScoreBound lo = RandomScoreBound(rng), hi = RandomScoreBound(rng);
    const size_t want_lo = m.CountWhile(
        [&](const auto& e) { return lo.exclusive ? e.first <= lo.value : e.first < lo.value; });
    const size_t want_hi = m.CountWhile(
        [&](const auto& e) { return hi.exclusive ? e.first < hi.value : e.first <= hi.value; });
    ASSERT_EQ(z.ScoreRank(lo), want_lo);
    ASSERT_EQ(z.ScoreRankEnd(hi), want_hi);
  }
  if (z.size() == 0) return;
  // Access by rank, then a short walk each way.
  const size_t rank = absl::Uniform<size_t>(rng, 0, z.size());
  auto ref = std::next(m.order().begin(), ptrdiff_t(rank));
  auto it = z.AtRank(rank);
  for (auto r = ref; r != m.order().end() && std::distance(ref, r) < 80; ++r, it.Next()) {
    ASSERT_TRUE(it.Valid());
    ASSERT_EQ(it.member(), r->second);
  }
  it = z.AtRank(rank);
  for (auto r = std::make_reverse_iterator(std::next(ref)); r != m.order().rend(); ++r) {
    ASSERT_TRUE(it.Valid());
    ASSERT_EQ(it.member(), r->second);
    it.Prev();
    if (std::distance(std::make_reverse_iterator(std::next(ref)), r) > 80) break;
  }
}

// Random adds, score moves and removes over a member pool much smaller than the op count,
// so the set grows, churns and shrinks through leaf splits, shifts, merges and borrows.
// Pools of at most 128 short members stay compact throughout; 500 short ones convert at
// the 129th member; wide members convert at the first one over 64 bytes.
TEST(ZSet, RandomOpsMatchReference) {
  // A quarter under a sanitizer: thousands of operations a phase still split, merge and
  // drain the trees of the biggest pool.
  const int kOps = SanitizerScaled(60000, 15000);
  absl::BitGen rng;
  struct Case {
    size_t pool;
    bool wide;
  };
  for (Case c : {Case{20, false}, Case{128, false}, Case{500, false}, Case{20, true},
                 Case{500, true}, Case{5000, true}}) {
    SCOPED_TRACE(absl::StrFormat("pool %d wide %d", c.pool, c.wide));
    ZSet z;
    Mirror m;
    bool was_big = false;
    for (int op = 0; op < kOps; ++op) {
      const std::string member = RandomMember(rng, c.pool, c.wide);
      // Phases: grow, churn, then drain, so deletion-heavy paths run on big trees too.
      const double p_remove = op < kOps / 3 ? 0.2 : op < 2 * kOps / 3 ? 0.5 : 0.8;
      if (absl::Bernoulli(rng, p_remove)) {
        ASSERT_EQ(z.Remove(member), m.Remove(member));
      } else {
        const double score = RandomScore(rng);
        ASSERT_EQ(z.Add(member, score), m.Add(member, score)) << member << " " << score;
      }
      // Big for good once converted; compact while nothing ever broke a limit.
      ASSERT_FALSE(was_big && z.compact());
      was_big = !z.compact();
      if (op % 97 == 0) {
        z.Verify();
        CheckQueries(rng, z, m, c.pool, c.wide);
      }
    }
    z.Verify();
    ExpectSameOrder(z, m);
    EXPECT_EQ(z.compact(), !c.wide && c.pool <= 128);
  }
}

// With equal scores lex ranks are plain member ranks (ZRANGEBYLEX's precondition).
TEST(ZSet, LexRanksWithEqualScores) {
  absl::BitGen rng;
  for (size_t pool : {100u, 4000u}) {  // compact, then big
    ZSet z;
    Mirror m;
    for (int i = 0; i < 3000; ++i) {
      const std::string member = RandomMember(rng, pool, pool > 128);
      z.Add(member, 7);
      m.Add(member, 7);
    }
    EXPECT_EQ(z.compact(), pool <= 128);
    z.Verify();
    for (int q = 0; q < 2000; ++q) {
      const std::string v = RandomMember(rng, pool, pool > 128);
      const auto kind = LexBound::Kind(absl::Uniform<int>(rng, 0, 4));
      const LexBound b{kind, v};
      size_t want_lo, want_hi;
      switch (kind) {
        case LexBound::Kind::kMin:
          want_lo = want_hi = 0;
          break;
        case LexBound::Kind::kMax:
          want_lo = want_hi = m.order().size();
          break;
        case LexBound::Kind::kInclusive:
          want_lo = m.CountWhile([&](const auto& e) { return e.second < v; });
          want_hi = m.CountWhile([&](const auto& e) { return e.second <= v; });
          break;
        case LexBound::Kind::kExclusive:
          want_lo = m.CountWhile([&](const auto& e) { return e.second <= v; });
          want_hi = m.CountWhile([&](const auto& e) { return e.second < v; });
          break;
      }
      ASSERT_EQ(z.LexRank(b), want_lo);
      ASSERT_EQ(z.LexRankEnd(b), want_hi);
    }
  }
}

// Ascending and descending loads take the end-split path; then remove everything.
TEST(ZSet, SequentialLoadsThenDrain) {
  for (bool ascending : {true, false}) {
    ZSet z;
    Mirror m;
    constexpr int kN = SanitizerScaled(50000, 10000);
    for (int i = 0; i < kN; ++i) {
      const int k = ascending ? i : kN - i;
      const std::string member = absl::StrFormat("member:%08d", k);
      z.Add(member, i % 3 == 0 ? 1.0 : double(k));
      m.Add(member, i % 3 == 0 ? 1.0 : double(k));
    }
    z.Verify();
    ExpectSameOrder(z, m);
    absl::BitGen rng;
    std::vector<std::string> members;
    for (const auto& [member, score] : m.scores()) members.push_back(member);
    std::shuffle(members.begin(), members.end(), rng);
    for (size_t i = 0; i < members.size(); ++i) {
      ASSERT_TRUE(z.Remove(members[i]));
      m.Remove(members[i]);
      if (i % 4999 == 0) {
        z.Verify();
        CheckQueries(rng, z, m, kN);
      }
    }
    EXPECT_EQ(z.size(), 0u);
    z.Verify();
    EXPECT_FALSE(z.AtRank(0).Valid());
  }
}

// Moving members between scores in place and through erase + insert.
TEST(ZSet, ScoreUpdatesKeepOrder) {
  absl::BitGen rng;
  ZSet z;
  Mirror m;
  for (int i = 0; i < 5000; ++i) {
    const std::string member = absl::StrFormat("u%d", i);
    z.Add(member, i);
    m.Add(member, i);
  }
  for (int op = 0; op < 30000; ++op) {
    const std::string member = absl::StrFormat("u%d", absl::Uniform(rng, 0, 5000));
    // Small nudges mostly stay in place; big jumps move across leaves.
    const double old = *z.Score(member);
    const double score = absl::Bernoulli(rng, 0.7) ? old + absl::Uniform(rng, -0.9, 0.9)
                                                   : absl::Uniform(rng, -1e4, 1e4);
    ASSERT_EQ(z.Add(member, score), m.Add(member, score));
    if (op % 1000 == 0) z.Verify();
  }
  z.Verify();
  ExpectSameOrder(z, m);
}

TEST(ZSet, EmptySet) {
  ZSet z;
  EXPECT_EQ(z.size(), 0u);
  EXPECT_FALSE(z.Score("a"));
  EXPECT_FALSE(z.Rank("a"));
  EXPECT_FALSE(z.Remove("a"));
  EXPECT_FALSE(z.AtRank(0).Valid());
  EXPECT_EQ(z.ScoreRank({-kInf, false}), 0u);
  EXPECT_EQ(z.ScoreRankEnd({kInf, false}), 0u);
  EXPECT_EQ(z.LexRankEnd({LexBound::Kind::kMax, {}}), 0u);
  int calls = 0;
  EXPECT_EQ(z.Scan(0, 10, [&](std::string_view, double) { ++calls; }), 0u);
  EXPECT_EQ(calls, 0);
  z.Verify();
}

TEST(ZSet, NegativeZeroEqualsZero) {
  ZSet z;
  EXPECT_EQ(z.Add("b", 0.0), ZSet::AddResult::kAdded);
  EXPECT_EQ(z.Add("b", -0.0), ZSet::AddResult::kUnchanged);
  EXPECT_EQ(z.Add("a", -0.0), ZSet::AddResult::kAdded);
  EXPECT_EQ(z.Add("c", -0.0), ZSet::AddResult::kAdded);
  // Equal scores: member bytes decide, whatever the sign of zero.
  EXPECT_EQ(z.Rank("a"), 0u);
  EXPECT_EQ(z.Rank("b"), 1u);
  EXPECT_EQ(z.Rank("c"), 2u);
  EXPECT_EQ(z.ScoreRank({0.0, false}), 0u);
  EXPECT_EQ(z.ScoreRankEnd({-0.0, false}), 3u);
  EXPECT_EQ(z.ScoreRank({-0.0, true}), 3u);
  z.Verify();
}

TEST(ZSet, InfinitiesAndByteOrder) {
  ZSet z;
  z.Add("z", -kInf);
  z.Add("a", kInf);
  z.Add("ab", 1);
  z.Add("a", 1);  // moves from +inf
  z.Add(std::string_view("a\0", 2), 1);
  z.Add("\xff", 1);
  const char* want[] = {"z", "a", nullptr, "ab", "\xff"};
  auto it = z.AtRank(0);
  for (const char* w : want) {
    ASSERT_TRUE(it.Valid());
    if (w) {
      EXPECT_EQ(it.member(), w);
    } else {
      EXPECT_EQ(it.member(), std::string_view("a\0", 2));
    }
    it.Next();
  }
  EXPECT_FALSE(it.Valid());
  EXPECT_EQ(z.ScoreRankEnd({-kInf, false}), 1u);
  EXPECT_EQ(z.ScoreRank({kInf, true}), 5u);
  EXPECT_EQ(z.ScoreRankEnd({kInf, true}), 5u);
  z.Verify();
}

TEST(ZSet, LongMemberRoundTrips) {
  ZSet z;
  const std::string big(100000, 'x');
  z.Add(big, 3);
  EXPECT_EQ(z.Score(big), 3.0);
  EXPECT_EQ(z.AtRank(0).member(), big);
  EXPECT_TRUE(z.Remove(big));
}

// Members present for the whole scan are returned even as others come and go and the
// index grows and shrinks between calls.
TEST(ZSet, ScanCoversStableMembersUnderMutation) {
  absl::BitGen rng;
  for (int round = 0; round < 20; ++round) {
    ZSet z;
    std::set<std::string> stable;
    for (int i = 0; i < 300; ++i) {
      stable.insert(absl::StrFormat("s%d", i));
      z.Add(absl::StrFormat("s%d", i), i % 4);
    }
    std::vector<std::string> churn;
    std::set<std::string> seen;
    uint64_t cursor = 0;
    int calls = 0;
    do {
      cursor = z.Scan(cursor, 10, [&](std::string_view m, double) { seen.emplace(m); });
      // Between calls: a burst of adds (grow) or removes (shrink).
      if (absl::Bernoulli(rng, 0.5)) {
        for (int k = 0; k < 200; ++k) {
          churn.push_back(absl::StrFormat("c%d_%d", round, absl::Uniform(rng, 0, 1 << 20)));
          z.Add(churn.back(), absl::Uniform(rng, 0, 10));
        }
      } else {
        for (int k = 0; k < 300 && !churn.empty(); ++k) {
          z.Remove(churn.back());
          churn.pop_back();
        }
      }
      ASSERT_LT(++calls, 100000);
    } while (cursor != 0);
    for (const auto& s : stable) ASSERT_TRUE(seen.count(s)) << s;
    z.Verify();
  }
}

// MemoryBytes tracks the allocator, grows with members and returns when they leave.
TEST(ZSet, MemoryBytesMatchesAllocator) {
  const size_t before = mallinfo2().uordblks + mallinfo2().hblkhd;
  auto z = std::make_unique<ZSet>();
  const size_t empty = z->MemoryBytes();
  for (int i = 0; i < 100000; ++i) z->Add(absl::StrFormat("member:%08d", i), i);
  const size_t held = mallinfo2().uordblks + mallinfo2().hblkhd - before;
  const size_t counted = z->MemoryBytes();
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  // The ZSet object itself and mmap page rounding are the only differences. (Sanitizer
  // allocators bypass mallinfo2.)
  EXPECT_NEAR(double(counted), double(held), 0.02 * double(held));
  EXPECT_LT(counted / 100000, 87u);
#else
  (void)held;
  (void)counted;
#endif
  for (int i = 0; i < 100000; ++i) z->Remove(absl::StrFormat("member:%08d", i));
  z->Verify();
  // Drained, it stays big (as Redis's skiplist does): the index + tree block (a 96 B
  // chunk) and the index's smallest bucket array are left.
  EXPECT_EQ(empty, 0u);
  EXPECT_FALSE(z->compact());
  EXPECT_LE(z->MemoryBytes(), 96u + 64u);
}

// Small sets live in one root leaf whose capacity steps 4 -> 8 -> 16 -> 32 -> 60 before
// the first split, and steps back down as members leave. Grow past every step and drain
// back through them in several orders, with score moves (erase + reinsert) at each size.
TEST(ZSet, SmallSetsCrossEveryCapacityStep) {
  absl::BitGen rng;
  for (int order = 0; order < 4; ++order) {
    ZSet z;
    Mirror m;
    std::vector<std::string> members;
    for (int i = 0; i < 130; ++i) members.push_back(absl::StrFormat("member:%08d", i));
    auto score_of = [&](int i) {
      switch (order) {
        case 0: return double(i);                        // appends
        case 1: return double(-i);                       // prepends
        case 2: return 0.0;                              // lex order = insertion order
        default: return double(absl::Uniform<int>(rng, -20, 20));
      }
    };
    auto check = [&] {
      z.Verify();
      ExpectSameOrder(z, m);
      CheckQueries(rng, z, m, 130);
    };
    for (int i = 0; i < 130; ++i) {
      const double si = score_of(i);
      ASSERT_EQ(z.Add(members[i], si), m.Add(members[i], si));
      // Move a random member (may erase and reinsert into a full small leaf).
      const std::string& mv = members[absl::Uniform<int>(rng, 0, i + 1)];
      const double s = double(absl::Uniform<int>(rng, -200, 200));
      ASSERT_EQ(z.Add(mv, s), m.Add(mv, s));
      ASSERT_NO_FATAL_FAILURE(check());
    }
    // Drain: from the front, the back or at random, with moves in between.
    std::vector<std::string> left(members);
    while (!left.empty()) {
      size_t k = order == 0 ? 0 : order == 1 ? left.size() - 1
                                             : absl::Uniform<size_t>(rng, 0, left.size());
      if (order == 0 || order == 1) {  // remove by rank position instead of name order
        const size_t rank = order == 0 ? 0 : z.size() - 1;
        const std::string name(z.AtRank(rank).member());
        k = size_t(std::find(left.begin(), left.end(), name) - left.begin());
      }
      ASSERT_TRUE(z.Remove(left[k]));
      ASSERT_TRUE(m.Remove(left[k]));
      left.erase(left.begin() + ptrdiff_t(k));
      if (!left.empty()) {
        const std::string& mv = left[absl::Uniform<size_t>(rng, 0, left.size())];
        const double s = double(absl::Uniform<int>(rng, -200, 200));
        ASSERT_EQ(z.Add(mv, s), m.Add(mv, s));
      }
      ASSERT_NO_FATAL_FAILURE(check());
    }
  }
}

// Add/remove oscillating across each capacity boundary: hysteresis keeps it correct.
TEST(ZSet, SmallSetOscillatesAtCapacityBoundaries) {
  ZSet z;
  Mirror m;
  int next = 0;
  std::vector<std::string> live;
  for (size_t target : {4u, 8u, 16u, 32u, 60u, 61u, 32u, 16u, 8u, 4u, 1u}) {
    while (live.size() < target) {
      live.push_back(absl::StrFormat("m%05d", next++));
      ASSERT_EQ(z.Add(live.back(), double(next % 7)), m.Add(live.back(), double(next % 7)));
    }
    while (live.size() > target) {
      ASSERT_TRUE(z.Remove(live.back()));
      ASSERT_TRUE(m.Remove(live.back()));
      live.pop_back();
    }
    for (int round = 0; round < 6; ++round) {
      live.push_back(absl::StrFormat("m%05d", next++));
      ASSERT_EQ(z.Add(live.back(), 3.0), m.Add(live.back(), 3.0));
      z.Verify();
      ASSERT_TRUE(z.Remove(live.front()));
      ASSERT_TRUE(m.Remove(live.front()));
      live.erase(live.begin());
      z.Verify();
      ASSERT_NO_FATAL_FAILURE(ExpectSameOrder(z, m));
    }
  }
}

// A small set's tree costs a leaf sized to it, an empty set nothing beyond the object,
// and a big set drained to a few members gives its 512-byte leaf back.
TEST(ZSet, SmallSetMemory) {
  ZSet z;
  EXPECT_EQ(z.MemoryBytes(), 0u);  // no block at all
  z.Add("member:00000001", 1);
  // One compact block: 8 B header + 8 score + 2 lengths + 15 bytes = 33 B, a 48 B chunk.
  EXPECT_TRUE(z.compact());
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  EXPECT_EQ(z.MemoryBytes(), 48u);
#else
  EXPECT_EQ(z.MemoryBytes(), 33u + 8u);  // sanitizer allocators report the size asked for
#endif
  ZSet big;
  for (int i = 0; i < 1000; ++i) big.Add(absl::StrFormat("member:%08d", i), i);
  for (int i = 3; i < 1000; ++i) ASSERT_TRUE(big.Remove(absl::StrFormat("member:%08d", i)));
  big.Verify();
  // 3 members: a leaf of 8 slots (96 B), not 512 B, plus nodes, the bucket array the
  // index has shrunk to (16 buckets at most: it shrinks once size * 8 < buckets) and the
  // 96 B block holding index and tree.
  EXPECT_FALSE(big.compact());
  EXPECT_LE(big.MemoryBytes(), 3u * 48u + 96u + 16u * 8u + 16u + 96u);
  ASSERT_TRUE(big.Remove("member:00000000"));
  ASSERT_TRUE(big.Remove("member:00000001"));
  ASSERT_TRUE(big.Remove("member:00000002"));
  big.Verify();
  EXPECT_EQ(big.size(), 0u);
}

// ---- The compact encoding ---------------------------------------------------------------

std::string Name(int i) { return absl::StrFormat("member:%08d", i); }

// 128 members stay compact, updates included; the 129th converts, and the set stays big
// when it shrinks again (Redis never turns a skiplist back into a listpack).
TEST(ZSet, ConvertsAtThe129thMember) {
  ZSet z;
  Mirror m;
  for (int i = 0; i < 128; ++i) {
    ASSERT_EQ(z.Add(Name(i), i % 10), m.Add(Name(i), i % 10));
    ASSERT_TRUE(z.compact()) << i;
  }
  EXPECT_EQ(z.Add(Name(5), -3), ZSet::AddResult::kUpdated);
  m.Add(Name(5), -3);
  EXPECT_EQ(z.Add(Name(6), 6 % 10), ZSet::AddResult::kUnchanged);
  EXPECT_FALSE(z.Remove("absent"));
  EXPECT_TRUE(z.compact());
  z.Verify();
  ExpectSameOrder(z, m);
  ASSERT_EQ(z.Add(Name(128), 4.5), ZSet::AddResult::kAdded);
  m.Add(Name(128), 4.5);
  EXPECT_FALSE(z.compact());
  z.Verify();
  ExpectSameOrder(z, m);
  EXPECT_EQ(z.Score(Name(5)), -3.0);
  for (int i = 1; i <= 128; ++i) {
    ASSERT_TRUE(z.Remove(Name(i)));
    m.Remove(Name(i));
  }
  EXPECT_FALSE(z.compact());
  z.Verify();
  ExpectSameOrder(z, m);
}

// A 64-byte member fits; the first member of 65 bytes converts; updating a member never
// converts.
TEST(ZSet, ConvertsAtA65ByteMember) {
  ZSet z;
  const std::string m64(64, 'a'), m65(65, 'b');
  z.Add(m64, 1);
  z.Add("x", 2);
  EXPECT_TRUE(z.compact());
  EXPECT_EQ(z.Add(m64, 3), ZSet::AddResult::kUpdated);
  EXPECT_TRUE(z.compact());
  EXPECT_FALSE(z.Score(m65));
  EXPECT_FALSE(z.Remove(m65));
  EXPECT_TRUE(z.compact());
  EXPECT_EQ(z.Add(m65, 0), ZSet::AddResult::kAdded);
  EXPECT_FALSE(z.compact());
  z.Verify();
  EXPECT_EQ(z.Rank(m65), 0u);
  EXPECT_EQ(z.Rank("x"), 1u);
  EXPECT_EQ(z.Rank(m64), 2u);
  EXPECT_EQ(z.Score(m64), 3.0);
  // A new set whose first member is too long is big from the start.
  ZSet w;
  w.Add(m65, 1);
  EXPECT_FALSE(w.compact());
  w.Verify();
}

// Other limits (zset-max-listpack-*): a 300-member set of 200-byte members stays compact
// under limits that allow it, and the block holds no member over 255 bytes whatever the
// limit says.
TEST(ZSet, ConvertsByTheLimitsGiven) {
  const ZSet::Limits wide{301, 1000};
  ZSet z;
  Mirror m;
  for (int i = 0; i < 300; ++i) {
    const std::string member = Name(i) + std::string(200, 'x');
    ASSERT_EQ(z.Add(member, i % 7, wide), m.Add(member, i % 7));
  }
  EXPECT_TRUE(z.compact());
  z.Verify();
  ExpectSameOrder(z, m);
  EXPECT_EQ(z.Add(std::string(255, 'y'), 1, wide), ZSet::AddResult::kAdded);
  EXPECT_TRUE(z.compact());
  ZSet full;
  for (int i = 0; i < 301; ++i) full.Add(Name(i), i, wide);
  EXPECT_EQ(full.Add("one more", 1, wide), ZSet::AddResult::kAdded);
  EXPECT_FALSE(full.compact());
  ZSet w;
  w.Add("a", 1, wide);
  EXPECT_EQ(w.Add(std::string(256, 'z'), 2, wide), ZSet::AddResult::kAdded);
  EXPECT_FALSE(w.compact());
  w.Verify();
  ZSet none;
  none.Add("a", 1, ZSet::Limits{0, 64});
  EXPECT_FALSE(none.compact());
}

// Walks a compact set from both ends and back and forth from the middle.
TEST(ZSet, CompactIteratorBothWays) {
  ZSet z;
  Mirror m;
  // Mixed lengths (the empty member too) so the backward step reads each trailing length.
  for (int i = 0; i < 100; ++i) {
    const std::string member =
        std::string(size_t(i % 65), char('a' + i % 26)) + (i % 65 < 60 ? std::to_string(i) : "");
    z.Add(member, i % 7 - 3);
    m.Add(member, i % 7 - 3);
  }
  ASSERT_TRUE(z.compact());
  z.Verify();
  ExpectSameOrder(z, m);
  std::vector<std::pair<double, std::string>> want(m.order().begin(), m.order().end());
  for (size_t rank : {size_t(0), size_t(1), want.size() / 2, want.size() - 1}) {
    auto it = z.AtRank(rank);
    ASSERT_TRUE(it.Valid());
    EXPECT_EQ(it.member(), want[rank].second);
    EXPECT_EQ(it.score(), want[rank].first);
    if (rank + 1 < want.size()) {
      it.Next();
      EXPECT_EQ(it.member(), want[rank + 1].second);
      it.Prev();
    }
    if (rank > 0) {
      it.Prev();
      EXPECT_EQ(it.member(), want[rank - 1].second);
      it.Next();
    }
    EXPECT_EQ(it.member(), want[rank].second);
  }
  auto first = z.AtRank(0);
  first.Prev();
  EXPECT_FALSE(first.Valid());
  auto last = z.AtRank(want.size() - 1);
  last.Next();
  EXPECT_FALSE(last.Valid());
  EXPECT_FALSE(z.AtRank(want.size()).Valid());
}

TEST(ZSet, CompactRanks) {
  ZSet z;
  // Order: (-inf z) (1 a) (1 ab) (2 b) (2 c) (inf d)
  z.Add("c", 2);
  z.Add("a", 1);
  z.Add("d", kInf);
  z.Add("b", 2);
  z.Add("z", -kInf);
  z.Add("ab", 1);
  ASSERT_TRUE(z.compact());
  z.Verify();
  EXPECT_EQ(z.Rank("z"), 0u);
  EXPECT_EQ(z.Rank("ab"), 2u);
  EXPECT_EQ(z.Rank("d"), 5u);
  EXPECT_FALSE(z.Rank("e"));
  EXPECT_EQ(z.ScoreRank({1, false}), 1u);
  EXPECT_EQ(z.ScoreRank({1, true}), 3u);
  EXPECT_EQ(z.ScoreRankEnd({2, false}), 5u);
  EXPECT_EQ(z.ScoreRankEnd({2, true}), 3u);
  EXPECT_EQ(z.ScoreRank({-kInf, false}), 0u);
  EXPECT_EQ(z.ScoreRankEnd({kInf, false}), 6u);
  ZSet lex;
  for (const char* m : {"a", "b", "bb", "c", "d"}) lex.Add(m, 0);
  EXPECT_EQ(lex.LexRank({LexBound::Kind::kInclusive, "b"}), 1u);
  EXPECT_EQ(lex.LexRank({LexBound::Kind::kExclusive, "b"}), 2u);
  EXPECT_EQ(lex.LexRankEnd({LexBound::Kind::kInclusive, "c"}), 4u);
  EXPECT_EQ(lex.LexRankEnd({LexBound::Kind::kExclusive, "c"}), 3u);
  EXPECT_EQ(lex.LexRank({LexBound::Kind::kMin, {}}), 0u);
  EXPECT_EQ(lex.LexRankEnd({LexBound::Kind::kMax, {}}), 5u);
}

// Redis returns a listpack whole in one ZSCAN call with cursor 0: so does Scan here,
// in order, whatever cursor and count it is given.
TEST(ZSet, CompactScanReturnsEverythingInOneCall) {
  ZSet z;
  for (int i = 0; i < 128; ++i) z.Add(Name(i), 127 - i);
  ASSERT_TRUE(z.compact());
  for (uint64_t cursor : {uint64_t(0), uint64_t(12345)}) {
    std::vector<std::pair<std::string, double>> got;
    EXPECT_EQ(z.Scan(cursor, 1, [&](std::string_view m, double s) { got.emplace_back(m, s); }), 0u);
    ASSERT_EQ(got.size(), 128u);
    for (int i = 0; i < 128; ++i) {
      EXPECT_EQ(got[size_t(i)].first, Name(127 - i));
      EXPECT_EQ(got[size_t(i)].second, double(i));
    }
  }
}

// A compact set is its one block: 8 B header + (10 + member length) per member, in the
// smallest glibc chunk that holds it (usable 24 + 16k, chunk = usable + 8), and
// MemoryBytes says exactly what the allocator holds.
TEST(ZSet, CompactMemoryBytesExact) {
  auto chunk = [](size_t used) {
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    return used <= 24 ? size_t(32) : (used + 8 + 15) / 16 * 16;
#else
    return used + 8;  // sanitizer allocators report the size asked for
#endif
  };
  // mallinfo2 counts chunks parked in glibc's tcache as in use, and how many a run of
  // reallocs leaves there depends on the heap's layout (the test binary's path moves it).
  // Freeing the sets is exact up to the chunks the tcache keeps: <= 7 per size.
  auto in_use = [] { return mallinfo2().uordblks + mallinfo2().hblkhd; };
  std::vector<std::unique_ptr<ZSet>> sets;
  // Many sets, so that the allocator's total outweighs the tcache's slack; that total is
  // compared only without a sanitizer, and each set's own bytes are checked either way.
  constexpr int kSets = SanitizerScaled(2000, 100);
  for (int n : {1, 2, 5, 10, 50, 128}) {
    size_t counted = 0;
    const size_t want = chunk(8 + size_t(n) * 25);
    for (int s = 0; s < kSets; ++s) {
      auto z = std::make_unique<ZSet>();
      for (int i = 0; i < n; ++i) z->Add(Name(i), i);
      ASSERT_TRUE(z->compact());
      // realloc growing into a free neighbour keeps a tail under 32 B: up to 16 B more.
      ASSERT_TRUE(z->MemoryBytes() == want || z->MemoryBytes() == want + 16) << n;
      // The object's own chunk: 32 B, or 48 when malloc hands out a whole free chunk.
      counted += z->MemoryBytes() + malloc_usable_size(z.get()) + 8;
      sets.push_back(std::move(z));
    }
    const size_t before = in_use();
    sets.clear();  // keeps the vector's buffer
    const size_t freed = before - in_use();
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    // The allocator agrees: each set is its block plus the chunk of the ZSet object.
    EXPECT_LE(freed, counted) << n;
    EXPECT_GE(freed + 7 * (want + 16 + 48), counted) << n;
#else
    (void)freed;
#endif
  }
  // Removing members shrinks the block (glibc splits off a tail only once it is a whole
  // 32 B chunk, so up to 16 B of slack stays); the last one frees it.
  ZSet z;
  for (int i = 0; i < 50; ++i) z.Add(Name(i), i);
  for (int i = 49; i >= 1; --i) {
    ASSERT_TRUE(z.Remove(Name(i)));
    const size_t want = chunk(8 + size_t(i) * 25);
    ASSERT_TRUE(z.MemoryBytes() == want || z.MemoryBytes() == want + 16) << i;
  }
  ASSERT_TRUE(z.Remove(Name(0)));
  EXPECT_EQ(z.MemoryBytes(), 0u);
  EXPECT_TRUE(z.compact());
  z.Verify();
}

// A big set is destroyed off the thread that built it, as the thread pool does.
TEST(ZSet, DestroyOnAnotherThread) {
  auto z = std::make_unique<ZSet>();
  const int members = SanitizerScaled(200000, 20000);
  for (int i = 0; i < members; ++i) z->Add(absl::StrFormat("member:%08d", i), i % 1000);
  std::thread t([z = std::move(z)]() mutable { z.reset(); });
  t.join();
}

}  // namespace
}  // namespace rc
