#pragma once
// The append-only log's one order (docs/PERSISTENCE.md, "The append-only log"). Every
// thread appends records here; one writer thread (shard/persist/aof_writer.h) takes them
// to the file. Where records about one key come from several threads, the order they
// reach this journal is the order they happened in:
//
// - A shard's records stay in its recorder (aof_recorder.h) until its loop turn ends, or
//   until a multi-shard command locks keys there: then they come here first, so whatever
//   the command's record follows them.
// - A multi-shard command's record comes here once every lock is in and before any comes
//   off (multi_shard.cc), EXEC's and a script's before their locks come off: what runs
//   on those keys later comes later.
//
// Any thread may call it: one mutex, taken once per shard per loop turn that wrote, and
// once per multi-shard write.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace rc {

// Where the records go besides the file: replicas (shard/runtime/replication_hub.h).
class RecordTap {
 public:
  virtual ~RecordTap() = default;
  // Under the journal's mutex, so in the journal's order.
  virtual void Feed(std::string_view records) = 0;
};

class AofJournal {
 public:
  // The flag recorders read: records are wanted, by the file or by replicas.
  const std::atomic<bool>* on_flag() const { return &recording_; }
  bool recording() const { return recording_.load(std::memory_order_relaxed); }
  // The file's side. Turned on where no command runs (every shard held, or before the
  // workers start); off by CONFIG SET appendonly no.
  bool on() const { return on_.load(std::memory_order_relaxed); }
  void set_on(bool on) {
    std::lock_guard<std::mutex> lock(mu_);
    on_.store(on, std::memory_order_relaxed);
    recording_.store(on || tap_ != nullptr, std::memory_order_relaxed);
  }
  // Records go to `tap` too from now on (it stays for the server's life); as set_on,
  // where no command runs.
  void set_tap(RecordTap* tap) {
    std::lock_guard<std::mutex> lock(mu_);
    tap_ = tap;
    recording_.store(true, std::memory_order_relaxed);
  }
  bool tapped() const {
    std::lock_guard<std::mutex> lock(mu_);
    return tap_ != nullptr;
  }

  // Any thread: appends `records` (to the tap, and to the file while on); returns the
  // log's length after them, for WaitDurable.
  uint64_t Append(std::string_view records);
  // Any thread: bytes for the replicas alone (their PING), in the journal's order.
  void AppendToTap(std::string_view bytes);
  // Whether an append wakes the writer at once (appendfsync always: a reply waits for
  // it). Otherwise the writer looks every few milliseconds, or when much has piled up,
  // so the threads do not pay a wake-up (and the writer a context switch) per loop turn.
  void set_eager(bool eager) { eager_.store(eager, std::memory_order_relaxed); }
  // Any thread: the writer runs `at` on its thread once everything appended before this
  // call is written, and before anything after it (a rewrite's switch to a new file).
  void Mark(std::function<void()> at);
  // The log's length so far (bytes ever appended).
  uint64_t appended() const;

  // appendfsync always, a worker thread at the end of its loop turn: returns once
  // `position` is on disk, or the writer has failed (writes are then refused instead).
  void WaitDurable(uint64_t position);

  // The writer thread. Takes what was appended, in order, up to the first mark (and that
  // mark's task), waiting at most `wait` for something to arrive. False when nothing came.
  struct Batch {
    std::string bytes;
    std::function<void()> mark;  // runs after `bytes` are written
    uint64_t end = 0;            // the log's length after `bytes`
  };
  bool Take(Batch* out, std::chrono::milliseconds wait);
  // The writer thread: the log up to `position` is on disk (or, `failed`, never will be).
  void SetDurable(uint64_t position);
  void SetFailed(bool failed);
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  // Wakes a writer waiting in Take (it is stopping).
  void Wake();
  // Bytes appended and not yet taken by the writer (INFO's aof_buffer_length).
  uint64_t pending() const;

 private:
  struct Segment {
    std::string bytes;
    std::function<void()> mark;  // after `bytes`; empty for the open tail
  };
  std::atomic<bool> on_{false};
  std::atomic<bool> recording_{false};
  RecordTap* tap_ = nullptr;  // guarded by mu_
  std::atomic<bool> failed_{false};
  std::atomic<bool> eager_{true};
  mutable std::mutex mu_;
  std::condition_variable work_;     // the writer waits for segments
  std::condition_variable durable_;  // always-mode threads wait for the disk
  std::deque<Segment> segments_;     // guarded by mu_
  uint64_t appended_ = 0;            // guarded by mu_
  uint64_t taken_ = 0;               // guarded by mu_
  uint64_t durable_pos_ = 0;         // guarded by mu_
};

}  // namespace rc
