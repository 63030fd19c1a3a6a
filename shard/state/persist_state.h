#pragma once
// What INFO persistence, LASTSAVE and the save points read about snapshots: written by
// the thread that starts a save and by the writer thread that ends it, read by any.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

namespace rc {

class AofFiles;

struct PersistState {
  // A snapshot is being written (rdb_bgsave_in_progress); only one at a time.
  std::atomic<bool> saving{false};
  std::atomic<int64_t> save_started_unix{-1};  // rdb_current_bgsave_time_sec counts from it
  std::atomic<int64_t> lastsave_unix{0};       // LASTSAVE: the last good save, or the start
  std::atomic<bool> last_ok{true};             // rdb_last_bgsave_status
  std::atomic<int64_t> last_duration_s{-1};    // rdb_last_bgsave_time_sec
  std::atomic<int64_t> last_try_unix{0};       // a failed save point retries after a delay
  // The shards' summed Dirty() at the point of the last good snapshot, and of the running
  // one: rdb_changes_since_last_save is the sum now minus the first.
  std::atomic<int64_t> dirty_at_save{0};
  std::atomic<int64_t> dirty_at_start{0};
  std::atomic<int64_t> saves{0};  // rdb_saves
  // Record bytes queued for the file now, and the most the last save queued at once: what
  // a snapshot costs in memory (INFO's current_cow_size, rdb_last_cow_size).
  std::atomic<int64_t> queued_bytes{0};
  std::atomic<int64_t> peak_bytes{0};  // of the running save
  std::atomic<int64_t> last_peak_bytes{0};
  // The file loaded at start (INFO's rdb_last_load_keys_loaded / _expired).
  std::atomic<int64_t> loaded_keys{0};
  std::atomic<int64_t> loaded_expired{0};

  // The append-only log (shard/persist/aof_*.h). While it replays at start nothing
  // expires (Shard::KeepsPastDeadline).
  std::atomic<bool> aof_loading{false};
  std::atomic<bool> aof_rewriting{false};       // aof_rewrite_in_progress
  std::atomic<bool> aof_rewrite_scheduled{false};
  std::atomic<int64_t> aof_rewrite_started_unix{-1};
  std::atomic<int64_t> aof_last_rewrite_s{-1};
  std::atomic<bool> aof_last_rewrite_ok{true};
  std::atomic<int64_t> aof_rewrites{0};
  std::atomic<int64_t> aof_rewrite_failures{0};  // consecutive
  std::atomic<bool> aof_last_write_ok{true};
  // The log's writer thread is in an fsync of the log (INFO's aof_pending_bio_fsync).
  std::atomic<bool> aof_fsync_in_progress{false};
  std::atomic<int64_t> aof_last_try_unix{0};   // turning the log on failed: retried after
  std::atomic<int64_t> aof_current_size{0};      // bytes of the base and incr files
  std::atomic<int64_t> aof_base_size{0};         // at the last rewrite (or start)
  // The log's files and writer (shard/persist/aof_files.h): set at start or when the
  // log is turned on, under aof_mu; kept once made.
  std::mutex aof_mu;
  std::shared_ptr<AofFiles> aof_files;

  // Stops the running snapshot's writer when the server exits (net/server.cc): set by the
  // save that runs, under abandon_mu.
  std::mutex abandon_mu;
  std::function<void()> abandon;
};

}  // namespace rc
