#pragma once
// Where commands meet the append-only log (docs/PERSISTENCE.md, "The append-only log").
// A command that ran on its shard records what it changed into the shard's recorder;
// a multi-shard command's record goes to the journal once it holds every lock
// (multi_shard.cc). Blocking pops record their non-blocking form themselves
// (PopRecorded), as do expiry and eviction (DEL).

#include <cstdint>
#include <string_view>

#include "shard/runtime/shard.h"
#include "shard/wire/command.h"

namespace rc {

// The shard's thread, before a command runs there: what AfterOnShard compares with.
inline int64_t AofMark(Shard& shard) { return shard.aof().on() ? shard.Dirty() : -1; }

// The shard's thread, after `spec` ran there with `args` and answered `reply` (its own
// bytes): when it was a write that changed the shard, its record, rewritten as Redis
// rewrites it (core/aof_propagate.h).
void AofAfterOnShard(Shard& shard, const CommandSpec& spec, ArgList args, int64_t mark,
                     std::string_view reply);

// The connection's thread: a server-wide write (FUNCTION LOAD, DELETE, FLUSH, RESTORE)
// succeeded: its record goes to the journal as sent. Inside EXEC, EXEC records it.
void AofLogCoordinator(CoordCmd& cmd);

}  // namespace rc
