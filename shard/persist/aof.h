#pragma once
// The append-only log's files (docs/PERSISTENCE.md, "The append-only log"): Redis 7.0's
// multi-part AOF in `dir`/`appenddirname`: a base (an RDB snapshot, or commands), the
// incr files of commands written since, and the manifest naming them.
//
//   start (main thread): manifest ─▶ base (the RDB loader) ─▶ workers run, not accepting
//     ─▶ incr files replayed through the dispatcher on worker 0 (aof_replay.h) ─▶ the
//     last incr file opened for appending, the journal on ─▶ clients accepted
//   running: shards' records ─▶ journal (shard/runtime/aof_journal.h) ─▶ writer thread:
//     write, fsync as appendfsync says
//   BGREWRITEAOF (a worker): every shard held ─▶ the journal is marked: the writer
//     switches to a new incr file there ─▶ a snapshot of that point is written as the new
//     base ─▶ manifest: new base + new incr; the old files are deleted
//
// The state lives in ServerState::persist (an AofFiles behind a shared_ptr); the writer
// thread is its own.

#include <string>
#include <vector>

namespace rc {

struct ClientState;
class Dispatcher;
class ReplySink;
class ShardSet;
class ShardThread;
struct ServerState;

// Main thread, before the workers start, with appendonly on: reads the manifest and
// loads the base. `replay` gets the files of commands to replay, in order, once the
// workers run. False, with the reason, when the files are unusable: the server stops.
bool AofLoadBase(ShardSet& shards, ServerState& server, std::vector<std::string>* replay,
                 std::string* error);

// Main thread, with appendonly on, after the replay: opens the last incr file (creating
// the directory, a first incr file and the manifest when there are none) and starts the
// writer; the journal goes on.
bool AofStart(ShardSet& shards, ServerState& server, std::string* error);

// Main thread, the server stopping: the writer writes what is queued, fsyncs and ends.
void AofStop(ShardSet& shards, ServerState& server);

// A worker thread: BGREWRITEAOF. Redis's replies: "+Background append only file
// rewriting started", "...scheduled" while a snapshot runs (it starts once that ends),
// or an error.
std::string StartAofRewrite(ShardThread& self, ShardSet& shards, ServerState& server);

// A worker thread, after CONFIG SET appendonly changed it: on, a rewrite writes the
// base and the log starts at its point; off, the writer ends and the files stay.
void AofApplySetting(ShardThread& self, ShardSet& shards, ServerState& server);

// Worker thread 0's cron: auto-aof-rewrite-percentage / -min-size, and a scheduled
// rewrite whose snapshot has ended.
void MaybeRewriteAof(ShardThread& self, ShardSet& shards, ServerState& server);

}  // namespace rc
