#pragma once
// The command table: one row per command and one per subcommand, in Redis's shape (name,
// arity, flags, key positions), so arity, key extraction and routing are checked in one
// place and COMMAND can answer truthfully. Each command family registers its rows from
// its own file, in one Register...Commands function:
//
//   CommandTable::Family f = t.StartFamily("@sortedset");
//   f.Add({.name = "zcard", .arity = 2, .flags = kCmdReadOnly | kCmdFast,
//          .keys = {1, 1, 1}, .on_shard = ZCard});
//   t.StartFamily().Add({.name = "config", .arity = -2, .flags = ...,
//                        .subcommands = {{.name = "get", .arity = -3, .flags = ...,
//                                         .on_coord = ConfigGet}, ...}});

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
  // EXEC (internal): shows itself to MONITOR after the commands it ran, and a CLIENT PAUSE
  // WRITE holds it when they write.
  kCmdExec = 1 << 17,
  // Redis's skip_monitor (EVAL): shown to MONITOR before it runs rather than after, so
  // the commands a script calls follow it.
  kCmdSkipMonitor = 1 << 18,
  // Redis's no_mandatory_keys (EVAL with numkeys 0).
  kCmdNoMandatoryKeys = 1 << 19,
  // Redis's blocking: may wait for a key (BLPOP, BZPOPMIN). Runs as its on_coord handler,
  // which blocks; EXEC runs its on_shard one, the non-blocking form, when it can.
  kCmdBlocking = 1 << 20,
  // Changes server-wide state that commands on other threads read (FUNCTION LOAD, DELETE,
  // FLUSH, RESTORE; SCRIPT FLUSH): runs only once the connection's earlier commands have
  // answered, so none that came before it sees the change (internal).
  kCmdAfterEarlier = 1 << 21,
  // Keyless, but runs a step on every thread (INFO, CLIENT LIST, PUBLISH): while some
  // thread's script is busy it answers -BUSY rather than wait for that thread
  // (shard/command/busy_refusal.h; internal).
  kCmdAllThreads = 1 << 22,
  // Redis's movablekeys for a row whose coordinator finds keys beyond its triple
  // (MIGRATE ... KEYS); a numkeys_index row says it without this.
  kCmdMovableKeys = 1 << 23,
  // Redis's asking (RESTORE-ASKING): COMMAND shows it; ringcache's cluster mode moves no
  // slots, so nothing else reads it.
  kCmdAsking = 1 << 24,
  // Redis's no_async_loading (SAVE, BGSAVE): COMMAND shows it; ringcache loads its file
  // before it serves, so nothing else reads it.
  kCmdNoAsyncLoading = 1 << 25,
};

// What Redis marks every container's HELP subcommand: allowed while loading and stale.
inline constexpr uint32_t kHelpFlags = kCmdLoading | kCmdStale;

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
// Runs on the connection's thread before a command leaves for its shard; it may not
// answer. What it records is in place for every later command of the connection, whichever
// thread runs that one first (EVAL registers its script for an EVALSHA behind it).
using PrepareHandler = void (*)(ShardThread& self, ServerState& server, ArgList args);
// The positions of an invocation's keys, in order; false when it names none that can be
// named (then *out is empty).
using KeyFinder = bool (*)(ArgList args, std::vector<size_t>* out);

// Where a row's keys are, as Redis's legacy triple: arguments `first` to `last` every
// `step`; a negative `last` counts from the end (-1: the last argument). {}: no keys.
struct KeyRange {
  int first = 0;
  int last = 0;
  int step = 0;
  bool none() const { return first <= 0; }
};

// The key positions of one invocation: first, first + step, ... up to last, so
// `for (size_t i = s.first; i <= s.last; i += s.step)` visits them. Empty (last < first)
// when the invocation names no key.
struct KeySpan {
  uint32_t first = 1;
  uint32_t last = 0;
  uint32_t step = 1;
  bool empty() const { return last < first; }
  // Positions of `range`'s keys among `argc` arguments.
  static KeySpan Of(const KeyRange& range, size_t argc) {
    if (range.none() || size_t(range.first) >= argc) return {};
    int64_t last = range.last < 0 ? int64_t(argc) + range.last : range.last;
    if (last >= int64_t(argc)) last = int64_t(argc) - 1;
    if (last < range.first) return {};
    return {uint32_t(range.first), uint32_t(last), uint32_t(range.step)};
  }
};

// One row of the command table: a command, or one subcommand of a container (CONFIG GET
// is the row "get" among CONFIG's `subcommands`, as Redis's commands.def has CONFIG|GET).
// A family declares the fields up to `subcommands`; the table fills in the rest.
struct CommandSpec {
  std::string name;  // lower case, as COMMAND reports it; a subcommand's own ("get")
  // N: exactly N arguments including the name (a subcommand's count its container's
  // name too); -N: at least N.
  int arity = 0;
  uint32_t flags = 0;
  KeyRange keys = {};
  // Runs on the owning shard when every key maps to one shard.
  ShardHandler on_shard = nullptr;
  // Runs on the connection's thread: keyless commands, and keyed ones spanning shards.
  CoordHandler on_coord = nullptr;
  // Runs before on_shard, on the connection's thread, when the dispatcher sends it to a
  // shard (PrepareHandler).
  PrepareHandler prepare = nullptr;
  // Movable keys (ZUNIONSTORE, ZUNION, ...): the argument that counts the keys right after
  // it, 0 for none. The cluster and busy-script checks, scripts' key checks and COMMAND
  // GETKEYS read the keys it counts (AllKeyPositions); those rows' coordinators find their
  // own.
  int numkeys_index = 0;
  // Movable keys found by a rule of the row's own (Redis's getkeys_proc: MIGRATE's KEYS
  // form), read wherever numkeys_index's are. Null: the triple and numkeys_index say.
  KeyFinder find_keys = nullptr;
  // ACL categories for COMMAND INFO beyond those its family (for a subcommand: its
  // container) has and its flags imply, e.g. KEYS's "@dangerous".
  std::vector<std::string> categories = {};
  // A container's subcommands, each a row of its own with its arity, flags, keys,
  // categories, handler and statistics. The dispatcher looks args[1] up among them once
  // and runs that row; unknown ones and wrong arity get Redis's texts, naming the
  // subcommand "config|get". A container has no handler unless Redis runs it bare too
  // (COMMAND); otherwise its arity refuses a bare call.
  std::vector<CommandSpec> subcommands = {};

  // Filled in by the table.
  std::string full_name = {};  // "get", "config|get": errors, INFO commandstats, CLIENT LIST
  uint32_t stat_id = 0;        // its slot in each thread's CommandStats (command_stats.h)

  // The subcommand named `sub` (case-insensitive), or nullptr.
  const CommandSpec* FindSubcommand(std::string_view sub) const;

  bool ArityOk(size_t argc) const {
    return arity >= 0 ? argc == size_t(arity) : argc >= size_t(-arity);
  }
  // Positions of key arguments in an invocation of `argc` arguments.
  KeySpan KeysIn(size_t argc) const { return KeySpan::Of(keys, argc); }
  // A row whose keys are the `numkeys_index` count of arguments after it (EVAL) and that
  // runs on their shard when they share one: routed by KeysFor.
  bool CountedKeys() const { return keys.none() && numkeys_index > 0 && on_shard != nullptr; }
  // Positions of the keys of this invocation: the triple's, or a CountedKeys row's
  // counted ones (none when the count is not a valid one: the handler answers that).
  KeySpan KeysFor(ArgList args) const {
    return CountedKeys() ? CountedKeysIn(args) : KeysIn(args.size());
  }
  // The key arguments themselves.
  std::vector<std::string_view> KeysOf(ArgList args) const;
  // COMMAND GETKEYS: every key position, those counted by numkeys too; false (and none)
  // when numkeys does not count keys that are there, as Redis's genericGetKeys.
  bool AllKeyPositions(ArgList args, std::vector<size_t>* out) const;

 private:
  KeySpan CountedKeysIn(ArgList args) const;
};

class CommandTable {
 public:
  // Registers one family's rows, giving each the family's ACL category, so a family says
  // it once (Dragonfly's StartFamily; the example atop this file).
  class Family {
   public:
    // Adds the row, and its subcommands, in this family's category (none for a family
    // started without one). Aborts on a duplicate name or on a row that could not be
    // routed: no handler, or keys that may span shards without a coordinator handler.
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
  // slots_ points at the rows: the table moves (its deque keeps them in place), never
  // copies.
  CommandTable(CommandTable&&) = default;
  CommandTable(const CommandTable&) = delete;
  CommandTable& operator=(const CommandTable&) = delete;

  // Case-insensitive lookup; nullptr for unknown names. Runs for every request, so it
  // neither copies nor lower-cases the name: a case-folding hash into an open-addressed
  // array, then one case-insensitive compare.
  const CommandSpec* Find(std::string_view name) const;
  // The row `args` runs: its command's, or for a container called with a subcommand the
  // subcommand's own; nullptr for unknown names. Arity is not checked.
  const CommandSpec* Resolve(ArgList args) const {
    const CommandSpec* spec = Find(args[0]);
    if (spec == nullptr || spec->subcommands.empty() || args.size() < 2) return spec;
    return spec->FindSubcommand(args[1]);
  }
  // Commands (containers count once, as COMMAND COUNT counts them).
  size_t size() const { return specs_.size(); }
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (const auto& spec : specs_) fn(spec);
  }
  // Numbers every command and subcommand for per-command statistics; called once the
  // table is complete (BuildCommandTable). stat_names()[id] is the row's full name.
  void AssignStatIds();
  const std::vector<std::string>& stat_names() const { return stat_names_; }
  // The stat id of "get" / "config|get" (lower case), or -1.
  int64_t FindStatId(std::string_view full_name) const;

 private:
  static constexpr size_t kSlots = 1024;  // power of two, well above the command count
  static size_t Slot(std::string_view name);
  void Add(CommandSpec spec);
  // Aborts unless the dispatcher can run every invocation `spec` accepts.
  static void CheckRoutable(const CommandSpec& spec);

  std::deque<CommandSpec> specs_;  // stable addresses, survives moves
  std::array<const CommandSpec*, kSlots> slots_{};
  std::vector<std::string> stat_names_;
};

}  // namespace rc
