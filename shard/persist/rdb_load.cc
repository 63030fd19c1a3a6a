#include "shard/persist/rdb_load.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "core/crc64.h"
#include "core/rdb.h"
#include "core/rdb_value.h"
#include "core/strings.h"
#include "shard/command/multi_shard.h"
#include "shard/runtime/fanout.h"
#include "shard/runtime/shard_set.h"
#include "shard/scripting/restore_set.h"
#include "shard/scripting/script_registry.h"
#include "shard/state/rdb_settings.h"
#include "shard/state/server_state.h"

namespace rc {

namespace {

constexpr size_t kHeaderBytes = 9;  // "REDIS" and four digits of version
constexpr size_t kBatchRecords = 1024;

// One key of the file, its value still in the file's bytes.
struct Record {
  uint8_t type = 0;
  int64_t deadline = -1;  // unix ms; -1: none
  size_t offset = 0;      // the value's, in the file
  std::string key;
  std::string_view value;
};
using Batch = std::vector<Record>;

// A file mapped read-only for the load's duration.
class Mapped {
 public:
  ~Mapped() {
    if (data_ != nullptr) ::munmap(data_, size_);
  }
  // False with errno set; a missing file is ENOENT.
  bool Open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      ::close(fd);
      return false;
    }
    size_ = size_t(st.st_size);
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        ::close(fd);
        return false;
      }
      data_ = p;
      ::madvise(p, size_, MADV_SEQUENTIAL);
    }
    ::close(fd);
    return true;
  }
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

// Batches for one shard's loader thread.
struct Queue {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Batch> batches;  // guarded by mu
  bool closed = false;        // guarded by mu
  size_t expected = 0;        // guarded by mu: the shard's share of RESIZEDB's count
};

// What the loader threads share with the main thread.
struct Shared {
  std::atomic<bool> failed{false};
  std::mutex error_mu;
  std::string error;  // guarded by error_mu: the first failure
  std::atomic<int64_t> keys{0};
  std::atomic<int64_t> expired{0};

  void Fail(std::string why) {
    std::lock_guard<std::mutex> lock(error_mu);
    if (error.empty()) error = std::move(why);
    failed.store(true);
  }
};

// The thread that owns `shard` now (a loader thread at start, the shard's own thread for a
// reload): builds its values and links them. `replace`: a key already there gives way to
// the file's (DEBUG RELOAD MERGE), else it fails the load.
void LoadShard(Shard& shard, Queue& queue, const RdbLimits& limits, int64_t now_ms,
               const std::string& file, Shared& shared, bool replace) {
  RdbObject obj;
  std::string why;
  bool sized = false;
  for (;;) {
    Batch batch;
    size_t expected = 0;
    {
      std::unique_lock<std::mutex> lock(queue.mu);
      queue.cv.wait(lock, [&] { return queue.closed || !queue.batches.empty(); });
      if (queue.batches.empty()) break;
      batch = std::move(queue.batches.front());
      queue.batches.pop_front();
      expected = queue.expected;
    }
    // Before the first key: an empty table grows to the file's count at once rather than
    // doubling (and rehashing) its way there.
    if (!sized) shard.Reserve(expected);
    sized = true;
    if (shared.failed.load(std::memory_order_relaxed)) continue;
    for (Record& r : batch) {
      RdbReader in(r.value);
      if (!RdbReadObject(r.type, in, limits, &obj, &why)) {
        // Redis skips a key whose collection is empty rather than failing the load.
        if (obj.empty) continue;
        shared.Fail(StrCat("Bad data format in ", file, " at offset ", r.offset + in.offset(),
                           ": ", why));
        break;
      }
      if (r.deadline >= 0 && r.deadline < now_ms) {
        shared.expired.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      if (shard.Find(r.key) != nullptr) {
        if (!replace) {
          shared.Fail(StrCat("RDB has duplicated key '", r.key, "' in DB 0 (", file, ")"));
          break;
        }
        shard.Delete(r.key);
      }
      if (obj.type == ValueType::kString) {
        shard.AddString(r.key, obj.str, r.deadline);
      } else {
        Entry* e = shard.Add(r.key, std::move(obj.obj));
        if (r.deadline >= 0) shard.SetDeadline(e, r.deadline);
      }
      shared.keys.fetch_add(1, std::memory_order_relaxed);
    }
  }
  shard.Unreserve();
}

// Main thread: reads the file's items in order, hands keys to the loaders and gathers the
// function libraries. False with *error when the file is malformed.
class Splitter {
 public:
  Splitter(std::string_view file, const std::string& name, ShardSet& shards,
           std::vector<Queue>& queues, Shared& shared)
      : file_(file), name_(name), shards_(shards), queues_(queues), shared_(shared),
        pending_(shards.size()) {}

  bool Run(std::vector<std::string>* functions, std::string* error) {
    RdbReader in(file_.substr(kHeaderBytes));
    int64_t deadline = -1;
    for (;;) {
      if (shared_.failed.load(std::memory_order_relaxed)) return Flush(), true;
      const size_t at = kHeaderBytes + in.offset();
      uint8_t op = 0;
      if (!in.ReadByte(&op)) return Cut(at, error);
      switch (op) {
        case kRdbOpcodeEof:
          Flush();
          return true;
        case kRdbOpcodeSelectDb: {
          uint64_t db = 0;
          if (!in.ReadLength(&db)) return Cut(at, error);
          if (db != 0) {
            *error = StrCat(name_, " holds keys of database ", db, " (offset ", at,
                            "): ringcache has database 0 only");
            return false;
          }
          continue;
        }
        case kRdbOpcodeResizeDb: {
          uint64_t a = 0, b = 0;
          if (!in.ReadLength(&a) || !in.ReadLength(&b)) return Cut(at, error);
          // The slot ranges split the keys about evenly between the shards. A key takes at
          // least a byte of the file, which bounds what a damaged count can reserve.
          const size_t share = size_t(std::min<uint64_t>(a, file_.size())) / queues_.size();
          for (Queue& q : queues_) {
            std::lock_guard<std::mutex> lock(q.mu);
            q.expected = share;
          }
          continue;
        }
        case kRdbOpcodeAux: {
          std::string key, value;
          if (!in.ReadString(&key) || !in.ReadString(&value)) return Cut(at, error);
          continue;
        }
        case kRdbOpcodeExpireMs: {
          uint64_t ms = 0;
          if (!in.ReadU64(&ms)) return Cut(at, error);
          deadline = int64_t(ms);
          continue;
        }
        case kRdbOpcodeExpireSec: {
          uint32_t s = 0;
          if (!in.ReadU32(&s)) return Cut(at, error);
          deadline = int64_t(s) * 1000;
          continue;
        }
        case kRdbOpcodeIdle: {
          uint64_t idle = 0;
          if (!in.ReadLength(&idle)) return Cut(at, error);
          continue;
        }
        case kRdbOpcodeFreq: {
          uint8_t freq = 0;
          if (!in.ReadByte(&freq)) return Cut(at, error);
          continue;
        }
        case kRdbOpcodeFunction2:
        case kRdbOpcodeFunctionPreGa: {
          if (op == kRdbOpcodeFunctionPreGa) {
            *error = StrCat(name_, " holds a pre-release function library (offset ", at,
                            "): load it into Redis 7.0 and save it again");
            return false;
          }
          std::string code;
          if (!in.ReadString(&code)) return Cut(at, error);
          functions->push_back(std::move(code));
          continue;
        }
        case kRdbOpcodeModuleAux:
          *error = StrCat(name_, " holds module data (offset ", at, "): ringcache has no modules");
          return false;
        default:
          break;
      }
      if (!RdbIsObjectType(op)) {
        *error = StrCat("Unknown RDB object type ", int(op), " in ", name_, " at offset ", at,
                        op == 15 || op == 19 ? " (a stream: ringcache has no streams yet)" : "");
        return false;
      }
      Record r;
      r.type = op;
      r.deadline = deadline;
      deadline = -1;
      if (!in.ReadString(&r.key)) return Cut(at, error);
      r.offset = kHeaderBytes + in.offset();
      const std::string_view rest = file_.substr(r.offset);
      RdbReader value(rest);
      if (!RdbSkipObject(op, value)) return Cut(r.offset, error);
      r.value = rest.substr(0, value.offset());
      std::string_view skipped;
      if (!in.ReadRaw(value.offset(), &skipped)) return Cut(r.offset, error);
      const uint32_t shard = shards_.ShardOf(r.key);
      pending_[shard].push_back(std::move(r));
      if (pending_[shard].size() >= kBatchRecords) Send(shard);
    }
  }

 private:
  bool Cut(size_t at, std::string* error) {
    *error = StrCat("Short read or corrupt data in ", name_, " at offset ", at);
    return false;
  }
  void Send(uint32_t shard) {
    if (pending_[shard].empty()) return;
    Queue& q = queues_[shard];
    {
      std::lock_guard<std::mutex> lock(q.mu);
      q.batches.push_back(std::move(pending_[shard]));
    }
    q.cv.notify_one();
    pending_[shard] = Batch();
  }
  void Flush() {
    for (uint32_t i = 0; i < pending_.size(); ++i) Send(i);
  }

  std::string_view file_;
  const std::string& name_;
  ShardSet& shards_;
  std::vector<Queue>& queues_;
  Shared& shared_;
  std::vector<Batch> pending_;
};

// The file's CRC-64 against its trailer (none when the trailer is zero: a file written
// with rdbchecksum no).
bool ChecksumOk(std::string_view file, uint64_t* expected, uint64_t* got) {
  if (file.size() < kHeaderBytes + 9) return true;  // the parser reports a short file
  const std::string_view trailer = file.substr(file.size() - 8);
  uint64_t stored = 0;
  for (int i = 7; i >= 0; --i) stored = (stored << 8) | uint8_t(trailer[size_t(i)]);
  if (stored == 0) return true;
  *expected = stored;
  *got = Crc64(0, file.substr(0, file.size() - 8));
  return *got == stored;
}

std::string ChecksumError(const std::string& path, uint64_t expected, uint64_t got) {
  char hex[64];
  std::snprintf(hex, sizeof(hex), "expected: (%llx) got (%llx)",
                static_cast<unsigned long long>(expected), static_cast<unsigned long long>(got));
  return StrCat("Wrong RDB checksum in ", path, " ", hex, ". Aborting now.");
}

// The signature and a version this build reads. False with Redis's error.
bool CheckHeader(std::string_view file, const std::string& path, int* version,
                 std::string* error) {
  if (file.size() < kHeaderBytes || file.substr(0, 5) != "REDIS") {
    *error = StrCat("Wrong signature trying to load DB from file ", path);
    return false;
  }
  *version = 0;
  for (char c : file.substr(5, 4)) {
    *version = c >= '0' && c <= '9' ? *version * 10 + (c - '0') : -1000;
  }
  if (*version < 1 || *version > kRdbVersion) {
    *error = StrCat("Can't handle RDB format version ", file.substr(5, 4), " (", path, ")");
    return false;
  }
  return true;
}

// The file's function libraries join the server's as `policy` says, compiled by thread
// `thread`'s function engine (the calling thread's).
bool RestoreFunctions(ServerState& server, uint32_t thread, const std::vector<std::string>& codes,
                      RestorePolicy policy, const std::string& path, LoadStats* stats,
                      std::string* error) {
  if (server.scripts == nullptr) {
    if (codes.empty()) return true;
    *error = StrCat(path, " holds function libraries and scripting is not available");
    return false;
  }
  FunctionEngine& engine = server.scripts->function_engine(thread);
  std::vector<LibraryPtr> libs;
  std::string why;
  for (const std::string& code : codes) {
    if (!AddToRestoreSet(engine, code, &libs, &why)) {
      *error = StrCat("Failed loading a function library from ", path, ": ", why);
      return false;
    }
  }
  if (!server.scripts->functions().Restore(libs, policy, &why)) {
    *error = StrCat("Failed loading the function libraries of ", path, ": ", why);
    return false;
  }
  stats->functions = int64_t(libs.size());
  return true;
}

// A reload's state, shared by the splitter thread, the shards' steps and the finish.
struct Reload {
  std::string path;
  Mapped mapped;
  bool readable = false;  // the file opened and its header is one this build reads
  std::string error;      // why not, or the splitter's error
  int version = 0;
  std::vector<Queue> queues;
  Shared shared;
  RdbLimits limits;
  int64_t now_ms = 0;
  std::thread splitter;  // splits the file, then checks its CRC-64
  bool crc_ok = true;
  uint64_t crc_expected = 0, crc_got = 0;
  std::vector<std::string> functions;

  void CloseQueues() {
    for (Queue& q : queues) {
      {
        std::lock_guard<std::mutex> lock(q.mu);
        q.closed = true;
      }
      q.cv.notify_one();
    }
  }
};

}  // namespace

void ReloadRdbFile(ShardThread& self, ShardSet& shards, ServerState& server, ClientState& client,
                   ReplySink& sink, std::string path, ReloadOptions opts,
                   std::shared_ptr<const LockSet> held, ReloadDone done) {
  auto job = std::make_shared<Reload>();
  job->path = std::move(path);
  job->queues = std::vector<Queue>(shards.size());
  job->limits = RdbLimitsOf(server);
  job->now_ms = server.clock->NowUnixMillis();
  if (!job->mapped.Open(job->path)) {
    job->error = StrCat("Fatal error loading the DB (", job->path, "): ", std::strerror(errno));
  } else {
    job->readable = CheckHeader(job->mapped.bytes(), job->path, &job->version, &job->error);
  }
  const bool checksum = server.config.rdbchecksum.get();
  ShardThread* home = &self;
  ShardSet* set = &shards;
  ServerState* state = &server;
  const bool acquire = held == nullptr;
  if (acquire) held = LockWholeShards(shards);
  auto locked = [=, done = std::move(done)]() mutable {
    // Every shard is held: the file's keys replace the data at one point for all clients.
    if (job->readable) {
      job->splitter = std::thread([job, set, checksum] {
        const std::string_view file = job->mapped.bytes();
        // A failure leaves its reason in job->error.
        Splitter(file, job->path, *set, job->queues, job->shared)
            .Run(&job->functions, &job->error);
        job->CloseQueues();
        if (job->version >= 5 && checksum) {
          job->crc_ok = ChecksumOk(file, &job->crc_expected, &job->crc_got);
        }
      });
    } else {
      job->CloseQueues();
    }
    // Each shard on its own thread: empty it, then link its keys as the splitter hands
    // them over. The thread serves nothing else meanwhile, as Redis's load stops it.
    FanOut<bool>(
        *home, *set, held->groups->shards(),
        [job, held, opts](Shard& shard, size_t gi) {
          if (opts.flush) shard.Flush(/*async=*/false);
          LoadShard(shard, job->queues[shard.id()], job->limits, job->now_ms, job->path,
                    job->shared, opts.merge);
          ReleaseOn(shard, *held, gi);
          return true;
        },
        [job, home, state, opts, done = std::move(done)](std::vector<bool>&) mutable {
          if (job->splitter.joinable()) job->splitter.join();
          LoadStats stats;
          stats.found = job->readable;
          std::string error = job->error;
          if (error.empty() && !job->crc_ok) {
            error = ChecksumError(job->path, job->crc_expected, job->crc_got);
          }
          if (error.empty() && job->shared.failed.load()) error = job->shared.error;
          const RestorePolicy policy = opts.flush   ? RestorePolicy::kFlush
                                       : opts.merge ? RestorePolicy::kReplace
                                                    : RestorePolicy::kAppend;
          if (error.empty() && (opts.flush || !job->functions.empty())) {
            RestoreFunctions(*state, home->id(), job->functions, policy, job->path, &stats,
                             &error);
          }
          stats.keys = job->shared.keys.load();
          stats.expired = job->shared.expired.load();
          done(error.empty(), stats, error);
        });
  };
  if (!acquire) return locked();
  AcquireThen(self, shards, client, sink, held, std::move(locked));
}

bool LoadRdbFile(const std::string& path, ShardSet& shards, ServerState& server, LoadStats* stats,
                 std::string* error, bool keep_expired) {
  Mapped mapped;
  if (!mapped.Open(path)) {
    if (errno == ENOENT) return true;
    *error = StrCat("Fatal error loading the DB (", path, "): ", std::strerror(errno));
    return false;
  }
  stats->found = true;
  const std::string_view file = mapped.bytes();
  int version = 0;
  if (!CheckHeader(file, path, &version, error)) return false;
  uint64_t crc_expected = 0, crc_got = 0;
  bool crc_ok = true;
  std::thread crc;
  if (version >= 5 && server.config.rdbchecksum.get()) {
    crc = std::thread([&] { crc_ok = ChecksumOk(file, &crc_expected, &crc_got); });
  }

  Shared shared;
  std::vector<Queue> queues(shards.size());
  const RdbLimits limits = RdbLimitsOf(server);
  const int64_t now_ms = keep_expired ? INT64_MIN : server.clock->NowUnixMillis();
  std::vector<std::thread> loaders;
  for (uint32_t i = 0; i < shards.size(); ++i) {
    loaders.emplace_back([&, i] {
      LoadShard(shards.thread(i).shard(), queues[i], limits, now_ms, path, shared, false);
    });
  }
  std::vector<std::string> functions;
  std::string split_error;
  const bool split_ok =
      Splitter(file, path, shards, queues, shared).Run(&functions, &split_error);
  for (Queue& q : queues) {
    {
      std::lock_guard<std::mutex> lock(q.mu);
      q.closed = true;
    }
    q.cv.notify_one();
  }
  for (std::thread& t : loaders) t.join();
  if (crc.joinable()) crc.join();

  if (!crc_ok) {
    *error = ChecksumError(path, crc_expected, crc_got);
    return false;
  }
  if (!split_ok) {
    *error = split_error;
    return false;
  }
  if (shared.failed.load()) {
    *error = shared.error;
    return false;
  }
  if (!functions.empty() &&
      !RestoreFunctions(server, 0, functions, RestorePolicy::kAppend, path, stats, error)) {
    return false;
  }
  stats->keys = shared.keys.load();
  stats->expired = shared.expired.load();
  return true;
}

}  // namespace rc
