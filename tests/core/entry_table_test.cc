#include "core/entry_table.h"

#include <random>
#include <string>
#include <unordered_map>

#include "gtest/gtest.h"

namespace rc {
namespace {

TEST(EntryTable, MirrorsUnorderedMapUnderRandomOperations) {
  EntryTable table;
  std::unordered_map<std::string, std::string> ref;
  std::mt19937_64 rng(42);
  for (int step = 0; step < 300000; ++step) {
    std::string key = "k" + std::to_string(rng() % 5000);
    switch (rng() % 4) {
      case 0:
      case 1: {
        std::string value(rng() % 40, char('a' + rng() % 26));
        if (Entry* e = table.Find(key)) {
          table.Replace(e, Entry::MakeString(key, value));
        } else {
          table.Insert(Entry::MakeString(key, value));
        }
        ref[key] = value;
        break;
      }
      case 2: {
        EntryPtr gone = table.Detach(key);
        EXPECT_EQ(gone != nullptr, ref.erase(key) == 1);
        break;
      }
      case 3: {
        Entry* e = table.Find(key);
        auto it = ref.find(key);
        ASSERT_EQ(e != nullptr, it != ref.end());
        if (e) {
          EXPECT_EQ(e->str(), it->second);
        }
        break;
      }
    }
    if (step % 50000 == 0) table.Verify();
  }
  EXPECT_EQ(table.size(), ref.size());
  table.Verify();
}

TEST(EntryTable, MemoryAccountingReturnsToBucketsOnly) {
  EntryTable table;
  for (int i = 0; i < 10000; ++i) {
    table.Insert(Entry::MakeString("key:" + std::to_string(i), std::string(32, 'v')));
  }
  EXPECT_GT(table.MemoryBytes(), 10000u * 48);
  for (int i = 0; i < 10000; ++i) table.Detach("key:" + std::to_string(i));
  while (table.RehashStep(1024)) {
  }
  // Entries are gone; only (shrunk) bucket arrays remain.
  EXPECT_LT(table.MemoryBytes(), 4096u);
}

TEST(EntryTable, ClearFreesEverything) {
  EntryTable table;
  for (int i = 0; i < 1000; ++i) table.Insert(Entry::MakeString(std::to_string(i), "v"));
  table.Clear();
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.Find("1"), nullptr);
  table.Insert(Entry::MakeString("again", "v"));
  EXPECT_NE(table.Find("again"), nullptr);
}

}  // namespace
}  // namespace rc
