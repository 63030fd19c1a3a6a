// List against a std::deque: random pushes, pops, sets, inserts, removals and erasures at
// several block limits, every element read back and Verify()'d; the codec's integer
// boundaries; the small/big switch; clones and memory accounting.

#include "core/list.h"

#include <deque>
#include <random>
#include <string>
#include <vector>

#include "core/value.h"
#include "gtest/gtest.h"

namespace rc {
namespace {

std::vector<std::string> All(const List& l) {
  std::vector<std::string> out;
  if (l.size() > 0) {
    l.Walk(0, false, [&](std::string_view v) {
      out.emplace_back(v);
      return true;
    });
  }
  return out;
}

void ExpectSame(const List& l, const std::deque<std::string>& ref) {
  l.Verify();
  ASSERT_EQ(l.size(), ref.size());
  EXPECT_EQ(All(l), std::vector<std::string>(ref.begin(), ref.end()));
  if (!ref.empty()) {
    std::vector<std::string> back;
    l.Walk(l.size() - 1, true, [&](std::string_view v) {
      back.emplace_back(v);
      return true;
    });
    EXPECT_EQ(back, std::vector<std::string>(ref.rbegin(), ref.rend()));
  }
}

// Elements that exercise every encoding: small and large integers, non-canonical integer
// spellings that must stay strings, short and long strings.
std::string RandomElement(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0:
      return std::to_string(int64_t(rng() % 300) - 150);
    case 1:
      return std::to_string(int64_t(rng()) >> (rng() % 64));
    case 2:
      return "0" + std::to_string(rng() % 100);  // leading zero: a string
    case 3:
      return "-0";
    case 4:
      return std::string(rng() % 200, char('a' + rng() % 26));
    case 5:
      return "";
    default:
      return "e" + std::to_string(rng() % 40);
  }
}

TEST(ListTest, CodecKeepsEverySpelling) {
  List l;
  const List::Limits limits;
  const std::vector<std::string> values = {"0",
                                           "127",
                                           "128",
                                           "-1",
                                           "-4096",
                                           "4095",
                                           "-4097",
                                           "4096",
                                           "-524288",
                                           "524287",
                                           "524288",
                                           "-67108864",
                                           "67108863",
                                           "67108864",
                                           "2147483647",
                                           "-2147483648",
                                           "2147483648",
                                           "9223372036854775807",
                                           "-9223372036854775808",
                                           "9223372036854775808",
                                           "+1",
                                           "1 ",
                                           "",
                                           std::string(63, 'x'),
                                           std::string(64, 'y'),
                                           std::string(300, 'z'),
                                           std::string(20000, 'w')};
  std::deque<std::string> ref;
  for (const std::string& v : values) {
    l.Push(v, List::End::kTail, limits);
    ref.push_back(v);
  }
  ExpectSame(l, ref);
  char buf[List::kBufBytes];
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_EQ(l.At(i, buf), ref[i]) << i;
}

TEST(ListTest, RandomOpsMatchADeque) {
  for (int64_t fill : {-2, -1, 3, 1, 0}) {
    std::mt19937_64 rng(uint64_t(fill + 100));
    List l;
    const List::Limits limits{fill};
    std::deque<std::string> ref;
    for (int step = 0; step < 20000; ++step) {
      const int op = int(rng() % 100);
      const std::string v = RandomElement(rng);
      if (op < 40) {
        const bool head = rng() % 2;
        l.Push(v, head ? List::End::kHead : List::End::kTail, limits);
        head ? ref.push_front(v) : ref.push_back(v);
      } else if (op < 60) {
        const bool head = rng() % 2;
        const size_t n = 1 + rng() % 4;
        std::vector<std::string> got;
        const size_t popped = l.Pop(head ? List::End::kHead : List::End::kTail, n,
                                    [&](std::string_view e) { got.emplace_back(e); });
        ASSERT_EQ(popped, std::min(n, ref.size()));
        for (size_t k = 0; k < popped; ++k) {
          ASSERT_EQ(got[k], head ? ref.front() : ref.back());
          head ? ref.pop_front() : ref.pop_back();
        }
      } else if (op < 68 && !ref.empty()) {
        const size_t i = rng() % ref.size();
        l.Set(i, v, limits);
        ref[i] = v;
      } else if (op < 78 && !ref.empty()) {
        const std::string pivot = ref[rng() % ref.size()];
        const bool after = rng() % 2;
        ASSERT_TRUE(l.Insert(pivot, v, after, limits));
        auto it = std::find(ref.begin(), ref.end(), pivot);
        ref.insert(after ? it + 1 : it, v);
      } else if (op < 86 && !ref.empty()) {
        const std::string target = ref[rng() % ref.size()];
        const int64_t count = int64_t(rng() % 5) - 2;
        size_t expect = 0;
        if (count >= 0) {
          for (auto it = ref.begin(); it != ref.end();) {
            if (*it == target && (count == 0 || int64_t(expect) < count)) {
              it = ref.erase(it);
              ++expect;
            } else {
              ++it;
            }
          }
        } else {
          for (size_t k = ref.size(); k-- > 0;) {
            if (ref[k] == target && int64_t(expect) < -count) {
              ref.erase(ref.begin() + int64_t(k));
              ++expect;
            }
          }
        }
        ASSERT_EQ(l.Remove(target, count), expect);
      } else if (op < 90 && !ref.empty()) {
        const size_t start = rng() % ref.size();
        const size_t n = rng() % (ref.size() - start + 1);
        l.Erase(start, n);
        ref.erase(ref.begin() + int64_t(start), ref.begin() + int64_t(start + n));
      } else if (op < 92) {
        EXPECT_FALSE(l.Insert("never-there", v, false, limits));
      } else if (!ref.empty()) {
        char buf[List::kBufBytes];
        const size_t i = rng() % ref.size();
        ASSERT_EQ(l.At(i, buf), ref[i]);
      }
      if (step % 500 == 0) ExpectSame(l, ref);
    }
    ExpectSame(l, ref);
  }
}

TEST(ListTest, SmallUntilABlockIsFull) {
  List l;
  const List::Limits limits{-1};  // 4 KiB
  for (int i = 0; i < 100; ++i) l.Push("0123456789abcdef", List::End::kTail, limits);
  EXPECT_FALSE(l.big());
  EXPECT_EQ(l.blocks(), 1u);
  for (int i = 0; i < 1000; ++i) l.Push("0123456789abcdef", List::End::kHead, limits);
  EXPECT_TRUE(l.big());
  EXPECT_GE(l.blocks(), 4u);
  l.Verify();
  l.Erase(0, l.size() - 10);
  EXPECT_FALSE(l.big());
  l.Verify();
  const List::Limits three{3};
  List c;
  for (int i = 0; i < 10; ++i) c.Push(std::to_string(i), List::End::kTail, three);
  EXPECT_EQ(c.blocks(), 4u);
}

TEST(ListTest, WalkStopsWhenAsked) {
  List l;
  for (int i = 0; i < 5000; ++i) l.Push(std::to_string(i), List::End::kTail, {});
  std::vector<std::string> got;
  l.Walk(2500, false, [&](std::string_view v) {
    got.emplace_back(v);
    return got.size() < 3;
  });
  EXPECT_EQ(got, (std::vector<std::string>{"2500", "2501", "2502"}));
  got.clear();
  l.Walk(2500, true, [&](std::string_view v) {
    got.emplace_back(v);
    return got.size() < 3;
  });
  EXPECT_EQ(got, (std::vector<std::string>{"2500", "2499", "2498"}));
}

TEST(ListTest, ClonesAreEqualAndIndependent) {
  for (int n : {3, 5000}) {
    List l;
    for (int i = 0; i < n; ++i) l.Push("v" + std::to_string(i), List::End::kTail, {});
    std::unique_ptr<List> c = l.Clone();
    c->Verify();
    EXPECT_EQ(All(*c), All(l));
    EXPECT_EQ(c->blocks(), l.blocks());
    c->Push("more", List::End::kHead, {});
    EXPECT_EQ(c->size(), l.size() + 1);
  }
}

TEST(ListTest, ValueLayerRow) {
  Value v = Value::Make<List>();
  EXPECT_TRUE(v.empty());
  v.get<List>()->Push("a", List::End::kTail, {});
  EXPECT_EQ(v.type(), ValueType::kList);
  EXPECT_EQ(TypeName(ValueType::kList), "list");
  EXPECT_EQ(v.MemoryBytes(), v.get<List>()->MemoryBytes());
  EXPECT_EQ(v.FreeEffort(), 1u);
  Value c = v.Clone();
  EXPECT_EQ(c.get<List>()->size(), 1u);
  // Five short elements: the 32-byte object and one small block.
  List small;
  for (int i = 0; i < 5; ++i) small.Push("elem" + std::to_string(i), List::End::kTail, {});
  EXPECT_LE(small.MemoryBytes(), 32u + 48u);
}

TEST(ListTest, BigListsCostLittleMoreThanTheirBytes) {
  List l;
  for (int i = 0; i < 1000000; ++i) l.Push(std::to_string(i), List::End::kTail, {});
  l.Verify();
  // Integers below 2^19 take 3 bytes, below 2^26 4 (a listpack: 5).
  EXPECT_LT(double(l.MemoryBytes()) / 1e6, 3.6);
  // Popped down from both ends, the blocks and the ring give their bytes back.
  while (l.size() > 10000) {
    l.Pop(List::End::kHead, 3000, [](std::string_view) {});
    l.Pop(List::End::kTail, 3000, [](std::string_view) {});
  }
  l.Verify();
  EXPECT_LT(l.MemoryBytes(), 64u * 1024);
}

}  // namespace
}  // namespace rc
