// CLUSTER (the subcommands a cluster client needs: SLOTS, SHARDS, NODES, MYID, INFO,
// KEYSLOT, COUNTKEYSINSLOT, GETKEYSINSLOT, HELP, and ringcache's RELOAD), READONLY,
// READWRITE and ASKING, with Redis 7.0's reply shapes. The map they describe is
// shard/state/cluster_map.h; docs/CLUSTER.md has the design.

#include <algorithm>
#include <mutex>

#include "core/key_slot.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/errors.h"
#include "shard/runtime/fanout.h"
#include "shard/runtime/shard.h"
#include "shard/state/cluster_map.h"
#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"

namespace rc {

namespace {

// The map, or nullptr after replying as a Redis without cluster support does.
const ClusterMap* MapOrRefuse(CoordCmd& cmd) {
  const ClusterMap* map = cmd.self.cluster_map(cmd.server.cluster);
  if (map == nullptr) cmd.reply.Error(err::kClusterDisabled);
  return map;
}

// The node this connection talks to: the one on its port, or for the main port of a
// one-process cluster the node its thread is.
const ClusterNode* MyNode(const ClusterMap& map, const CoordCmd& cmd) {
  if (cmd.client.cluster_port != 0) return map.LocalNode(cmd.client.cluster_port);
  for (const ClusterNode& n : map.nodes()) {
    if (n.local && n.shard == int32_t(cmd.self.id())) return &n;
  }
  for (const ClusterNode& n : map.nodes()) {
    if (n.local) return &n;
  }
  return nullptr;
}

void ClusterHelp(CoordCmd& cmd) {
  if (MapOrRefuse(cmd) == nullptr) return;
  static const char* kLines[] = {
      "CLUSTER <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "COUNTKEYSINSLOT <slot>",
      "    Return the number of keys in <slot>.",
      "GETKEYSINSLOT <slot> <count>",
      "    Return key names stored by current node in a slot.",
      "INFO",
      "    Return information about the cluster.",
      "KEYSLOT <key>",
      "    Return the hash slot for <key>.",
      "MYID",
      "    Return the node id.",
      "NODES",
      "    Return cluster configuration seen by node. Output format:",
      "    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
      "RELOAD",
      "    Read cluster-config-file again and serve the slot map it holds (ringcache).",
      "SLOTS",
      "    Return information about slots range mappings. Each range is made of:",
      "    start, end, master and replicas IP addresses, ports and ids",
      "SHARDS",
      "    Return information about slot range mappings and the nodes associated with them.",
      "HELP",
      "    Prints this help.",
  };
  cmd.reply.HelpLines(kLines);
}

void ClusterInfo(CoordCmd& cmd) {
  const ClusterMap* map = MapOrRefuse(cmd);
  if (map == nullptr) return;
  const size_t assigned = map->assigned_slots();
  size_t masters = 0;
  for (const ClusterNode& n : map->nodes()) masters += !n.slots.empty();
  const ClusterNode* me = MyNode(*map, cmd);
  const int64_t my_epoch = me != nullptr ? (me - map->nodes().data()) + 1 : 0;
  // No gossip bus: the message counters stay 0.
  std::string text = StrCat(
      "cluster_state:", assigned == kNumKeySlots ? "ok" : "fail", "\r\n",
      "cluster_slots_assigned:", assigned, "\r\n", "cluster_slots_ok:", assigned, "\r\n",
      "cluster_slots_pfail:0\r\n", "cluster_slots_fail:0\r\n",
      "cluster_known_nodes:", map->nodes().size(), "\r\n", "cluster_size:", masters, "\r\n",
      "cluster_current_epoch:", std::max<uint64_t>(map->nodes().size(), cmd.server.cluster.epoch()),
      "\r\n", "cluster_my_epoch:", my_epoch, "\r\n", "cluster_stats_messages_sent:0\r\n",
      "cluster_stats_messages_received:0\r\n", "total_cluster_links_buffer_limit_exceeded:0\r\n");
  cmd.reply.Verbatim(text);
}

void MyId(CoordCmd& cmd) {
  const ClusterMap* map = MapOrRefuse(cmd);
  if (map == nullptr) return;
  const ClusterNode* me = MyNode(*map, cmd);
  cmd.reply.Bulk(me != nullptr ? std::string_view(me->id) : std::string_view());
}

// Every (range, node) pair, by first slot, as Redis walks its slot table.
std::vector<std::pair<SlotRange, const ClusterNode*>> RangesBySlot(const ClusterMap& map) {
  std::vector<std::pair<SlotRange, const ClusterNode*>> out;
  for (const ClusterNode& n : map.nodes()) {
    for (const SlotRange& r : n.slots) out.emplace_back(r, &n);
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.first.first < b.first.first; });
  return out;
}

void Slots(CoordCmd& cmd) {
  const ClusterMap* map = MapOrRefuse(cmd);
  if (map == nullptr) return;
  ReplyBuilder& rb = cmd.reply;
  const auto ranges = RangesBySlot(*map);
  rb.ArrayLen(ranges.size());
  for (const auto& [range, node] : ranges) {
    // Start, end and port are integers (memtier reads them as such), then the node's id
    // and an empty map of further endpoint details, as Redis 7.0.
    rb.ArrayLen(3);
    rb.Integer(range.first);
    rb.Integer(range.last);
    rb.ArrayLen(4);
    rb.Bulk(node->ip);
    rb.Integer(node->port);
    rb.Bulk(node->id);
    rb.MapLen(0);
  }
}

void Shards(CoordCmd& cmd) {
  const ClusterMap* map = MapOrRefuse(cmd);
  if (map == nullptr) return;
  ReplyBuilder& rb = cmd.reply;
  rb.ArrayLen(map->nodes().size());
  for (const ClusterNode& n : map->nodes()) {
    rb.MapLen(2);
    rb.Bulk("slots");
    rb.ArrayLen(n.slots.size() * 2);
    for (const SlotRange& r : n.slots) {
      rb.Integer(r.first);
      rb.Integer(r.last);
    }
    rb.Bulk("nodes");
    rb.ArrayLen(1);
    rb.MapLen(7);
    rb.Bulk("id");
    rb.Bulk(n.id);
    rb.Bulk("port");
    rb.Integer(n.port);
    rb.Bulk("ip");
    rb.Bulk(n.ip);
    rb.Bulk("endpoint");
    rb.Bulk(n.ip);
    rb.Bulk("role");
    rb.Bulk("master");
    rb.Bulk("replication-offset");
    rb.Integer(0);
    rb.Bulk("health");
    rb.Bulk("online");
  }
}

void Nodes(CoordCmd& cmd) {
  const ClusterMap* map = MapOrRefuse(cmd);
  if (map == nullptr) return;
  const ClusterNode* me = MyNode(*map, cmd);
  const int64_t now_ms = cmd.server.clock->NowUnixMillis();
  std::string text;
  for (size_t i = 0; i < map->nodes().size(); ++i) {
    const ClusterNode& n = map->nodes()[i];
    // Redis's line: id ip:port@bus-port flags master ping-sent pong-received config-epoch
    // link-state slots. There is no bus; its port is shown as Redis derives it.
    const int bus_port = n.port + 10000 <= 65535 ? n.port + 10000 : 0;
    StrAppend(&text, n.id, " ", n.ip, ":", n.port, "@", bus_port, " ",
              &n == me ? "myself,master" : "master", " - 0 ", now_ms, " ", i + 1, " connected",
              n.slots.empty() ? "" : " ", FormatSlotRanges(n.slots), "\n");
  }
  cmd.reply.Verbatim(text);
}

void KeySlotCmd(CoordCmd& cmd) {
  if (MapOrRefuse(cmd) == nullptr) return;
  cmd.reply.Integer(KeySlot(cmd.args[2]));
}

// The count of `slot`'s keys this connection's node holds and up to `limit` of their
// names, from the owning shard: the count is the shard's (O(1)); the names come from a
// walk of its table that stops once it has `limit` of them or all the slot holds, so
// only a slot's last keys cost a walk of the whole shard (docs/CLUSTER.md, "Keys per
// slot"). Expired keys not yet reclaimed are in both, as in Redis.
template <typename Reply>
void KeysInSlot(CoordCmd& cmd, uint16_t slot, int64_t limit, Reply reply) {
  const uint32_t shard = cmd.shards.ShardOfSlot(slot);
  if (cmd.client.node_shard >= 0 && uint32_t(cmd.client.node_shard) != shard) {
    std::vector<std::string> none;
    return reply(cmd.reply, 0, none);
  }
  DeferredReply out(cmd);
  struct Found {
    int64_t count = 0;
    std::vector<std::string> keys;
  };
  FanOut<Found>(
      cmd.self, cmd.shards, {shard},
      [slot, limit](Shard& s, size_t) {
        Found f;
        f.count = s.KeysInSlot(slot);
        const size_t want = size_t(std::min(limit, f.count));
        if (want == 0) return f;
        f.keys.reserve(want);
        s.table().ForEachWhile([&](const Entry* e) {
          if (KeySlot(e->key()) == slot) f.keys.emplace_back(e->key());
          return f.keys.size() < want;
        });
        return f;
      },
      [out, reply](std::vector<Found>& found) {
        out.Send([&](ReplyBuilder& rb) { reply(rb, found[0].count, found[0].keys); });
      });
}

void CountKeysInSlot(CoordCmd& cmd) {
  if (MapOrRefuse(cmd) == nullptr) return;
  int64_t slot;
  if (!ParseInt64(cmd.args[2], &slot)) return cmd.reply.Error(err::kNotInteger);
  if (slot < 0 || slot >= kNumKeySlots) return cmd.reply.Error("ERR Invalid slot");
  KeysInSlot(
      cmd, uint16_t(slot), 0,
      [](ReplyBuilder& rb, int64_t count, const std::vector<std::string>&) { rb.Integer(count); });
}

void GetKeysInSlot(CoordCmd& cmd) {
  if (MapOrRefuse(cmd) == nullptr) return;
  int64_t slot, count;
  if (!ParseInt64(cmd.args[2], &slot) || !ParseInt64(cmd.args[3], &count)) {
    return cmd.reply.Error(err::kNotInteger);
  }
  if (slot < 0 || slot >= kNumKeySlots || count < 0) {
    return cmd.reply.Error("ERR Invalid slot or number of keys");
  }
  if (count == 0) return cmd.reply.ArrayLen(0);
  KeysInSlot(cmd, uint16_t(slot), count,
             [](ReplyBuilder& rb, int64_t, const std::vector<std::string>& keys) {
               rb.ArrayLen(keys.size());
               for (const std::string& k : keys) rb.Bulk(k);
             });
}

void Reload(CoordCmd& cmd) {
  if (MapOrRefuse(cmd) == nullptr) return;
  std::string path, ip;
  {
    std::lock_guard<std::mutex> lock(cmd.server.config_mu);
    path = cmd.server.config.cluster_config_file;
    ip = AnnouncedIp(cmd.server.config);
  }
  if (path.empty()) {
    return cmd.reply.Error("ERR no cluster-config-file: the threads' map has nothing to reload");
  }
  std::string error;
  std::unique_ptr<ClusterMap> map = LoadClusterMap(path, ip, cmd.server.bound_port, &error);
  if (map == nullptr) return cmd.reply.Error(StrCat("ERR ", error));
  cmd.server.cluster.Publish(std::move(map));
  cmd.reply.Ok();
}

// READONLY, READWRITE, ASKING: there are no replicas and no slot moves yet, so each is
// only acknowledged (in cluster mode; refused as Redis without cluster support does).
void Acknowledge(CoordCmd& cmd) {
  if (MapOrRefuse(cmd) == nullptr) return;
  cmd.reply.Ok();
}

}  // namespace

void RegisterClusterCommands(CommandTable& t) {
  t.StartFamily().Add(
      {.name = "cluster",
       .arity = -2,
       .subcommands = {
           {.name = "help", .arity = 2, .flags = kHelpFlags, .on_coord = ClusterHelp},
           {.name = "info", .arity = 2, .flags = kCmdStale, .on_coord = ClusterInfo},
           {.name = "myid", .arity = 2, .flags = kCmdStale, .on_coord = MyId},
           {.name = "slots", .arity = 2, .flags = kCmdStale, .on_coord = Slots},
           {.name = "shards", .arity = 2, .flags = kCmdStale, .on_coord = Shards},
           {.name = "nodes", .arity = 2, .flags = kCmdStale, .on_coord = Nodes},
           {.name = "keyslot", .arity = 3, .flags = kCmdStale, .on_coord = KeySlotCmd},
           {.name = "countkeysinslot",
            .arity = 3,
            .flags = kCmdStale | kCmdAllThreads,
            .on_coord = CountKeysInSlot},
           {.name = "getkeysinslot",
            .arity = 4,
            .flags = kCmdStale | kCmdAllThreads,
            .on_coord = GetKeysInSlot},
           {.name = "reload", .arity = 2, .flags = kCmdAdmin | kCmdStale, .on_coord = Reload},
       }});
  CommandTable::Family f = t.StartFamily("@connection");
  f.Add({.name = "readonly",
         .arity = 1,
         .flags = kCmdLoading | kCmdStale | kCmdFast,
         .on_coord = Acknowledge});
  f.Add({.name = "readwrite",
         .arity = 1,
         .flags = kCmdLoading | kCmdStale | kCmdFast,
         .on_coord = Acknowledge});
  f.Add({.name = "asking", .arity = 1, .flags = kCmdFast, .on_coord = Acknowledge});
}

}  // namespace rc
