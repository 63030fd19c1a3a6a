#include "shard/persist/aof_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>
#include <vector>

#include "core/strings.h"
#include "core/log.h"
#include "shard/runtime/aof_journal.h"
#include "shard/state/server_state.h"

namespace rc {

namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t FileSize(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? int64_t(st.st_size) : 0;
}

void FsyncDir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

AofFiles::AofFiles(AofJournal& journal, ServerState& server, std::string dir_path,
                   std::string appendfilename)
    : journal_(journal),
      server_(server),
      dir_path_(std::move(dir_path)),
      appendfilename_(std::move(appendfilename)) {}

AofFiles::~AofFiles() {
  Stop();
  if (fd_ >= 0) ::close(fd_);
}

void AofFiles::set_manifest(AofManifest m) {
  std::lock_guard<std::mutex> lock(mu_);
  manifest_ = std::move(m);
}

AofManifest AofFiles::manifest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return manifest_;
}

int64_t AofFiles::NextBaseSeq() const {
  std::lock_guard<std::mutex> lock(mu_);
  return manifest_.curr_base_seq + 1;
}

int64_t AofFiles::NextIncrSeq() const {
  std::lock_guard<std::mutex> lock(mu_);
  return manifest_.curr_incr_seq + 1;
}

bool AofFiles::WriteManifestLocked(std::string* error) {
  const std::string text = FormatAofManifest(manifest_);
  const std::string path = PathOf(AofManifestName(appendfilename_));
  const std::string temp = PathOf(StrCat("temp-", AofManifestName(appendfilename_)));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = StrCat("Can't open the AOF manifest file ", temp, ": ", std::strerror(errno));
    return false;
  }
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = StrCat("Error writing the AOF manifest file: ", std::strerror(errno));
      ::close(fd);
      return false;
    }
    done += size_t(n);
  }
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced || ::rename(temp.c_str(), path.c_str()) != 0) {
    *error = StrCat("Error persisting the AOF manifest file: ", std::strerror(errno));
    return false;
  }
  FsyncDir(dir_path_);
  return true;
}

bool AofFiles::OpenIncrLocked(const std::string& name, std::string* error) {
  const std::string path = PathOf(name);
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = StrCat("Can't open the append-only file ", path, ": ", std::strerror(errno));
    return false;
  }
  if (fd_ >= 0) {
    ::fsync(fd_);
    ::close(fd_);
  }
  fd_ = fd;
  return true;
}

bool AofFiles::OpenNewIncr(std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t seq = manifest_.curr_incr_seq + 1;
  const std::string name = AofIncrName(appendfilename_, seq);
  if (!OpenIncrLocked(name, error)) return false;
  manifest_.files.push_back(AofFileInfo{name, seq, 'i'});
  manifest_.curr_incr_seq = seq;
  open_incr_seq_ = seq;
  FsyncDir(dir_path_);
  const bool ok = WriteManifestLocked(error);
  switched_.notify_all();
  return ok;
}

bool AofFiles::OpenLastIncr(std::string* error) {
  std::unique_lock<std::mutex> lock(mu_);
  const AofFileInfo* last = nullptr;
  for (const AofFileInfo& f : manifest_.files) {
    if (f.type == 'i') last = &f;
  }
  if (last == nullptr) {
    lock.unlock();
    return OpenNewIncr(error);
  }
  open_incr_seq_ = last->seq;
  return OpenIncrLocked(last->name, error);
}

bool AofFiles::WaitForIncr(int64_t incr_seq) {
  std::unique_lock<std::mutex> lock(mu_);
  return switched_.wait_for(lock, std::chrono::seconds(60),
                            [&] { return open_incr_seq_ >= incr_seq; });
}

bool AofFiles::InstallBase(const std::string& base_name, int64_t base_seq, int64_t first_incr_seq,
                           std::string* error) {
  std::vector<std::string> obsolete;
  {
    std::lock_guard<std::mutex> lock(mu_);
    AofManifest next;
    next.curr_base_seq = base_seq;
    next.curr_incr_seq = manifest_.curr_incr_seq;
    next.files.push_back(AofFileInfo{base_name, base_seq, 'b'});
    for (const AofFileInfo& f : manifest_.files) {
      if (f.type == 'i' && f.seq >= first_incr_seq) {
        next.files.push_back(f);
      } else {
        obsolete.push_back(f.name);
      }
    }
    AofManifest previous = std::exchange(manifest_, std::move(next));
    if (!WriteManifestLocked(error)) {
      manifest_ = std::move(previous);
      return false;
    }
    int64_t size = 0;
    for (const AofFileInfo& f : manifest_.files) size += FileSize(PathOf(f.name));
    server_.persist.aof_base_size.store(FileSize(PathOf(base_name)));
    server_.persist.aof_current_size.store(size);
  }
  // The manifest no longer names them: a crash from here on loads the new set.
  for (const std::string& name : obsolete) ::unlink(PathOf(name).c_str());
  return true;
}

void AofFiles::Start() {
  if (thread_.joinable()) return;
  stop_.store(false);
  last_fsync_ns_ = NowNs();
  thread_ = std::thread([this] { Run(); });
}

void AofFiles::Stop() {
  if (!thread_.joinable()) return;
  stop_.store(true);
  journal_.Wake();
  thread_.join();
}

bool AofFiles::WriteAll(const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // A partial record would end the file in the middle of a command; a reader
      // truncates it (aof-load-truncated), so what follows must not land after it.
      if (done > 0) {
        const off_t end = ::lseek(fd_, 0, SEEK_END);
        if (end >= 0 && ::ftruncate(fd_, end - off_t(done)) == 0) done = 0;
      }
      Log(LogLevel::kWarning, "Error writing to the AOF file: ", std::strerror(errno));
      return false;
    }
    done += size_t(n);
  }
  server_.persist.aof_current_size.fetch_add(int64_t(bytes.size()));
  return true;
}

void AofFiles::Fsync() {
  server_.persist.aof_fsync_in_progress.store(true, std::memory_order_relaxed);
  if (fd_ >= 0 && ::fdatasync(fd_) != 0) {
    Log(LogLevel::kWarning, "Error fsyncing the AOF file: ", std::strerror(errno));
  }
  server_.persist.aof_fsync_in_progress.store(false, std::memory_order_relaxed);
  unsynced_ = false;
  last_fsync_ns_ = NowNs();
}

void AofFiles::Run() {
  PersistState& persist = server_.persist;
  for (;;) {
    AofJournal::Batch batch;
    const int64_t policy = server_.config.appendfsync.get();
    const bool eager = policy == Config::kFsyncAlways;
    journal_.set_eager(eager);
    // Not eager, the writer looks every 2 ms: a write per few hundred commands.
    const bool got = journal_.Take(&batch, std::chrono::milliseconds(eager ? 100 : 2));
    if (got) {
      if (!batch.bytes.empty()) {
        // A failed write is retried every second; meanwhile writes are refused
        // (-MISCONF), as Redis does while its last AOF write failed.
        while (!WriteAll(batch.bytes)) {
          persist.aof_last_write_ok.store(false);
          if (policy == Config::kFsyncAlways) journal_.SetFailed(true);
          std::this_thread::sleep_for(std::chrono::seconds(1));
          if (stop_.load()) break;
        }
        if (persist.aof_last_write_ok.load() == false) {
          persist.aof_last_write_ok.store(true);
          journal_.SetFailed(false);
        }
        unsynced_ = true;
        const bool skip = server_.config.no_appendfsync_on_rewrite.get() &&
                          (persist.saving.load() || persist.aof_rewriting.load());
        if (policy == Config::kFsyncAlways && !skip) Fsync();
      }
      journal_.SetDurable(batch.end);
      if (batch.mark) batch.mark();
    }
    if (unsynced_ && policy == Config::kFsyncEverysec &&
        NowNs() - last_fsync_ns_ >= 1'000'000'000) {
      const bool skip = server_.config.no_appendfsync_on_rewrite.get() &&
                        (persist.saving.load() || persist.aof_rewriting.load());
      if (!skip) Fsync();
    }
    if (!got && stop_.load() && journal_.pending() == 0) break;
  }
  if (unsynced_) Fsync();
}

}  // namespace rc
