// OBJECT ENCODING / FREQ / IDLETIME / REFCOUNT / HELP. Runs on the key's shard. ringcache
// stores values its own way, so ENCODING answers what Redis would report for the same
// value (clients and test suites branch on it): each type says how in core/value.h.

#include "core/entry.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/dispatcher.h"
#include "shard/runtime/shard.h"

namespace rc {

namespace {

void Object(ShardCmd& cmd) {
  std::string sub = ToLower(cmd.args[1]);
  Entry* e = cmd.shard.Find(cmd.args[2]);
  if (e == nullptr) return cmd.reply.NullBulk();
  if (sub == "encoding") return cmd.reply.Bulk(EncodingOf(*e));
  if (sub == "refcount") {
    // Redis shares the objects of the integers 0..9999 (OBJ_SHARED_REFCOUNT).
    int64_t v;
    bool shared =
        e->type() == ValueType::kString && ParseInt64(e->str(), &v) && v >= 0 && v < 10000;
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
  CommandSpec object{.name = "object",
                     .arity = -2,
                     .flags = kCmdReadOnly,
                     .keys = {2, 2, 1},
                     .on_shard = Object,
                     .on_coord = ObjectHelp};
  object.subcommands = {
      {"encoding", 3}, {"freq", 3}, {"idletime", 3}, {"refcount", 3}, {"help", 2}};
  for (int i = 0; i < 4; ++i) object.sub_info.push_back({kCmdReadOnly, false, {"@keyspace"}});
  object.sub_info.push_back({kCmdLoading | kCmdStale, true, {"@keyspace"}});
  t.StartFamily("@keyspace").Add(std::move(object));
}

}  // namespace rc
