#pragma once
// The file half of a snapshot: a thread of its own that writes what the shards send into
// a temporary file, then the trailer, fsync, and a rename over the RDB file, so the
// previous file stays whole until the new one is complete (docs/PERSISTENCE.md).
//
//   coordinator: Start() ─▶ shards: Write(chunk)... ShardDone() ─▶ writer thread:
//   header, functions, SELECTDB/RESIZEDB (once Begin gave the counts), the chunks in
//   arrival order, EOF, CRC-64 ─▶ fsync, rename, fsync(dir) ─▶ done(ok, error)
//
// The file is Redis 7.0's RDB version 10. Shards' chunks hold whole records, so they may
// interleave in any order: a key's place in the file does not matter to a reader.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "shard/runtime/snapshot.h"

namespace rc {

struct PersistState;

class RdbWriter : public SnapshotSink, public std::enable_shared_from_this<RdbWriter> {
 public:
  struct Options {
    std::string dir;       // absolute
    std::string filename;  // dbfilename
    bool compress = true;
    bool checksum = true;
    bool aof_base = false;  // the header's aof-base: a rewrite's base of the append-only log
    // rdb-key-save-delay, read at each paced step: unlike a Redis child, which keeps
    // the value it forked with, a running save follows CONFIG SET (tests hold a save
    // open with a long delay, then let it finish).
    std::function<int64_t()> key_delay_us;
    size_t shards = 1;
    int64_t used_memory = 0;  // the header's used-mem
    PersistState* state = nullptr;  // where the queue's size is published (INFO)
  };
  // Runs on the writer thread when the file is in place (ok) or the save failed; `error`
  // says why, as Redis's log would.
  using Done = std::function<void(bool ok, const std::string& error)>;

  RdbWriter(Options options, Done done);
  ~RdbWriter() override;

  // Starts the writer thread, which keeps the writer alive until done() returned. The
  // shards may send chunks from now on.
  void Start();
  // The point's counts (RESIZEDB) and the function libraries' code, known once every
  // shard began: the writer holds the chunks back until then.
  void Begin(size_t keys, size_t expires, std::vector<std::string> function_libraries);
  // The server is stopping: gives up without waiting for the shards (their threads are
  // gone), removes the temporary file, and done() reports `why`. Only then: a snapshot
  // must not start while a shard still walks the last one.
  void Abandon(const std::string& why);

  // SnapshotSink: shard threads.
  void Write(uint32_t shard, std::string records) override;
  void ShardDone(uint32_t shard) override;
  bool Failed() const override { return failed_.load(std::memory_order_relaxed); }
  bool Backlogged() const override;
  bool compress() const override { return options_.compress; }
  int64_t key_delay_us() const override { return options_.key_delay_us ? options_.key_delay_us() : 0; }

  // The temporary file's name while it is written (Redis's temp-<pid>.rdb).
  static std::string TempName();

 private:
  void Run();
  // Appends to the file through a buffer, keeping the running CRC. False on error.
  bool Put(std::string_view bytes);
  bool FlushBuffer();
  bool Fail(const std::string& why);

  Options options_;
  Done done_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool begun_ = false;                    // guarded by mu_
  size_t keys_ = 0, expires_ = 0;          // guarded by mu_
  std::vector<std::string> functions_;     // guarded by mu_
  std::deque<std::string> chunks_;         // guarded by mu_
  size_t shards_done_ = 0;                 // guarded by mu_
  std::string abandon_why_;                // guarded by mu_
  std::atomic<size_t> queued_bytes_{0};
  std::atomic<bool> failed_{false};

  // Writer thread only.
  int fd_ = -1;
  std::string temp_path_;
  std::string buffer_;
  uint64_t crc_ = 0;
  std::string error_;
};

}  // namespace rc
