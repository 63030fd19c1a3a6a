#pragma once
// A shard's part of a point-in-time snapshot (BGSAVE, SAVE), written without a fork and
// without stopping the shard (docs/PERSISTENCE.md).
//
// The snapshot starts on every shard inside one multi-shard step that holds every shard
// whole (shard/persist/), so a cross-shard MSET or EXEC is wholly before it or wholly
// after. From then on each entry is written exactly once, as it was at that point:
//
//   - the entry's saved mark (core/entry.h) says whether it has been written, or is newer
//     than the snapshot: starting flips the meaning of the mark (`epoch_`), so every entry
//     then in the table reads "not yet written" without touching any of them;
//   - each loop turn writes a bounded slice of the table, walking it with the SCAN cursor,
//     which survives resizes (a bucket seen twice is skipped by the mark);
//   - before anything changes or removes an entry that has not been written, the shard
//     writes it first (Shard::Preserve), so the snapshot keeps the old value;
//   - entries linked while it runs carry the new mark: they are not part of it;
//   - FLUSHALL hands the whole old table to the snapshot, which writes and then frees it.
//
// Records go out as RDB bytes (a key's expiry, type, key and value), whole records per
// chunk, to a sink that any shard thread may call (the file writer, shard/persist/).
// Owner thread only, except the sink.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/entry_table.h"

namespace rc {

// Where a snapshot's records go. Shard threads call it concurrently.
class SnapshotSink {
 public:
  virtual ~SnapshotSink() = default;
  // Whole records of shard `shard`, in any order relative to other shards' chunks.
  virtual void Write(uint32_t shard, std::string records) = 0;
  // Shard `shard` has written everything it holds of the snapshot.
  virtual void ShardDone(uint32_t shard) = 0;
  // Writing failed or was abandoned: records are no longer wanted.
  virtual bool Failed() const = 0;
  // So much is queued that background slices should wait (changes still write what they
  // are about to change: a snapshot must keep the old value).
  virtual bool Backlogged() const = 0;
  // rdbcompression, fixed for one snapshot.
  virtual bool compress() const = 0;
  // rdb-key-save-delay: microseconds per key of a background slice (tests slow a
  // snapshot down with it without stalling anything; 0 in production).
  virtual int64_t key_delay_us() const = 0;
};

// What a slice left: nothing (the snapshot is over or none runs), more to write now, or
// more that must wait (the writer is behind, or rdb-key-save-delay): a turn may sleep a
// little then.
enum class SnapshotProgress { kDone, kMore, kWaiting };

class ShardSnapshot {
 public:
  bool active() const { return sink_ != nullptr; }
  // The mark that means "written, or newer than the running snapshot". Entries the shard
  // links get it (Shard::Link), so outside a snapshot every entry carries it.
  bool epoch() const { return epoch_; }

  // Starts writing the shard's entries to `sink` (the shard is held whole meanwhile).
  void Begin(uint32_t shard, std::shared_ptr<SnapshotSink> sink);
  // Writes `e` now if it has not been written (it is about to change or go).
  void Preserve(const Entry& e) {
    if (e.saved_mark() != epoch_) Write(e);
  }
  // A flushed table whose entries the snapshot may still need; it is written, then freed.
  void Adopt(std::unique_ptr<EntryTable> table);
  // One loop turn's slice: writes up to a bounded number of entries, sends full chunks,
  // and finishes the snapshot after the last. `now_us`:
  // a monotonic clock, for rdb-key-save-delay. Adopted tables it has finished with go to
  // *done, for the caller to free off the thread.
  SnapshotProgress Step(EntryTable& table, int64_t now_us,
                        std::vector<std::unique_ptr<EntryTable>>* done);

 private:
  void Write(const Entry& e);
  void Send(bool force);
  // Walks `t` from *cursor for up to `budget` entries; returns false once it wrapped.
  bool Walk(EntryTable& t, uint64_t* cursor, size_t* budget);

  uint32_t shard_ = 0;
  bool epoch_ = false;
  std::shared_ptr<SnapshotSink> sink_;
  uint64_t cursor_ = 0;
  bool table_done_ = false;
  std::vector<std::unique_ptr<EntryTable>> adopted_;
  uint64_t adopted_cursor_ = 0;
  std::string buffer_;
  size_t written_ = 0;  // record bytes appended, for the slice's byte budget
  int64_t next_key_us_ = 0;  // with rdb-key-save-delay: when the next key may go
};

// The RDB record of one key: its expiry (when it has one), type, key and value, as
// Redis 7.0 writes it. `compress`: rdbcompression.
void AppendRdbRecord(const Entry& e, bool compress, std::string* out);

}  // namespace rc
