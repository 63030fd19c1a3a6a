#pragma once
// The command table: one row per command, in Redis's shape (name, arity, flags, key
// positions), so arity, key extraction and routing are checked in one place and COMMAND
// can answer truthfully. Each command family registers its rows from its own file.

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "core/reply_builder.h"

namespace rc {

class Shard;
class ShardThread;
class ShardSet;
class ReplySink;
class CommandTable;
struct ClientState;
struct ServerState;

using ArgList = absl::Span<const std::string_view>;

enum CmdFlag : uint32_t {
  kCmdWrite = 1 << 0,
  kCmdReadOnly = 1 << 1,
  kCmdDenyOom = 1 << 2,
  kCmdFast = 1 << 3,
  kCmdAdmin = 1 << 4,
  kCmdNoScript = 1 << 5,
  kCmdLoading = 1 << 6,
  kCmdStale = 1 << 7,
  kCmdNoAuth = 1 << 8,
  kCmdPubSub = 1 << 9,
  kCmdNoMulti = 1 << 10,
  // Allowed while a RESP2 client is subscribed (ringcache-internal; COMMAND omits it).
  kCmdSubscribeOk = 1 << 11,
  kCmdAllowBusy = 1 << 12,
  kCmdSkipSlowlog = 1 << 13,
  // Runs at once between MULTI and EXEC instead of being queued (internal).
  kCmdNotQueued = 1 << 14,
  // Keyless, but waits for the client's multi-shard commands still taking locks, as
  // keyspace-wide commands do (EXEC; internal).
  kCmdWaitsForLocks = 1 << 15,
  // Redis's may-replicate (PUBLISH): refused to MONITOR clients like writes (internal;
  // Redis 7.0's COMMAND does not list it either).
  kCmdMayReplicate = 1 << 16,
};

// A command running on the thread that owns every key it names. Runs on that shard's
// thread, which may not be the connection's: it sees no client state, only its shard.
struct ShardCmd {
  Shard& shard;
  ArgList args;
  ReplyBuilder& reply;
  const ServerState& server;
};

// A command running on the connection's thread: connection and server commands, and
// commands whose keys live on several shards (they fan out; see fanout.h).
struct CoordCmd {
  ShardThread& self;
  ShardSet& shards;
  ServerState& server;
  ClientState& client;
  ReplySink& sink;
  const CommandTable& table;
  ArgList args;
  ReplyBuilder& reply;
};

using ShardHandler = void (*)(ShardCmd&);
using CoordHandler = void (*)(CoordCmd&);

// Where a row's keys are, as Redis's legacy triple: arguments `first` to `last` every
// `step`; a negative `last` counts from the end (-1: the last argument). {}: no keys.
struct KeyRange {
  int first = 0;
  int last = 0;
  int step = 0;
  bool none() const { return first <= 0; }
};

// One row of the command table, declared with named fields by its family:
//
//   f.Add({.name = "zadd", .arity = -4, .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
//          .keys = {1, 1, 1}, .on_shard = ZAdd});
//
// The fields after `subcommands` are filled in by the table.
struct CommandSpec {
  std::string name;  // lower case, as COMMAND reports it
  int arity = 0;     // N: exactly N arguments including the name; -N: at least N
  uint32_t flags = 0;
  KeyRange keys = {};
  // Runs on the owning shard when every key maps to one shard.
  ShardHandler on_shard = nullptr;
  // Runs on the connection's thread: keyless commands, and keyed ones spanning shards.
  CoordHandler on_coord = nullptr;
  // Movable keys (ZUNIONSTORE, ZUNION, ...): the argument that counts the keys right after
  // it, 0 for none. Only COMMAND reads it: those rows' coordinators find their own keys.
  int numkeys_index = 0;
  // ACL categories for COMMAND INFO beyond the family's, e.g. KEYS's "@dangerous".
  std::vector<std::string> categories = {};
  // Container commands (CONFIG, CLIENT, ...): each subcommand's lower-case name and
  // arity (counting the container's name). The dispatcher refuses unknown subcommands and
  // wrong arity with Redis's texts, naming them "config|get" as Redis does.
  std::vector<std::pair<std::string, int>> subcommands = {};

  // What COMMAND INFO reports for a subcommand whose flags, keys or categories differ from
  // the row's (Redis has them per subcommand: CLIENT LIST is admin, CLIENT ID is not;
  // MEMORY USAGE names a key, MEMORY STATS none). Indexed like `subcommands`; rows that
  // leave it empty report the row's for every subcommand. Routing still uses the row.
  struct SubcommandInfo {
    uint32_t flags = 0;
    bool keyless = false;
    std::vector<std::string> categories = {};
  };
  std::vector<SubcommandInfo> sub_info = {};

  // Slots in each thread's CommandStats (shard/command_stats.h): the command's, and one
  // per subcommand in `subcommands` order. Assigned by CommandTable::AssignStatIds.
  uint32_t stat_id = 0;
  std::vector<uint32_t> sub_stat_ids = {};

  // Index of args[1] among `subcommands` (case-insensitive), or -1.
  int FindSubcommand(std::string_view sub) const;
  // The stat id of this invocation: its subcommand's, else the row's.
  uint32_t StatIdFor(ArgList args) const {
    int sub = args.size() >= 2 && !subcommands.empty() ? FindSubcommand(args[1]) : -1;
    return sub >= 0 ? sub_stat_ids[size_t(sub)] : stat_id;
  }

  // The name Redis reports for this invocation: "get", or "config|get".
  std::string FullName(ArgList args) const;

  bool ArityOk(size_t argc) const {
    return arity >= 0 ? argc == size_t(arity) : argc >= size_t(-arity);
  }
  // Positions of key arguments in `args`; empty when the command names none.
  void KeyPositions(size_t argc, std::vector<size_t>* out) const;
  // The key arguments themselves.
  std::vector<std::string_view> KeysOf(ArgList args) const;
  // COMMAND GETKEYS: every key position, those counted by numkeys too; false (and none)
  // when numkeys does not count keys that are there, as Redis's genericGetKeys.
  bool AllKeyPositions(ArgList args, std::vector<size_t>* out) const;
};

class CommandTable {
 public:
  // Registers one family's rows, giving each the family's ACL category, so a family says
  // it once (Dragonfly's StartFamily):
  //
  //   CommandTable::Family f = t.StartFamily("@sortedset");
  //   f.Add({.name = "zcard", ...});
  class Family {
   public:
    // Adds the row in this family's category (none for a family started without one).
    // Aborts on a duplicate name or on a row that could not be routed: no handler, or
    // keys that may span shards without a coordinator handler.
    void Add(CommandSpec spec);

   private:
    friend class CommandTable;
    Family(CommandTable& table, std::string category)
        : table_(table), category_(std::move(category)) {}
    CommandTable& table_;
    std::string category_;
  };
  Family StartFamily(std::string category = {}) { return Family(*this, std::move(category)); }

  CommandTable() = default;
  // Rows point at each other: the table moves (its deque keeps them in place), never copies.
  CommandTable(CommandTable&&) = default;
  CommandTable(const CommandTable&) = delete;
  CommandTable& operator=(const CommandTable&) = delete;

  // Case-insensitive lookup; nullptr for unknown names. Runs for every request, so it
  // neither copies nor lower-cases the name: a case-folding hash into an open-addressed
  // array, then one case-insensitive compare.
  const CommandSpec* Find(std::string_view name) const;
  size_t size() const { return specs_.size(); }
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (const auto& spec : specs_) fn(spec);
  }
  // Numbers every command and subcommand for per-command statistics; called once the
  // table is complete (BuildCommandTable). stat_names()[id] is "get" or "config|get".
  void AssignStatIds();
  const std::vector<std::string>& stat_names() const { return stat_names_; }
  // The stat id of "get" / "config|get" (lower case), or -1.
  int64_t FindStatId(std::string_view full_name) const;

 private:
  static constexpr size_t kSlots = 1024;  // power of two, well above the command count
  static size_t Slot(std::string_view name);
  void Add(CommandSpec spec);

  std::deque<CommandSpec> specs_;  // stable addresses, survives moves
  std::array<const CommandSpec*, kSlots> slots_{};
  std::vector<std::string> stat_names_;
};

}  // namespace rc
