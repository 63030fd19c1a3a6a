#pragma once
// Starting and ending a snapshot of the whole keyspace (SAVE, BGSAVE, save points,
// SHUTDOWN): the coordinator between the shards (shard/runtime/snapshot.h) and the file
// (rdb_writer.h). docs/PERSISTENCE.md.
//
//   worker thread: StartSave ─▶ lock every shard whole ─▶ each shard: BeginSnapshot,
//   release ─▶ writer.Begin(counts, functions) ... writer thread: file done ─▶ state,
//   log ─▶ done(ok) on the starting thread

#include <functional>
#include <memory>
#include <string>

#include "shard/command/multi_shard.h"
#include "shard/wire/command.h"

namespace rc {

// Why a save was asked for, for the log (Redis's words).
enum class SaveReason { kCommand, kSavePoint, kShutdown };

// A worker thread. Starts a snapshot; `done(ok)` later runs on this same thread. False,
// with Redis's error, when a snapshot is already running. `client` and `sink` are the
// asking connection's (its later commands queue behind the snapshot's point), or null for
// the server's own saves.
// `keep`: locks over every shard (LockWholeShards) the save takes and keeps past its
// point, so nothing runs between the point and what `done` does next; `done` must
// release them (ReleaseEverywhere). A save that does not start takes none.
using SaveDone = std::function<void(bool ok)>;
bool StartSave(ShardThread& self, ShardSet& shards, ServerState& server, ClientState* client,
               ReplySink* sink, SaveReason reason, SaveDone done, std::string* error,
               std::shared_ptr<const LockSet> keep = nullptr);

// What a snapshot writes and who hears of it: a save's RDB file, or a rewrite's base of
// the append-only log (aof.h).
struct SnapshotJob {
  std::string dir;  // absolute
  std::string filename;
  bool aof_base = false;
  // The starting thread, every shard held whole: the snapshot's point.
  std::function<void()> at_point;
  // The writer's thread: the file is in place (ok), or not and `why`.
  std::function<void(bool ok, const std::string& why)> finished;
  // The starting thread, after `finished`.
  SaveDone done;
  // Locks over every shard to take for the point and keep past it (StartSave's `keep`);
  // null: the snapshot takes its own and releases them at the point.
  std::shared_ptr<const LockSet> keep;
};
// A worker thread: the common part of StartSave and a rewrite. False, with Redis's
// error, when a snapshot runs already.
bool StartSnapshot(ShardThread& self, ShardSet& shards, ServerState& server, ClientState* client,
                   ReplySink* sink, SnapshotJob job, std::string* error);

// Worker thread 0's cron: starts a save when a save point is due (Redis's serverCron).
void MaybeSaveOnSchedule(ShardThread& self, ShardSet& shards, ServerState& server);

// Whether save points are set: SHUTDOWN and SIGTERM then save first.
bool SavePointsSet(ServerState& server);

// A worker thread: saves, then stops the server (SHUTDOWN [SAVE], SIGTERM with save
// points). Writes wait meanwhile (a client pause), so no write acknowledged after the
// snapshot's point is lost. When the save fails the server keeps running, unless
// `force`, and `failed` runs on this thread.
void SaveThenShutdown(ShardThread& self, ShardSet& shards, ServerState& server, bool force,
                      std::function<void()> failed);

// The shards' changes since start, summed (Shard::Dirty): any thread.
int64_t DirtySum(ShardSet& shards);

// rdb_changes_since_last_save: any thread.
int64_t ChangesSinceLastSave(ShardSet& shards, const ServerState& server);

}  // namespace rc
