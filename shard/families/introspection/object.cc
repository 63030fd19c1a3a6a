// OBJECT ENCODING / FREQ / IDLETIME / REFCOUNT / HELP. Runs on the key's shard. ringcache
// stores values its own way, so ENCODING answers what Redis would report for the same
// value (clients and test suites branch on it); see docs/ARCHITECTURE.md.

#include "core/entry.h"
#include "core/strings.h"
#include "core/zset.h"
#include "shard/command/dispatcher.h"
#include "shard/runtime/shard.h"

namespace rc {

namespace {

// Redis's string2l: what a string must look like to be stored as a shared or int object
// (no sign but '-', no leading zeros, no "-0", fits a long).
bool RedisInteger(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  if (s[i] == '0') {
    if (s.size() != 1) return false;  // "0" alone; not "01" nor "-0"
    *out = 0;
    return true;
  }
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    if (v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + uint64_t(s[i] - '0');
  }
  bool neg = s[0] == '-';
  if (neg ? v > uint64_t(INT64_MAX) + 1 : v > uint64_t(INT64_MAX)) return false;
  *out = neg ? int64_t(0 - v) : int64_t(v);
  return true;
}

// Redis 7.0's encodings: strings int / embstr (≤ 44 bytes) / raw; sorted sets listpack
// while ≤ 128 members of ≤ 64 bytes (zset-max-listpack-*), else skiplist, which ZSet
// mirrors with its compact encoding (kept as skiplist after a shrink, as in Redis).
// APPEND/SETRANGE make a Redis string raw; ringcache judges a string as it is now.
std::string_view Encoding(const Entry& e) {
  if (e.type() == ValueType::kZSet) {
    const ZSet* z = e.zset();
    return z != nullptr && z->compact() ? "listpack" : "skiplist";
  }
  int64_t v;
  if (RedisInteger(e.str(), &v)) return "int";
  return e.str().size() <= 44 ? "embstr" : "raw";
}

void Object(ShardCmd& cmd) {
  std::string sub = ToLower(cmd.args[1]);
  Entry* e = cmd.shard.Find(cmd.args[2]);
  if (e == nullptr) return cmd.reply.NullBulk();
  if (sub == "encoding") return cmd.reply.Bulk(Encoding(*e));
  if (sub == "refcount") {
    // Redis shares the objects of the integers 0..9999 (OBJ_SHARED_REFCOUNT).
    int64_t v;
    bool shared =
        e->type() != ValueType::kZSet && RedisInteger(e->str(), &v) && v >= 0 && v < 10000;
    return cmd.reply.Integer(shared ? INT32_MAX : 1);
  }
  if (sub == "idletime") {
    // Entries carry no access time (core/entry.h has no room to spare): always 0.
    return cmd.reply.Integer(0);
  }
  // FREQ: no LFU policy exists here, so Redis's answer without one.
  cmd.reply.Error(
      "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note "
      "that when switching between policies at runtime LRU and LFU data will take some time "
      "to adjust.");
}

void ObjectHelp(CoordCmd& cmd) {
  static const char* kLines[] = {
      "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "ENCODING <key>",
      "    Return the kind of internal representation used in order to store the value",
      "    associated with a <key>.",
      "FREQ <key>",
      "    Return the access frequency index of the <key>. The returned integer is",
      "    proportional to the logarithm of the recent access frequency of the key.",
      "IDLETIME <key>",
      "    Return the idle time of the <key>, that is the approximated number of",
      "    seconds elapsed since the last access to the key.",
      "REFCOUNT <key>",
      "    Return the number of references of the value associated with the specified",
      "    <key>.",
      "HELP",
      "    Prints this help.",
  };
  cmd.reply.HelpLines(kLines);
}

}  // namespace

void RegisterObjectCommands(CommandTable& t) {
  // Key at argument 2; OBJECT HELP has none and runs on the connection's thread.
  CommandSpec& object =
      t.Add(CommandSpec{"object", -2, kCmdReadOnly, 2, 2, 1, Object, ObjectHelp, {"@keyspace"}});
  object.subcommands = {
      {"encoding", 3}, {"freq", 3}, {"idletime", 3}, {"refcount", 3}, {"help", 2}};
  for (int i = 0; i < 4; ++i) object.sub_info.push_back({kCmdReadOnly, false, {"@keyspace"}});
  object.sub_info.push_back({kCmdLoading | kCmdStale, true, {"@keyspace"}});
}

}  // namespace rc
