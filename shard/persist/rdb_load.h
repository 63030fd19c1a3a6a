#pragma once
// Loading an RDB file at start, before the workers run, or into the running server (DEBUG
// RELOAD) (docs/PERSISTENCE.md). Files redis-server 7.0 writes load too.
//
//   main thread: map the file, check its CRC-64 (a thread of its own) ─▶ split it into
//   records (type, key, the value's bytes, expiry), in file order ─▶ batches per shard
//   ─▶ one loader thread per shard: build each value, link it; the threads end before
//   the workers start, so each shard still has one thread at a time.
//
// A file that is corrupt, cut short, or holds what ringcache cannot keep (modules,
// streams, a database other than 0) is refused with an error naming the file and the
// byte offset: the server then does not start, rather than serve part of the data.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "shard/command/multi_shard.h"
#include "shard/wire/client_state.h"
#include "shard/wire/reply_sink.h"

namespace rc {

class ShardSet;
class ShardThread;
struct ServerState;

struct LoadStats {
  bool found = false;  // false: no file, nothing loaded
  int64_t keys = 0;
  int64_t expired = 0;  // keys already past their deadline, left out as Redis does
  int64_t functions = 0;
};

// DEBUG RELOAD's choices: `flush` empties the keyspace and the function libraries first
// (without it a key already there is a duplicate, the load's error); `merge` lets the
// file's keys and libraries replace those of their names instead.
struct ReloadOptions {
  bool flush = true;
  bool merge = false;
};
// The asking connection's thread: `done(ok, stats, error)`, later, on it.
using ReloadDone =
    std::function<void(bool ok, const LoadStats& stats, const std::string& error)>;

// A worker thread, for a client's command (DEBUG RELOAD): loads `path` into the running
// server. Every shard is held whole meanwhile, so clients see the data before or after,
// never in between; each shard empties and links its keys on its own thread, from a
// splitter thread that reads the file, and the function libraries join last. A file
// that cannot be read or holds a fault still flushes (as Redis, which empties first);
// what loaded before the fault stays.
// `held`: locks over every shard the caller holds already (a save's, kept past its
// point), released at the end; null: taken here.
void ReloadRdbFile(ShardThread& self, ShardSet& shards, ServerState& server, ClientState& client,
                   ReplySink& sink, std::string path, ReloadOptions opts,
                   std::shared_ptr<const LockSet> held, ReloadDone done);

// Main thread, before the workers start. `keep_expired`: keys past their deadline load
// too (the append-only log's base: its commands may still touch them, and their DELs
// follow in the log, as Redis loads a preamble).
bool LoadRdbFile(const std::string& path, ShardSet& shards, ServerState& server, LoadStats* stats,
                 std::string* error, bool keep_expired = false);

}  // namespace rc
