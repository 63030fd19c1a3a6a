// A shard's snapshot holds every key exactly once, as it was when the snapshot began,
// whatever changes, deletes, renames, resizes and flushes come while it is written.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/rdb.h"
#include "core/rdb_value.h"
#include "core/zset.h"
#include "gtest/gtest.h"
#include "shard/runtime/shard.h"
#include "shard/runtime/stats.h"
#include "shard/state/server_state.h"
#include "timers/clock.h"

namespace rc {
namespace {

class CollectingSink : public SnapshotSink {
 public:
  void Write(uint32_t, std::string records) override { bytes += records; }
  void ShardDone(uint32_t) override { ++done; }
  bool Failed() const override { return false; }
  bool Backlogged() const override { return false; }
  bool compress() const override { return true; }
  int64_t key_delay_us() const override { return 0; }

  std::string bytes;
  int done = 0;
};

// What a record holds, readably: a string's bytes, a sorted set's "member=score" list.
struct Saved {
  std::string value;
  int64_t deadline = -1;
  bool operator==(const Saved&) const = default;
};

// Parses the records; a key seen twice fails the test.
std::map<std::string, Saved> Parse(std::string_view bytes) {
  std::map<std::string, Saved> out;
  RdbReader in(bytes);
  RdbLimits limits;
  while (in.remaining() > 0) {
    uint8_t type = 0;
    EXPECT_TRUE(in.ReadByte(&type));
    Saved s;
    if (type == 0xfc) {
      uint64_t ms = 0;
      EXPECT_TRUE(in.ReadU64(&ms));
      s.deadline = int64_t(ms);
      EXPECT_TRUE(in.ReadByte(&type));
    }
    std::string key;
    EXPECT_TRUE(in.ReadString(&key));
    RdbObject obj;
    std::string error;
    EXPECT_TRUE(RdbReadObject(type, in, limits, &obj, &error)) << error;
    if (obj.type == ValueType::kString) {
      s.value = obj.str;
    } else if (obj.type == ValueType::kZSet) {
      const ZSet& z = *obj.obj.get<ZSet>();
      for (auto it = z.AtRank(0); it.Valid(); it.Next()) {
        s.value += std::string(it.member()) + "=" + std::to_string(it.score()) + ",";
      }
    }
    EXPECT_TRUE(out.emplace(key, s).second) << "key written twice: " << key;
  }
  return out;
}

class SnapshotTest : public ::testing::Test {
 protected:
  SnapshotTest() { state_.clock = &clock_; }

  std::map<std::string, Saved> Current() {
    CollectingSink sink;
    std::string bytes;
    shard_.table().ForEach([&](const Entry* e) { AppendRdbRecord(*e, true, &bytes); });
    return Parse(bytes);
  }
  // Steps until the snapshot is done, calling `between` before each step.
  template <typename Fn>
  void Finish(Fn between) {
    for (int i = 0; i < 1'000'000 && shard_.SnapshotActive(); ++i) {
      between(i);
      shard_.SnapshotStep(0);
    }
    ASSERT_FALSE(shard_.SnapshotActive());
  }
  void AddZSet(std::string_view key, int members) {
    Entry* e = shard_.Add(key, Value::Make<ZSet>());
    ValueUpdate update(shard_, e);
    for (int i = 0; i < members; ++i) update.get<ZSet>().Add("m" + std::to_string(i), i);
  }

  ManualClock clock_;
  ServerState state_;
  ThreadStats thread_stats_;
  Shard shard_{0, &thread_stats_, &state_};
};

TEST_F(SnapshotTest, QuietTableIsWrittenWhole) {
  for (int i = 0; i < 5000; ++i) shard_.SetString("k" + std::to_string(i), std::to_string(i));
  shard_.SetString("ttl", "v", TtlMode::kSet, clock_.NowUnixMillis() + 5000);
  AddZSet("z", 200);
  const auto before = Current();
  auto sink = std::make_shared<CollectingSink>();
  const Shard::SnapshotCounts counts = shard_.BeginSnapshot(sink);
  EXPECT_EQ(counts.keys, 5002u);
  EXPECT_EQ(counts.expires, 1u);
  Finish([](int) {});
  EXPECT_EQ(sink->done, 1);
  EXPECT_EQ(Parse(sink->bytes), before);
}

TEST_F(SnapshotTest, ChangesAfterTheStartAreNotInIt) {
  for (int i = 0; i < 3000; ++i) shard_.SetString("k" + std::to_string(i), "v" + std::to_string(i));
  AddZSet("z", 100);
  AddZSet("gone", 10);
  const auto before = Current();
  auto sink = std::make_shared<CollectingSink>();
  shard_.BeginSnapshot(sink);
  Finish([&](int step) {
    if (step == 0) {
      // Every kind of change, to keys the walk has not reached yet.
      for (int i = 0; i < 3000; i += 7) shard_.SetString("k" + std::to_string(i), "changed");
      for (int i = 1; i < 3000; i += 7) shard_.Delete("k" + std::to_string(i));
      for (int i = 2; i < 3000; i += 7) {
        Entry* e = shard_.Find("k" + std::to_string(i));
        shard_.SetDeadline(e, clock_.NowUnixMillis() + 1000);
      }
      for (int i = 3; i < 3000; i += 7) {
        EntryPtr moved = shard_.Take("k" + std::to_string(i));
        shard_.Put("renamed" + std::to_string(i), std::move(moved));
      }
      {
        ValueUpdate update(shard_, shard_.Find("z"));
        update.get<ZSet>().Add("m0", 1000);
        update.get<ZSet>().Remove("m1");
      }
      shard_.Delete("gone");
      // New keys, enough to grow the table while the walk goes on.
      for (int i = 0; i < 20000; ++i) shard_.SetString("new" + std::to_string(i), "n");
    }
    if (step == 3) shard_.Flush();
    if (step == 4) shard_.SetString("after-flush", "x");
  });
  EXPECT_EQ(Parse(sink->bytes), before);
}

TEST_F(SnapshotTest, NextSnapshotSeesEverything) {
  for (int i = 0; i < 1000; ++i) shard_.SetString("k" + std::to_string(i), "v");
  auto first = std::make_shared<CollectingSink>();
  shard_.BeginSnapshot(first);
  Finish([&](int step) {
    if (step == 1) {
      for (int i = 0; i < 500; ++i) shard_.SetString("k" + std::to_string(i), "w");
      for (int i = 0; i < 500; ++i) shard_.SetString("n" + std::to_string(i), "n");
    }
  });
  const auto now = Current();
  auto second = std::make_shared<CollectingSink>();
  shard_.BeginSnapshot(second);
  Finish([](int) {});
  EXPECT_EQ(Parse(second->bytes), now);
  EXPECT_EQ(now.size(), 1500u);
}

}  // namespace
}  // namespace rc
