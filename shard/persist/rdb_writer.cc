#include "shard/persist/rdb_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/crc64.h"
#include "core/rdb.h"
#include "shard/state/server_state.h"

namespace rc {

namespace {
// Past this much queued, background slices wait for the disk (writes that must keep an
// old value still queue theirs).
constexpr size_t kBacklogBytes = 64 << 20;
constexpr size_t kWriteBlock = 1 << 20;

void AppendAux(std::string_view key, std::string_view value, std::string* out) {
  out->push_back(char(kRdbOpcodeAux));
  RdbAppendString(key, out);
  RdbAppendString(value, out);
}

bool SyncDir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}
}  // namespace

RdbWriter::RdbWriter(Options options, Done done)
    : options_(std::move(options)), done_(std::move(done)) {}

RdbWriter::~RdbWriter() {
  if (fd_ >= 0) ::close(fd_);
}

std::string RdbWriter::TempName() { return absl::StrCat("temp-", getpid(), ".rdb"); }

void RdbWriter::Start() {
  std::thread([self = shared_from_this()] { self->Run(); }).detach();
}

void RdbWriter::Begin(size_t keys, size_t expires, std::vector<std::string> function_libraries) {
  std::lock_guard<std::mutex> lock(mu_);
  begun_ = true;
  keys_ = keys;
  expires_ = expires;
  functions_ = std::move(function_libraries);
  cv_.notify_one();
}

void RdbWriter::Abandon(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (abandon_why_.empty()) abandon_why_ = why;
  failed_.store(true, std::memory_order_relaxed);
  cv_.notify_one();
}

void RdbWriter::Write(uint32_t, std::string records) {
  if (Failed()) return;
  const size_t queued =
      queued_bytes_.fetch_add(records.size(), std::memory_order_relaxed) + records.size();
  if (PersistState* state = options_.state) {
    state->queued_bytes.store(int64_t(queued), std::memory_order_relaxed);
    int64_t peak = state->peak_bytes.load(std::memory_order_relaxed);
    while (int64_t(queued) > peak &&
           !state->peak_bytes.compare_exchange_weak(peak, int64_t(queued))) {
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  chunks_.push_back(std::move(records));
  cv_.notify_one();
}

void RdbWriter::ShardDone(uint32_t) {
  std::lock_guard<std::mutex> lock(mu_);
  ++shards_done_;
  cv_.notify_one();
}

bool RdbWriter::Backlogged() const {
  return queued_bytes_.load(std::memory_order_relaxed) > kBacklogBytes;
}

bool RdbWriter::Fail(const std::string& why) {
  if (error_.empty()) error_ = why;
  failed_.store(true, std::memory_order_relaxed);
  return false;
}

bool RdbWriter::Put(std::string_view bytes) {
  if (fd_ < 0) return false;
  if (options_.checksum) crc_ = Crc64(crc_, bytes);
  buffer_.append(bytes);
  return buffer_.size() < kWriteBlock || FlushBuffer();
}

bool RdbWriter::FlushBuffer() {
  size_t off = 0;
  while (off < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + off, buffer_.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      buffer_.clear();
      return Fail(absl::StrCat("Write error saving DB on disk: ", std::strerror(errno)));
    }
    off += size_t(n);
  }
  buffer_.clear();
  return true;
}

void RdbWriter::Run() {
  temp_path_ = absl::StrCat(options_.dir, "/", TempName());
  fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    Fail(absl::StrCat("Failed opening the temp RDB file ", TempName(), " (in server root dir ",
                      options_.dir, ") for saving: ", std::strerror(errno)));
  }
  bool header_done = false;
  for (;;) {
    std::deque<std::string> chunks;
    bool all_done = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // Failed() changes only on this thread, or with abandon_why_ under mu_.
      cv_.wait(lock, [&] {
        const bool failed = Failed();
        return (!abandon_why_.empty() && error_.empty()) ||
               (shards_done_ == options_.shards && (begun_ || failed)) ||
               (begun_ && !header_done && !failed) ||
               (!chunks_.empty() && (header_done || failed));
      });
      if (!abandon_why_.empty()) Fail(abandon_why_);
      if (begun_ && !header_done && !Failed()) {
        header_done = true;
        std::string head = "REDIS0010";
        AppendAux("redis-ver", kRedisVersion, &head);
        AppendAux("redis-bits", "64", &head);
        AppendAux("ctime", absl::StrCat(std::time(nullptr)), &head);
        AppendAux("used-mem", absl::StrCat(options_.used_memory), &head);
        AppendAux("aof-base", options_.aof_base ? "1" : "0", &head);
        for (const std::string& code : functions_) {
          head.push_back(char(kRdbOpcodeFunction2));
          RdbAppendString(code, &head);
        }
        if (keys_ > 0) {
          head.push_back(char(kRdbOpcodeSelectDb));
          RdbAppendLength(0, &head);
          head.push_back(char(kRdbOpcodeResizeDb));
          RdbAppendLength(keys_, &head);
          RdbAppendLength(expires_, &head);
        }
        lock.unlock();
        Put(head);
        lock.lock();
      }
      if (header_done || Failed()) chunks.swap(chunks_);
      all_done = (shards_done_ == options_.shards && chunks_.empty() && (header_done || Failed())) ||
                 !abandon_why_.empty();
    }
    for (std::string& c : chunks) {
      const size_t left = queued_bytes_.fetch_sub(c.size(), std::memory_order_relaxed) - c.size();
      if (options_.state != nullptr) options_.state->queued_bytes.store(int64_t(left));
      if (!Failed()) Put(c);
    }
    if (all_done) break;
  }
  if (!Failed()) {
    std::string tail(1, char(kRdbOpcodeEof));
    const uint64_t crc = options_.checksum ? Crc64(crc_, tail) : 0;
    for (int i = 0; i < 8; ++i) tail.push_back(char((crc >> (8 * i)) & 0xff));
    buffer_.append(tail);
    if (FlushBuffer() && ::fsync(fd_) != 0) {
      Fail(absl::StrCat("Failed to fsync the RDB file: ", std::strerror(errno)));
    }
  }
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  const std::string final_path = absl::StrCat(options_.dir, "/", options_.filename);
  if (!Failed() && ::rename(temp_path_.c_str(), final_path.c_str()) != 0) {
    Fail(absl::StrCat("Error moving temp DB file ", TempName(), " on the final destination ",
                      options_.filename, " (in server root dir ", options_.dir,
                      "): ", std::strerror(errno)));
  }
  if (Failed()) {
    ::unlink(temp_path_.c_str());
  } else {
    SyncDir(options_.dir);
  }
  done_(!Failed(), error_);
}

}  // namespace rc
