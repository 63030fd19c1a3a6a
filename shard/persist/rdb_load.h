#pragma once
// Loading an RDB file at start, before the workers run (docs/PERSISTENCE.md). Files
// redis-server 7.0 writes load too.
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
#include <string>

namespace rc {

class ShardSet;
struct ServerState;

struct LoadStats {
  bool found = false;  // false: no file, nothing loaded
  int64_t keys = 0;
  int64_t expired = 0;  // keys already past their deadline, left out as Redis does
  int64_t functions = 0;
};

// Main thread, before the workers start. `keep_expired`: keys past their deadline load
// too (the append-only log's base: its commands may still touch them, and their DELs
// follow in the log, as Redis loads a preamble).
bool LoadRdbFile(const std::string& path, ShardSet& shards, ServerState& server, LoadStats* stats,
                 std::string* error, bool keep_expired = false);

}  // namespace rc
