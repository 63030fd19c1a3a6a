#include "shard/state/cluster_map.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "core/json.h"
#include "core/strings.h"

namespace rc {
namespace {

using Kind = JsonValue::Kind;

bool IsNodeId(std::string_view id) {
  return id.size() == 40 && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// Sorts and merges adjacent or overlapping ranges of one node.
void Normalize(std::vector<SlotRange>* ranges) {
  std::sort(ranges->begin(), ranges->end(),
            [](const SlotRange& a, const SlotRange& b) { return a.first < b.first; });
  std::vector<SlotRange> merged;
  for (const SlotRange& r : *ranges) {
    if (!merged.empty() && r.first <= merged.back().last + 1) {
      merged.back().last = std::max(merged.back().last, r.last);
    } else {
      merged.push_back(r);
    }
  }
  *ranges = std::move(merged);
}

// A slot or [first, last] pair of the file, range-checked.
bool ParseRange(const JsonValue& v, SlotRange* out) {
  auto slot = [](const JsonValue& s, uint16_t* to) {
    if (!s.is(Kind::kInt) || s.integer < 0 || s.integer >= kNumKeySlots) return false;
    *to = uint16_t(s.integer);
    return true;
  };
  if (v.is(Kind::kInt)) return slot(v, &out->first) && slot(v, &out->last);
  return v.is(Kind::kArray) && v.array.size() == 2 && slot(v.array[0], &out->first) &&
         slot(v.array[1], &out->last) && out->first <= out->last;
}

bool ParseNode(const JsonValue& v, size_t index, ClusterNode* node, std::string* error) {
  const std::string where = StrCat("node ", index, ": ");
  if (!v.is(Kind::kObject)) {
    *error = where + "not an object";
    return false;
  }
  const JsonValue* ip = v.Find("ip");
  const JsonValue* port = v.Find("port");
  if (ip == nullptr || !ip->is(Kind::kString) || ip->string.empty()) {
    *error = where + "\"ip\" must be a non-empty string";
    return false;
  }
  if (port == nullptr || !port->is(Kind::kInt) || port->integer <= 0 || port->integer > 65535) {
    *error = where + "\"port\" must be an integer in 1..65535";
    return false;
  }
  node->ip = ip->string;
  node->port = int(port->integer);
  if (const JsonValue* id = v.Find("id")) {
    if (!id->is(Kind::kString) || !IsNodeId(id->string)) {
      *error = where + "\"id\" must be 40 lower-case hex digits";
      return false;
    }
    node->id = id->string;
  } else {
    node->id = StableNodeId(node->ip, node->port);
  }
  const JsonValue* slots = v.Find("slots");
  if (slots == nullptr || !slots->is(Kind::kArray)) {
    *error = where + "\"slots\" must be an array of slots or [first, last] ranges";
    return false;
  }
  for (const JsonValue& s : slots->array) {
    SlotRange r;
    if (!ParseRange(s, &r)) {
      *error = where + "a slot range is not a slot or [first, last] within 0..16383";
      return false;
    }
    node->slots.push_back(r);
  }
  for (const auto& [name, value] : v.object) {
    if (name != "id" && name != "ip" && name != "port" && name != "slots") {
      *error = StrCat(where, "unknown member \"", name, "\"");
      return false;
    }
  }
  Normalize(&node->slots);
  return true;
}

}  // namespace

std::string StableNodeId(std::string_view ip, int port) {
  // FNV-1a over the address, five times with different seeds: 40 hex digits that depend
  // only on the address.
  const std::string addr = StrCat(ip, ":", port);
  std::string id;
  for (uint64_t round = 0; id.size() < 40; ++round) {
    uint64_t h = 1469598103934665603ULL ^ (round * 0x9E3779B97F4A7C15ULL);
    for (unsigned char c : addr) h = (h ^ c) * 1099511628211ULL;
    for (int i = 0; i < 8 && id.size() < 40; ++i, h >>= 8) {
      id.push_back("0123456789abcdef"[(h >> 4) & 0xF]);
      id.push_back("0123456789abcdef"[h & 0xF]);
    }
  }
  return id;
}

std::string FormatSlotRanges(const std::vector<SlotRange>& ranges) {
  std::string out;
  for (const SlotRange& r : ranges) {
    if (!out.empty()) out.push_back(' ');
    if (r.first == r.last) {
      StrAppend(&out, r.first);
    } else {
      StrAppend(&out, r.first, "-", r.last);
    }
  }
  return out;
}

bool ClusterMap::Index(std::string* error) {
  owner_.fill(kNoNode);
  assigned_ = 0;
  for (size_t n = 0; n < nodes_.size(); ++n) {
    for (const SlotRange& r : nodes_[n].slots) {
      for (uint32_t s = r.first; s <= r.last; ++s) {
        if (owner_[s] != kNoNode) {
          *error =
              StrCat("slot ", s, " is owned by both ", nodes_[size_t(owner_[s])].ip, ":",
                     nodes_[size_t(owner_[s])].port, " and ", nodes_[n].ip, ":", nodes_[n].port);
          return false;
        }
        owner_[s] = int16_t(n);
        ++assigned_;
      }
    }
  }
  return true;
}

std::unique_ptr<ClusterMap> ClusterMap::FromJson(std::string_view text, std::string_view my_ip,
                                                 int my_port, std::string* error) {
  JsonValue doc;
  if (!ParseJson(text, &doc, error)) return nullptr;
  const JsonValue* nodes = doc.is(Kind::kObject) ? doc.Find("nodes") : nullptr;
  if (nodes == nullptr || !nodes->is(Kind::kArray) || nodes->array.empty()) {
    *error = "the map must be an object with a non-empty \"nodes\" array";
    return nullptr;
  }
  if (nodes->array.size() > size_t(INT16_MAX)) {
    *error = "too many nodes";
    return nullptr;
  }
  std::unique_ptr<ClusterMap> map(new ClusterMap());
  std::set<std::string> ids, addrs;
  for (size_t i = 0; i < nodes->array.size(); ++i) {
    ClusterNode node;
    if (!ParseNode(nodes->array[i], i, &node, error)) return nullptr;
    if (!ids.insert(node.id).second) {
      *error = StrCat("node ", i, ": id ", node.id, " is used twice");
      return nullptr;
    }
    if (!addrs.insert(StrCat(node.ip, ":", node.port)).second) {
      *error = StrCat("node ", i, ": address ", node.ip, ":", node.port, " is used twice");
      return nullptr;
    }
    node.local = node.ip == my_ip && node.port == my_port;
    map->nodes_.push_back(std::move(node));
  }
  if (!map->Index(error)) return nullptr;
  if (map->LocalNode(my_port) == nullptr) {
    *error = StrCat("this node (", my_ip, ":", my_port,
                    ") is not in the map; set cluster-announce-ip and port to one of its nodes");
    return nullptr;
  }
  return map;
}

std::unique_ptr<ClusterMap> ClusterMap::PerThread(
    std::string_view ip, const std::vector<int>& ports,
    const std::vector<std::vector<SlotRange>>& ranges) {
  std::unique_ptr<ClusterMap> map(new ClusterMap());
  for (size_t i = 0; i < ports.size(); ++i) {
    ClusterNode node{.id = StableNodeId(ip, ports[i]),
                     .ip = std::string(ip),
                     .port = ports[i],
                     .slots = ranges[i],
                     .local = true,
                     .shard = int32_t(i)};
    Normalize(&node.slots);
    map->nodes_.push_back(std::move(node));
  }
  std::string unused;
  map->Index(&unused);  // a shard's ranges never overlap another's
  return map;
}

std::unique_ptr<ClusterMap> LoadClusterMap(const std::string& path, std::string_view my_ip,
                                           int my_port, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = StrCat("cannot read cluster-config-file '", path, "'");
    return nullptr;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::unique_ptr<ClusterMap> map = ClusterMap::FromJson(text.str(), my_ip, my_port, error);
  if (map == nullptr) *error = StrCat(path, ": ", *error);
  return map;
}

std::string AnnouncedIp(const Config& config) {
  if (!config.cluster_announce_ip.empty()) return config.cluster_announce_ip;
  // The first address bound, unless it stands for every address of the host.
  for (const BindAddress& a : BindAddresses(config.bind)) {
    if (a.optional) continue;
    return a.host == "0.0.0.0" || a.host == "::" ? "127.0.0.1" : a.host;
  }
  return "127.0.0.1";
}

const ClusterNode* ClusterMap::LocalNode(int port) const {
  for (const ClusterNode& n : nodes_) {
    if (n.local && n.port == port) return &n;
  }
  return nullptr;
}

std::vector<bool> ClusterMap::LocalSlots() const {
  std::vector<bool> mine(kNumKeySlots, false);
  for (size_t s = 0; s < kNumKeySlots; ++s) {
    mine[s] = owner_[s] != kNoNode && nodes_[size_t(owner_[s])].local;
  }
  return mine;
}

}  // namespace rc
