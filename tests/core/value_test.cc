// The value layer answers for every type from its row: name, encoding, bytes, free effort,
// emptiness; entries own objects through it and move them without copying.

#include "core/value.h"

#include <string>

#include "core/entry.h"
#include "core/zset.h"
#include "gtest/gtest.h"

namespace rc {
namespace {

Value ZSetOf(int members) {
  Value v = Value::Make<ZSet>();
  for (int i = 0; i < members; ++i) v.get<ZSet>()->Add("m" + std::to_string(i), i);
  return v;
}

TEST(ValueTest, TypeNames) {
  EXPECT_EQ(TypeName(ValueType::kString), "string");
  EXPECT_EQ(TypeName(ValueType::kZSet), "zset");
}

TEST(ValueTest, StringEncodingsFollowRedis) {
  auto enc = [](std::string_view v) { return EncodingOf(*Entry::MakeString("k", v)); };
  EXPECT_EQ(enc("12345"), "int");
  EXPECT_EQ(enc("-9223372036854775808"), "int");
  EXPECT_EQ(enc("9223372036854775808"), "embstr");  // past a long
  EXPECT_EQ(enc("-0"), "embstr");
  EXPECT_EQ(enc("007"), "embstr");
  EXPECT_EQ(enc(std::string(44, 'x')), "embstr");
  EXPECT_EQ(enc(std::string(45, 'x')), "raw");
  EXPECT_EQ(ValueBytes(*Entry::MakeString("k", "v")), 0u);
  EXPECT_FALSE(ValueEmpty(*Entry::MakeString("k", "")));
}

TEST(ValueTest, ObjectFactsComeFromTheType) {
  Value small = ZSetOf(3);
  EXPECT_EQ(small.type(), ValueType::kZSet);
  EXPECT_EQ(small.FreeEffort(), 1u);  // one block
  EXPECT_GT(small.MemoryBytes(), 0u);
  EXPECT_FALSE(small.empty());

  Value big = ZSetOf(200);
  EXPECT_EQ(big.FreeEffort(), 200u);
  EXPECT_EQ(big.MemoryBytes(), big.get<ZSet>()->MemoryBytes());

  EXPECT_TRUE(Value::Make<ZSet>().empty());
  EXPECT_TRUE(Value().empty());
}

TEST(ValueTest, EntriesOwnAndHandOverObjects) {
  Value v = ZSetOf(200);
  const ZSet* set = v.get<ZSet>();
  EntryPtr e = Entry::MakeValue("key", std::move(v));
  EXPECT_FALSE(v);  // moved from
  EXPECT_EQ(e->type(), ValueType::kZSet);
  EXPECT_EQ(e->key(), "key");
  EXPECT_EQ(e->object<ZSet>(), set);
  EXPECT_EQ(EncodingOf(*e), "skiplist");
  EXPECT_EQ(ValueBytes(*e), set->MemoryBytes());

  // RENAME: the object moves to the new entry, which keeps the TTL fields.
  e = Entry::Reshape(*e, /*with_ttl=*/true);
  EntryPtr renamed = Entry::Remake(*e, "other", /*with_ttl=*/true);
  EXPECT_EQ(renamed->object<ZSet>(), set);
  EXPECT_EQ(e->object(), nullptr);
  EXPECT_TRUE(renamed->has_ttl());

  Value back = renamed->TakeValue();
  EXPECT_EQ(back.get<ZSet>(), set);
  EXPECT_EQ(renamed->object(), nullptr);
}

TEST(ValueTest, CompactSetsReadAsListpack) {
  EntryPtr e = Entry::MakeValue("k", ZSetOf(128));
  EXPECT_EQ(EncodingOf(*e), "listpack");
  EXPECT_EQ(Value(std::make_unique<ZSet>()).FreeEffort(), 1u);
}

TEST(ValueTest, MoveAssignmentDestroysTheOldObject) {
  Value a = ZSetOf(10);
  Value b = ZSetOf(300);
  a = std::move(b);  // the 10-member set is destroyed here (LeakSanitizer checks it)
  EXPECT_EQ(a.get<ZSet>()->size(), 300u);
  EXPECT_FALSE(b);
  a.Reset();
  EXPECT_FALSE(a);
}

// COPY: Entry::Copy clones through the value layer; the copy is independent of the
// original, keeps the encoding, and carries the deadline.
TEST(ValueTest, CopiesAreDeepAndKeepEncodingAndDeadline) {
  for (int members : {3, 300}) {
    EntryPtr e = Entry::MakeValue("src", ZSetOf(members), true);
    e->set_deadline(12345);
    EntryPtr c = Entry::Copy(*e, "dst");
    ASSERT_EQ(c->type(), ValueType::kZSet);
    EXPECT_EQ(c->key(), "dst");
    EXPECT_TRUE(c->has_ttl());
    EXPECT_EQ(c->deadline(), 12345);
    ZSet* orig = e->object<ZSet>();
    ZSet* copy = c->object<ZSet>();
    EXPECT_NE(orig, copy);
    EXPECT_EQ(EncodingOf(*c), EncodingOf(*e));
    // Built in order, a big copy's tree packs its leaves at least as tightly.
    EXPECT_LE(ValueBytes(*c), ValueBytes(*e));
    EXPECT_GT(ValueBytes(*c), ValueBytes(*e) * 9 / 10);
    ASSERT_EQ(copy->size(), orig->size());
    for (size_t r = 0; r < orig->size(); ++r) {
      EXPECT_EQ(copy->AtRank(r).member(), orig->AtRank(r).member());
      EXPECT_EQ(copy->AtRank(r).score(), orig->AtRank(r).score());
    }
    copy->Add("only-in-copy", 1);
    orig->Remove("m0");
    EXPECT_FALSE(orig->Score("only-in-copy"));
    EXPECT_TRUE(copy->Score("m0"));
    copy->Verify();
    orig->Verify();
  }
  // A big set shrunk small stays big in its copy, as Redis's zsetDup keeps a skiplist.
  Value shrunk = ZSetOf(200);
  for (int i = 0; i < 195; ++i) shrunk.get<ZSet>()->Remove("m" + std::to_string(i));
  EXPECT_EQ(shrunk.Clone().get<ZSet>()->Encoding(), "skiplist");
  EntryPtr s = Entry::MakeString("k", "bytes");
  EntryPtr sc = Entry::Copy(*s, "k2");
  EXPECT_EQ(sc->str(), "bytes");
  EXPECT_FALSE(sc->has_ttl());
}

}  // namespace
}  // namespace rc
