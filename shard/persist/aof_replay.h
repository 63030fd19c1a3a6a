#pragma once
// Replaying the append-only log's commands at start (aof.h). The commands run through
// the dispatcher, as a client's would, on worker 0, one after another: a multi-shard
// command or a transaction takes its locks and steps as it did when it was logged. The
// workers run but accept no connection meanwhile; nothing expires (the log says when
// keys went: PersistState::aof_loading).

#include <string>
#include <vector>

namespace rc {

class Dispatcher;
class ShardSet;
struct ServerState;

// Main thread. Replays every file of `paths` in order; blocks until done. A last file
// cut short in the middle of a command (a crash while writing) is truncated to its last
// whole command, or to before an unfinished MULTI, when aof-load-truncated is on, as
// Redis does; any other damage is an error naming the file and offset.
bool ReplayAofFiles(ShardSet& shards, ServerState& server, const Dispatcher& dispatcher,
                    const std::vector<std::string>& paths, std::string* error);

// Any thread: the file's bytes; false when it cannot be read.
bool ReadWholeFile(const std::string& path, std::string* out);

}  // namespace rc
