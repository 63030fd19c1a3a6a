#pragma once
// While a script is busy (shard/runtime/script_busy.h): which busy thread a command would
// need, so that it answers -BUSY at once instead of waiting for that thread. Connection's
// thread.
//
// On the busy thread itself every command needs it (it runs nothing but the script), as
// on Redis. On another thread only:
//   - a command whose keys live on a busy thread's shard;
//   - a keyless command over the whole keyspace (KEYS, DBSIZE, FLUSHALL, SCAN) or over
//     every thread (kCmdAllThreads: INFO, CLIENT LIST, PUBLISH, ...);
//   - EXEC when one of its queued commands or watched keys would need one.
// Everything else runs as usual: a busy shard holds up only the work that needs it.

#include <string_view>

#include "shard/wire/command.h"

namespace rc {

class ScriptBusy;

// Null when nothing `spec` would run for this invocation needs a busy thread. Cheap when
// no script is busy (ShardSet::AnyScriptBusy); allow_busy rows never need one.
const ScriptBusy* BusyThreadNeeded(ShardThread& self, ShardSet& shards, const ClientState& client,
                                   const CommandSpec& spec, ArgList args);

// A thread whose script is busy, or null. Any thread.
const ScriptBusy* FirstBusyThread(ShardSet& shards);

// The -BUSY error for `busy` (without '-'): it names the KILL command that can end it.
std::string_view BusyError(const ScriptBusy& busy);

}  // namespace rc
