#pragma once
// Per-connection state that commands read and change (CLIENT, SELECT, QUIT). Lives in
// the connection, on its thread.

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "shard/wire/owned_args.h"
#include "shard/wire/watch_state.h"

namespace rc {

struct CommandSpec;
class BlockedCall;

// A command queued between MULTI and EXEC, with its own copy of the arguments.
struct QueuedCommand {
  const CommandSpec* spec;  // the row it runs: a subcommand's own, or the command's
  std::unique_ptr<OwnedArgs> args;
};

struct MultiState {
  std::vector<QueuedCommand> queued;
  uint32_t flags = 0;  // every queued command's flags, ORed (Redis's mstate.cmd_flags)
  // A command was refused while queueing (unknown, wrong arity): EXEC answers EXECABORT.
  bool aborted = false;
  // On a cluster node port: the slot of the queued commands' keys (-1: none yet), and
  // whether two of them differ, which makes EXEC answer CROSSSLOT as Redis's does.
  int32_t slot = -1;
  bool cross_slot = false;
};

// Redis's multi-mem: the queued commands' argument bytes and argv pointers.
inline size_t MultiMem(const std::vector<QueuedCommand>& queued) {
  size_t bytes = 0;
  for (const QueuedCommand& q : queued) {
    for (std::string_view a : q.args->view()) bytes += a.size() + sizeof(void*);
  }
  return bytes;
}

// A client name, lib-name or lib-ver: Redis refuses what a CLIENT LIST line could not
// show unambiguously (spaces, control bytes).
inline bool ValidClientField(std::string_view s) {
  for (char c : s) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

struct ClientState {
  uint64_t id = 0;
  std::string name;
  std::string lib_name;
  std::string lib_ver;
  std::string addr;
  std::string laddr;
  // Whether a "no" | "yes" | "local" setting (enable-protected-configs,
  // enable-debug-command) lets this client in: "local" admits loopback, and no network
  // at all (a script's fake client).
  bool AdmittedBy(std::string_view mode) const {
    if (mode == "yes") return true;
    return mode == "local" &&
           (addr.rfind("127.", 0) == 0 || addr.rfind("[::1]", 0) == 0 ||
            addr.rfind("::1", 0) == 0 || addr.empty() || addr.rfind("/", 0) == 0);
  }
  int fd = -1;
  int64_t created_ms = 0;
  // HELLO 3: replies use RESP3's types (maps, doubles, nulls, pushes).
  bool resp3 = false;
  // Passed AUTH, or connected while no password was set (shard/auth.h).
  bool authenticated = false;
  // Set by QUIT: close once the reply has been written.
  bool close_after_reply = false;
  // Stat id of the last command dispatched (CLIENT LIST's cmd=), -1 before any.
  int64_t last_cmd = -1;
  bool no_evict = false;  // CLIENT NO-EVICT; shown as flag 'e'
  bool monitor = false;   // MONITOR; shown as flag 'O'
  // The master's stream on a replica (shard/persist/stream_applier.h): obeyed whatever
  // refuses clients' writes (READONLY, OOM, MISCONF), as Redis obeys its master.
  bool is_master = false;
  // A replica of this server (after PSYNC or SYNC): it is sent the stream and answers
  // only REPLCONF ACK. replica_port is what its REPLCONF listening-port said.
  bool is_replica = false;
  int replica_port = 0;
  // CLIENT REPLY OFF / SKIP (Redis's CLIENT_REPLY_* flags): the connection drops the
  // replies of commands run while kReplyOff or kReplySkip is set.
  enum ReplyBits : uint8_t {
    kReplyOff = 1,
    kReplySkip = 2,
    kReplySkipNext = 4,
    kReplyWasClient = 8
  };
  uint8_t reply_bits = 0;
  // Cluster mode (docs/CLUSTER.md): the port of the node this connection reached. Keys of
  // slots another node serves get MOVED, keys of several slots CROSSSLOT. 0: every key is
  // served here (cluster mode off, or the main port of a one-process cluster).
  int cluster_port = 0;
  // The shard that is this connection's node (a per-thread node port): commands over the
  // whole keyspace (DBSIZE, KEYS, SCAN, FLUSHALL, ...) see only it. -1: every shard.
  int32_t node_shard = -1;

  // Keys of this connection's multi-shard commands that are still taking their locks.
  // A later command of the same connection that names one of them must not run before
  // the locks are in (it could overtake the earlier command on some shard); see
  // Dispatcher::Admit (Hold::kForLocks).
  // One entry per such command: its keys' hashes (HashKey, as KeyLocks knows them), owned
  // by the command until its locks are in. Few commands lock at once, so a scan is cheaper
  // than keeping a map up to date.
  std::vector<absl::Span<const uint64_t>> locking_keys;
  int locking_whole = 0;  // whole-shard commands (FLUSHALL, KEYS, DBSIZE) still locking
  // Scripts of this connection running over several shards (shard/scripting/
  // script_task.h): they may touch keys they did not declare, so every later command
  // that names a key waits for them, as for a whole-shard lock.
  int scripts_running = 0;
  bool Locking() const { return locking_whole > 0 || scripts_running > 0 || !locking_keys.empty(); }

  // Pub/sub: while a RESP2 client has any subscription it may only (un)subscribe, PING,
  // QUIT and RESET.
  std::set<std::string> channels;
  std::set<std::string> patterns;
  size_t Subscriptions() const { return channels.size() + patterns.size(); }

  // MULTI ... EXEC (shard/transaction.h): non-null while commands are being queued.
  std::unique_ptr<MultiState> multi;
  WatchSet watching;
  // True only while EXEC runs one of its queued commands on this thread: that command's
  // multi-shard locks are already held by EXEC, so multi_shard.cc takes them at once.
  bool exec_nested = false;
  // While EXEC runs a queued command as a coordinator, with the log on: EXEC's records,
  // where a script over several shards that it started puts its own (shard/scripting/
  // script_task.h), so they keep their place among EXEC's.
  std::string* exec_records = nullptr;
  // The running EXEC's command count and multi-mem, which CLIENT INFO inside it reports
  // (with flag x) as Redis does. -1: none.
  int64_t exec_count = -1;
  size_t exec_mem = 0;

  // Redis's CLIENT_DENY_BLOCKING for callers that run commands which must not wait
  // (scripts): a blocking command then answers as its non-blocking form. EXEC's nested
  // commands are covered by exec_nested.
  bool deny_blocking = false;
  // The blocking command (BLPOP, ...) that holds this connection until it is answered:
  // its later pipelined commands wait unparsed (shard/command/blocking_call.h).
  std::shared_ptr<BlockedCall> blocked;
};

}  // namespace rc
