#include "shard/state/cluster_map.h"

#include <gtest/gtest.h>

#include "shard/runtime/shard_set.h"

namespace rc {
namespace {

constexpr char kThree[] = R"({"nodes": [
  {"ip": "127.0.0.1", "port": 7001, "slots": [[0, 5460]]},
  {"ip": "127.0.0.1", "port": 7002, "slots": [[5461, 10922]]},
  {"id": "0123456789abcdef0123456789abcdef01234567", "ip": "127.0.0.1", "port": 7003,
   "slots": [[10923, 16000], 16001, [16002, 16383]]}]})";

TEST(ClusterMap, ReadsTheSharedFile) {
  std::string error;
  auto map = ClusterMap::FromJson(kThree, "127.0.0.1", 7002, &error);
  ASSERT_NE(map, nullptr) << error;
  ASSERT_EQ(map->nodes().size(), 3u);
  EXPECT_EQ(map->assigned_slots(), size_t(kNumKeySlots));
  EXPECT_EQ(map->OwnerOf(0), 0);
  EXPECT_EQ(map->OwnerOf(5461), 1);
  EXPECT_EQ(map->OwnerOf(16383), 2);
  EXPECT_TRUE(map->ServesHere(6000, 7002));
  EXPECT_FALSE(map->ServesHere(0, 7002));
  EXPECT_FALSE(map->ServesHere(6000, 7001));  // 7001 is not this process
  // Adjacent ranges merge; a missing id is derived from the address, stably.
  EXPECT_EQ(FormatSlotRanges(map->nodes()[2].slots), "10923-16383");
  EXPECT_EQ(map->nodes()[2].id, "0123456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(map->nodes()[0].id, StableNodeId("127.0.0.1", 7001));
  EXPECT_EQ(map->nodes()[0].id.size(), 40u);
  EXPECT_NE(map->nodes()[0].id, map->nodes()[1].id);
  EXPECT_EQ(map->LocalNode(7002), &map->nodes()[1]);
  auto local = map->LocalSlots();
  EXPECT_FALSE(local[5460]);
  EXPECT_TRUE(local[5461]);
}

TEST(ClusterMap, HolesAreAllowedOverlapsAreNot) {
  std::string error;
  auto holes = ClusterMap::FromJson(
      R"({"nodes": [{"ip": "a", "port": 1, "slots": [[0, 99]]}, {"ip": "b", "port": 1,
          "slots": [200]}]})",
      "a", 1, &error);
  ASSERT_NE(holes, nullptr) << error;
  EXPECT_EQ(holes->assigned_slots(), 101u);
  EXPECT_EQ(holes->OwnerOf(100), ClusterMap::kNoNode);
  EXPECT_EQ(FormatSlotRanges(holes->nodes()[1].slots), "200");

  struct Bad {
    const char* json;
    const char* says;
  } cases[] = {
      {R"({"nodes": [{"ip": "a", "port": 1, "slots": [[0, 10]]},
                     {"ip": "b", "port": 1, "slots": [[10, 20]]}]})",
       "slot 10 is owned by both"},
      {R"({"nodes": [{"ip": "a", "port": 1, "slots": []}, {"ip": "a", "port": 1, "slots": []}]})",
       "used twice"},
      {R"({"nodes": [{"id": "xyz", "ip": "a", "port": 1, "slots": []}]})", "40 lower-case hex"},
      {R"({"nodes": [{"ip": "a", "port": 1, "slots": [[5, 4]]}]})", "slot range"},
      {R"({"nodes": [{"ip": "a", "port": 1, "slots": [16384]}]})", "slot range"},
      {R"({"nodes": [{"ip": "a", "port": 70000, "slots": []}]})", "\"port\""},
      {R"({"nodes": [{"ip": "a", "port": 1, "slots": [], "extra": 1}]})", "unknown member"},
      {R"({"nodes": [{"ip": "b", "port": 1, "slots": []}]})", "not in the map"},
      {R"({"nodes": []})", "non-empty \"nodes\""},
      {R"([1, 2])", "non-empty \"nodes\""},
      {R"({"nodes": [)", "line 1"},
  };
  for (const Bad& b : cases) {
    EXPECT_EQ(ClusterMap::FromJson(b.json, "a", 1, &error), nullptr) << b.json;
    EXPECT_NE(error.find(b.says), std::string::npos) << error;
  }
}

TEST(ClusterMap, PerThreadNodesFollowTheShards) {
  ShardSet shards(3, nullptr);
  std::vector<std::vector<SlotRange>> ranges;
  for (uint32_t i = 0; i < 3; ++i) ranges.push_back(shards.RangesOf(i));
  auto map = ClusterMap::PerThread("127.0.0.1", {7001, 7002, 7003}, ranges);
  // As redis-cli --cluster create splits three masters.
  EXPECT_EQ(FormatSlotRanges(map->nodes()[0].slots), "0-5460");
  EXPECT_EQ(FormatSlotRanges(map->nodes()[1].slots), "5461-10922");
  EXPECT_EQ(FormatSlotRanges(map->nodes()[2].slots), "10923-16383");
  for (uint16_t s = 0; s < kNumKeySlots; ++s) {
    ASSERT_EQ(uint32_t(map->OwnerOf(s)), shards.ShardOfSlot(s));
    ASSERT_EQ(map->nodes()[size_t(map->OwnerOf(s))].shard, int32_t(shards.ShardOfSlot(s)));
  }
}

TEST(SplitSlots, SpreadsOnlyTheLocalSlots) {
  // A process serving 5461-10922 with two threads splits that range, not all 16384.
  std::vector<bool> local(kNumKeySlots, false);
  for (size_t s = 5461; s <= 10922; ++s) local[s] = true;
  std::vector<uint16_t> owner = SplitSlots(2, local);
  EXPECT_EQ(owner[5461], 0);
  EXPECT_EQ(owner[5461 + 2730], 0);
  EXPECT_EQ(owner[5461 + 2731], 1);
  EXPECT_EQ(owner[10922], 1);
  // Contiguous: the owner never goes back down.
  for (size_t s = 1; s < kNumKeySlots; ++s) ASSERT_GE(owner[s], owner[s - 1]);
  // One thread, or no local slots: everything on shard 0.
  EXPECT_EQ(SplitSlots(1, local)[16383], 0);
  EXPECT_EQ(SplitSlots(4, std::vector<bool>(kNumKeySlots, false))[16383], 0);
}

}  // namespace
}  // namespace rc
