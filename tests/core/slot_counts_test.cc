// EntryTable's keys per slot (core/slot_counts.h): exact under random inserts, detaches
// and replaces mirrored into a reference, zeroed by Clear and by moving the table away,
// and absent (no memory, no count) unless asked for.

#include "core/slot_counts.h"

#include <map>
#include <random>
#include <set>
#include <string>

#include "core/entry_table.h"
#include "core/key_slot.h"
#include "gtest/gtest.h"

namespace rc {
namespace {

// Keys of a few hash tags, so slots hold many keys each, plus untagged ones.
std::string RandomKey(std::mt19937_64& rng) {
  const uint64_t n = rng() % 4000;
  return n % 2 == 0 ? "{tag" + std::to_string(n % 7) + "}:" + std::to_string(n)
                    : "k" + std::to_string(n);
}

void ExpectCounts(const EntryTable& table, const std::set<std::string>& keys) {
  std::map<uint16_t, uint32_t> want;
  for (const std::string& k : keys) ++want[KeySlot(k)];
  const SlotCounts& counts = *table.slot_counts();
  uint64_t total = 0;
  for (const auto& [slot, n] : want) {
    EXPECT_EQ(counts[slot], n) << "slot " << slot;
    total += n;
  }
  EXPECT_EQ(counts.Total(), total);
}

TEST(SlotCounts, StayExactUnderRandomOperations) {
  EntryTable table;
  table.CountSlots();
  std::set<std::string> ref;
  std::mt19937_64 rng(7);
  for (int step = 0; step < 200000; ++step) {
    const std::string key = RandomKey(rng);
    Entry* e = table.Find(key);
    switch (rng() % 3) {
      case 0:
        if (e != nullptr) {
          table.Replace(e, Entry::MakeString(key, "replaced"));
        } else {
          table.Insert(Entry::MakeString(key, "v"));
        }
        ref.insert(key);
        break;
      case 1:
        EXPECT_EQ(table.Detach(key) != nullptr, ref.erase(key) == 1);
        break;
      case 2:
        // A detach of an absent key changes nothing.
        EXPECT_EQ(table.Detach("absent:" + key), nullptr);
        break;
    }
    if (step % 40000 == 0) table.Verify();
  }
  ExpectCounts(table, ref);
  table.Verify();
}

TEST(SlotCounts, CountingStartsWithTheKeysPresent) {
  EntryTable table;
  std::set<std::string> ref;
  for (int i = 0; i < 500; ++i) {
    ref.insert("{a}" + std::to_string(i));
    table.Insert(Entry::MakeString("{a}" + std::to_string(i), "v"));
  }
  EXPECT_EQ(table.slot_counts(), nullptr);
  const size_t before = table.MemoryBytes();
  table.CountSlots();
  EXPECT_EQ(table.MemoryBytes(), before + sizeof(SlotCounts));
  EXPECT_EQ((*table.slot_counts())[KeySlot("{a}")], 500u);
  ExpectCounts(table, ref);
}

TEST(SlotCounts, ClearAndMoveLeaveZeroesBehind) {
  EntryTable table;
  table.CountSlots();
  for (int i = 0; i < 100; ++i) table.Insert(Entry::MakeString("k" + std::to_string(i), "v"));
  table.Clear();
  EXPECT_EQ(table.slot_counts()->Total(), 0u);

  for (int i = 0; i < 100; ++i) table.Insert(Entry::MakeString("{b}" + std::to_string(i), "v"));
  // FLUSHALL ASYNC: the entries go, the counts stay with the table the shard keeps.
  EntryTable moved(std::move(table));
  EXPECT_EQ(moved.size(), 100u);
  EXPECT_EQ(moved.slot_counts(), nullptr);
  ASSERT_NE(table.slot_counts(), nullptr);
  EXPECT_EQ(table.slot_counts()->Total(), 0u);
  table.Insert(Entry::MakeString("{b}again", "v"));
  EXPECT_EQ((*table.slot_counts())[KeySlot("{b}")], 1u);
  table.Verify();
}

}  // namespace
}  // namespace rc
