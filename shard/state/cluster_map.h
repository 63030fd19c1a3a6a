#pragma once
// Which node serves each of Redis Cluster's 16384 hash slots (docs/CLUSTER.md).
//
// A map is an immutable snapshot: a reload (CLUSTER RELOAD) builds a new one and
// publishes it through ClusterState; threads pick the new snapshot up before their next
// command (ShardThread::cluster_map), so a command sees one map from start to end. Moving
// a slot later is one more snapshot with that slot's owner changed (and, while it moves,
// a per-slot state beside the owner), not a new structure.
//
// Two ways to get one:
//   - PerThread: cluster-enabled with no cluster-config-file. Every worker thread is a
//     node on its own port owning the contiguous slot range its shard owns, so a
//     cluster-aware client reaches each key's thread directly.
//   - FromJson: cluster-config-file, one file shared by every process:
//       {"nodes": [{"id": "<40 hex>", "ip": "10.0.0.1", "port": 7000,
//                   "slots": [[0, 5460]]}, ...]}
//     "id" may be left out (derived from ip:port, so it is stable). This process is the
//     node whose ip is cluster-announce-ip and whose port is `port`.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/key_slot.h"
#include "shard/state/config.h"

namespace rc {

struct SlotRange {
  uint16_t first = 0;
  uint16_t last = 0;  // inclusive, as Redis prints ranges
};

struct ClusterNode {
  std::string id;  // 40 lower-case hex digits, as Redis's node ids
  std::string ip;
  int port = 0;
  std::vector<SlotRange> slots;  // ascending, adjacent ranges merged
  // Served by this process (its own port, or one of its threads' ports).
  bool local = false;
  // A per-thread node: the shard it is; -1: the node is the whole process.
  int32_t shard = -1;
};

class ClusterMap {
 public:
  static constexpr int16_t kNoNode = -1;

  // Validates and builds a map from the shared JSON file's text: every slot owned at most
  // once (holes are allowed: their keys get CLUSTERDOWN), ids unique, addresses unique,
  // and this process (`my_ip`:`my_port`) one of the nodes. nullptr and *error otherwise.
  static std::unique_ptr<ClusterMap> FromJson(std::string_view text, std::string_view my_ip,
                                              int my_port, std::string* error);
  // One local node per thread: node i at `ip`:`ports[i]` owns `ranges[i]`.
  static std::unique_ptr<ClusterMap> PerThread(std::string_view ip, const std::vector<int>& ports,
                                               const std::vector<std::vector<SlotRange>>& ranges);

  const std::vector<ClusterNode>& nodes() const { return nodes_; }
  // The node serving `slot` (index into nodes()), or kNoNode for a hole.
  int16_t OwnerOf(uint16_t slot) const { return owner_[slot]; }
  // Slots some node serves.
  size_t assigned_slots() const { return assigned_; }
  // Whether `slot` belongs to the local node listening on `port`.
  bool ServesHere(uint16_t slot, int port) const {
    const int16_t n = owner_[slot];
    return n != kNoNode && nodes_[size_t(n)].local && nodes_[size_t(n)].port == port;
  }
  // The local node listening on `port`, or nullptr.
  const ClusterNode* LocalNode(int port) const;
  // Which slots this process serves, for spreading them over its threads.
  std::vector<bool> LocalSlots() const;

 private:
  ClusterMap() { owner_.fill(kNoNode); }
  // Fills owner_ from the nodes' ranges; false (and *error) when two nodes claim a slot.
  bool Index(std::string* error);

  std::vector<ClusterNode> nodes_;
  std::array<int16_t, kNumKeySlots> owner_;
  size_t assigned_ = 0;
};

// A node id that stays the same for the same address: 40 hex digits hashed from
// "ip:port", so a restarted process (or a map without ids) keeps its identity.
std::string StableNodeId(std::string_view ip, int port);

// Reads and validates the map file (FromJson); nullptr and *error when it cannot.
std::unique_ptr<ClusterMap> LoadClusterMap(const std::string& path, std::string_view my_ip,
                                           int my_port, std::string* error);

// The address this process's nodes advertise: cluster-announce-ip, else the bind address
// when it is one, else 127.0.0.1.
std::string AnnouncedIp(const Config& config);

// "0-5460 5462 ..." as CLUSTER NODES prints a node's slots.
std::string FormatSlotRanges(const std::vector<SlotRange>& ranges);

}  // namespace rc
