// OBJECT ENCODING / FREQ / IDLETIME / REFCOUNT / HELP. Runs on the key's shard. ringcache
// stores values its own way, so ENCODING answers what Redis would report for the same
// value (clients and test suites branch on it): each type says how in core/value.h.

#include "core/entry.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/dispatcher.h"
#include "shard/runtime/shard.h"
#include "shard/state/server_state.h"

namespace rc {

namespace {

// OBJECT ENCODING / REFCOUNT / IDLETIME / FREQ: a missing key answers nil.
void Encoding(ShardCmd& cmd) {
  Entry* e = cmd.shard.Find(cmd.args[2]);
  if (e == nullptr) return cmd.reply.NullBulk();
  cmd.reply.Bulk(EncodingOf(*e));
}

void RefCount(ShardCmd& cmd) {
  Entry* e = cmd.shard.Find(cmd.args[2]);
  if (e == nullptr) return cmd.reply.NullBulk();
  // Redis shares the objects of the integers 0..9999 (OBJ_SHARED_REFCOUNT).
  int64_t v;
  bool shared = e->type() == ValueType::kString && ParseInt64(e->str(), &v) && v >= 0 && v < 10000;
  cmd.reply.Integer(shared ? INT32_MAX : 1);
}

// Redis's texts when the policy does not track what was asked.
constexpr std::string_view kNoIdleTime =
    "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
    "switching between policies at runtime LRU and LFU data will take some time to adjust.";
constexpr std::string_view kNoFreq =
    "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note "
    "that when switching between policies at runtime LRU and LFU data will take some time "
    "to adjust.";

// Approximations from the eviction state, which keeps no timestamps (docs/EVICTION.md).
void IdleTime(ShardCmd& cmd) {
  const Entry* e = cmd.shard.Find(cmd.args[2]);
  if (e == nullptr) return cmd.reply.NullBulk();
  if (LfuPolicy(cmd.server.config.maxmemory_policy)) return cmd.reply.Error(kNoIdleTime);
  cmd.reply.Integer(cmd.shard.evictor().IdleMillis(*e, cmd.shard.NowMs()) / 1000);
}

void Freq(ShardCmd& cmd) {
  const Entry* e = cmd.shard.Find(cmd.args[2]);
  if (e == nullptr) return cmd.reply.NullBulk();
  if (!LfuPolicy(cmd.server.config.maxmemory_policy)) return cmd.reply.Error(kNoFreq);
  cmd.reply.Integer(e->hits());
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
  const uint32_t kR = kCmdReadOnly;
  constexpr KeyRange kKey = {2, 2, 1};
  t.StartFamily("@keyspace")
      .Add({.name = "object",
            .arity = -2,
            .flags = kR,
            .subcommands = {
                {.name = "encoding", .arity = 3, .flags = kR, .keys = kKey, .on_shard = Encoding},
                {.name = "freq", .arity = 3, .flags = kR, .keys = kKey, .on_shard = Freq},
                {.name = "idletime", .arity = 3, .flags = kR, .keys = kKey, .on_shard = IdleTime},
                {.name = "refcount", .arity = 3, .flags = kR, .keys = kKey, .on_shard = RefCount},
                {.name = "help", .arity = 2, .flags = kHelpFlags, .on_coord = ObjectHelp},
            }});
}

}  // namespace rc
