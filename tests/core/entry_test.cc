#include "core/entry.h"

#include <cstring>
#include <string>

#include "gtest/gtest.h"

namespace rc {
namespace {

TEST(Entry, SmallKeyAndValueFitOneSixtyFourByteChunk) {
  // The layout's reason to exist: 12-byte key + 32-byte value in a 64-byte malloc chunk.
  EntryPtr e = Entry::MakeString("key:00000001", std::string(32, 'v'));
  EXPECT_EQ(e->key(), "key:00000001");
  EXPECT_EQ(e->str(), std::string(32, 'v'));
  EXPECT_LE(e->AllocatedBytes(), 56u);
}

// Regression (tests/fuzz/dispatch_fuzz, clang + ASan): "SET k vvv" wrote 16 bytes into a
// 13-byte allocation, because value-initializing Entry zeroes all of sizeof(Entry).
TEST(Entry, EntriesSmallerThanTheClassStillHoldIt) {
  for (size_t key_len : {0, 1, 2}) {
    for (size_t value_len : {0, 1, 3}) {
      const std::string key(key_len, 'k'), value(value_len, 'v');
      EntryPtr e = Entry::MakeString(key, value);
      EXPECT_GE(e->AllocatedBytes(), sizeof(Entry));
      EXPECT_EQ(e->key(), key);
      EXPECT_EQ(e->str(), value);
      EXPECT_EQ(e->next(), nullptr);
    }
  }
}

TEST(Entry, WideLengthsRoundTrip) {
  std::string key(300, 'k'), value(70000, 'x');
  EntryPtr e = Entry::MakeString(key, value);
  EXPECT_EQ(e->key(), key);
  EXPECT_EQ(e->str(), value);
  EntryPtr small_key = Entry::MakeString("k", value);
  EXPECT_EQ(small_key->key(), "k");
  EXPECT_EQ(small_key->str().size(), 70000u);
}

TEST(Entry, EmptyKeyAndValue) {
  EntryPtr e = Entry::MakeString("", "");
  EXPECT_EQ(e->key(), "");
  EXPECT_EQ(e->str(), "");
}

TEST(Entry, GrowsInPlaceUpToCapacity) {
  EntryPtr e = Entry::MakeString("key", "abc", 100);
  ASSERT_GE(e->StrCapacity(), 100u);
  std::memcpy(e->MutableStr() + 3, "defg", 4);
  e->SetStrLen(7);
  EXPECT_EQ(e->str(), "abcdefg");
  EXPECT_EQ(e->key(), "key");
}

TEST(Entry, NarrowCapacityNeverExceedsLengthByte) {
  EntryPtr e = Entry::MakeString("key", std::string(200, 'a'), 255);
  EXPECT_LE(e->StrCapacity(), 255u);
}

}  // namespace
}  // namespace rc

namespace rc {
namespace {

TEST(Entry, TtlFieldsOnlyWhenAsked) {
  EntryPtr plain = Entry::MakeString("key:00000001", std::string(32, 'v'));
  EXPECT_FALSE(plain->has_ttl());
  EntryPtr timed = Entry::MakeString("key:00000001", std::string(32, 'v'), 0, true);
  ASSERT_TRUE(timed->has_ttl());
  timed->set_deadline(1'700'000'000'123);
  timed->set_heap_index(42);
  EXPECT_EQ(timed->deadline(), 1'700'000'000'123);
  EXPECT_EQ(timed->heap_index(), 42u);
  EXPECT_EQ(timed->key(), "key:00000001");
  EXPECT_EQ(timed->str(), std::string(32, 'v'));
  // 12 extra bytes: the cache-sized key and value still fit glibc's 80-byte chunk.
  EXPECT_LE(timed->AllocatedBytes(), 72u);
}

TEST(Entry, ReshapeKeepsKeyValueAndDeadline) {
  EntryPtr timed = Entry::MakeString(std::string(300, 'k'), std::string(1000, 'x'), 0, true);
  timed->set_deadline(99);
  timed->set_heap_index(7);
  EntryPtr bigger = Entry::Reshape(*timed, true, 5000);
  EXPECT_EQ(bigger->deadline(), 99);
  EXPECT_EQ(bigger->heap_index(), 7u);
  EXPECT_GE(bigger->StrCapacity(), 5000u);
  EntryPtr plain = Entry::Reshape(*timed, false);
  EXPECT_FALSE(plain->has_ttl());
  EXPECT_EQ(plain->key(), std::string(300, 'k'));
  EXPECT_EQ(plain->str(), std::string(1000, 'x'));
}

}  // namespace
}  // namespace rc
