#pragma once
// EXEC: runs a client's queued MULTI commands as one atomic step, across shards.
//
//   EXEC (conn thread)
//     ├─ lock every key the queued commands and WATCH name, shard by shard in ascending
//     │  order (multi_shard.h; whole shards when a command's keys are not known up front)
//     ├─ on each watched key's shard: reclaim it if expired; then read the WATCH flag:
//     │  dirty ─▶ release, reply nil
//     ├─ run the queued commands in order: a run of single-shard commands goes out as one
//     │  message per shard (each shard runs its share in queue order; shards in
//     │  parallel, since their keys are disjoint); any other command runs here as it
//     │  would outside MULTI, its own locks nesting inside EXEC's
//     └─ release every lock, reply the array of replies
//
// Other clients' commands on those keys queue behind EXEC's locks, so none of them sees
// a part of the transaction; keys it does not name are not held up.

#include "shard/wire/command.h"

namespace rc {

// Connection's thread: the EXEC command itself, after MULTI (checked by the caller).
void ExecTransaction(CoordCmd& cmd);

}  // namespace rc
