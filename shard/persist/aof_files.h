#pragma once
// The append-only log's directory and its writer thread (aof.h): which files the
// manifest names, the incr file being appended to, and the thread that takes the
// journal's records to it and fsyncs as appendfsync says.
//
// The manifest is changed under mu_ by the writer thread (a rewrite's switch to a new
// incr file) and by the snapshot writer's thread (a rewrite's new base); each change is
// written to a temporary file, fsynced and renamed over the manifest, so a crash leaves
// the old manifest or the new one.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "core/aof_manifest.h"

namespace rc {

class AofJournal;
struct ServerState;

class AofFiles {
 public:
  AofFiles(AofJournal& journal, ServerState& server, std::string dir_path,
           std::string appendfilename);
  ~AofFiles();
  AofFiles(const AofFiles&) = delete;
  AofFiles& operator=(const AofFiles&) = delete;

  const std::string& dir_path() const { return dir_path_; }
  std::string PathOf(const std::string& name) const { return dir_path_ + "/" + name; }
  const std::string& appendfilename() const { return appendfilename_; }

  // Before the writer starts: the manifest read at start.
  void set_manifest(AofManifest m);
  AofManifest manifest() const;

  // Opens a new incr file (seq one above the last), adds it to the manifest and writes
  // the manifest; the writer appends there from now on. Before the writer runs, or on
  // its thread (a journal mark).
  bool OpenNewIncr(std::string* error);
  // Opens the manifest's last incr file for appending (a new one if it names none).
  bool OpenLastIncr(std::string* error);
  // The snapshot writer's thread: the rewrite's base `base_name` is in place. It replaces
  // the old base, and the incr files before `first_incr_seq` go (their records are in
  // the base); the manifest is written, then the old files deleted.
  bool InstallBase(const std::string& base_name, int64_t base_seq, int64_t first_incr_seq,
                   std::string* error);
  // The sequence numbers the manifest would give next.
  int64_t NextBaseSeq() const;
  int64_t NextIncrSeq() const;

  // Starts the writer thread; Stop writes what is queued, fsyncs, closes and joins.
  void Start();
  void Stop();
  // A rewrite waits for its switch: true once OpenNewIncr ran on the writer for
  // `incr_seq`.
  bool WaitForIncr(int64_t incr_seq);

 private:
  void Run();
  bool WriteManifestLocked(std::string* error);
  bool WriteAll(const std::string& bytes);
  void Fsync();
  bool OpenIncrLocked(const std::string& name, std::string* error);

  AofJournal& journal_;
  ServerState& server_;
  const std::string dir_path_;
  const std::string appendfilename_;

  mutable std::mutex mu_;
  std::condition_variable switched_;
  AofManifest manifest_;  // guarded by mu_
  int fd_ = -1;           // guarded by mu_ while switching; else the writer's
  int64_t open_incr_seq_ = 0;

  std::thread thread_;
  std::atomic<bool> stop_{false};
  bool unsynced_ = false;  // writer thread: written since the last fsync
  int64_t last_fsync_ns_ = 0;
};

}  // namespace rc
