#pragma once
// A command called by a running script (redis.call / redis.pcall), checked and run as
// Redis 7.0's scriptCall does. Owner thread only.
//
// Keys: a script whose KEYS share a shard runs in one step on that shard's thread, and
// every key a command it calls names must live on that same shard; a key it did not
// declare is allowed there unless a multi-shard command holds it (docs/SCRIPTING.md). A
// script whose KEYS span shards is a ScriptTask (script_task.h), which sends each
// command to its keys' shard.

#include <cstdint>
#include <string>

#include "shard/wire/command.h"

namespace rc {

class LuaEngine;
class ShardSet;
class ShardThread;
struct ScriptRun;

enum class CallStatus : uint8_t {
  kReplied,  // the command ran: `out` holds its RESP reply (an error reply included)
  kRefused,  // refused before running: `out` holds the error text (code, no '-')
  kPending,  // sent where it runs (a suspendable run only): the run resumes with the reply
};

// Runs `args` for `run`. `may_suspend`: the run can wait here for another thread.
CallStatus ScriptCall(LuaEngine& engine, ScriptRun& run, ArgList args, bool may_suspend,
                      std::string* out);

// On `thread`, which owns every key `args` names: runs the command as a script's call
// (`resp` is the script's protocol; invoke.h's kScript). What it changes is recorded into
// `records` when given, else the shard's log target. Appends the reply to `out`.
void RunCalledOnShard(ShardThread& thread, ServerState& server, const CommandSpec& spec,
                      ArgList args, int resp, std::string* records, std::string* out);

// A command a script ran as a coordinator on `self`: its record for the append-only log,
// on that thread's shard, when it writes.
void RecordCoordinatorCall(ShardThread& self, const CommandSpec& spec, ArgList args,
                           std::string_view reply);
// MONITOR's line for a command a script ran (as Redis shows it: "[0 lua]"), on the
// script's thread.
void FeedCalled(ShardThread& self, ShardSet& shards, const ServerState& server,
                const CommandSpec& spec, ArgList args);

}  // namespace rc
