#include "shard/persist/save.h"

#include <ctime>
#include <memory>
#include <utility>
#include <vector>

#include "core/log.h"
#include "core/malloc_counter.h"
#include "shard/command/multi_shard.h"
#include "shard/persist/rdb_writer.h"
#include "shard/runtime/fanout.h"
#include "shard/scripting/script_registry.h"
#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"

namespace rc {

namespace {

// Redis's CONFIG_BGSAVE_RETRY_DELAY: after a failed save, save points wait this long.
constexpr int64_t kRetryDelaySeconds = 5;

// A reply sink for the server's own saves: there is no connection to answer.
class NoReply final : public ReplySink {
 public:
  uint64_t Defer() override { return 0; }
  void Fulfill(uint64_t, std::string) override {}
  void Resume() override {}
  void Push(std::string) override {}
};

// Stands in for a connection while the server saves on its own behalf; it must outlive
// the lock acquisition, so the save keeps it until the end.
struct Origin {
  ClientState client;
  NoReply sink;
};

std::vector<std::string> FunctionCode(const ServerState& server) {
  std::vector<std::string> code;
  if (server.scripts == nullptr) return code;
  for (const LibraryPtr& lib : server.scripts->functions().Libraries()) code.push_back(lib->code);
  return code;
}

// Any thread: runs `task` on worker `dest` at its next turn.
void PostFromAnyThread(ShardSet& shards, ServerState& server, uint32_t dest, Task task) {
  std::vector<Message> batch;
  batch.emplace_back(std::move(task));
  shards.thread(dest).inbox().PushBatch(&batch);
  if (server.wake_all) server.wake_all();
}

}  // namespace

int64_t DirtySum(ShardSet& shards) {
  int64_t sum = 0;
  for (uint32_t i = 0; i < shards.size(); ++i) sum += shards.thread(i).shard().Dirty();
  return sum;
}

int64_t ChangesSinceLastSave(ShardSet& shards, const ServerState& server) {
  return DirtySum(shards) - server.persist.dirty_at_save.load(std::memory_order_relaxed);
}

bool StartSnapshot(ShardThread& self, ShardSet& shards, ServerState& server, ClientState* client,
                   ReplySink* sink, SnapshotJob job, std::string* error) {
  PersistState& persist = server.persist;
  bool idle = false;
  if (!persist.saving.compare_exchange_strong(idle, true)) {
    *error = "ERR Background save already in progress";
    return false;
  }
  RdbWriter::Options options;
  options.dir = std::move(job.dir);
  options.filename = std::move(job.filename);
  options.aof_base = job.aof_base;
  options.compress = server.config.rdbcompression;
  options.checksum = server.config.rdbchecksum;
  options.key_delay_us = [srv = &server] { return srv->config.rdb_key_save_delay.get(); };
  options.shards = shards.size();
  options.used_memory = MallocCountedBytes();
  options.state = &persist;
  persist.queued_bytes.store(0);
  persist.peak_bytes.store(0);

  const uint32_t home = self.id();
  ShardSet* set = &shards;
  ServerState* srv = &server;
  std::shared_ptr<Origin> origin;
  if (client == nullptr || sink == nullptr) {
    origin = std::make_shared<Origin>();
    client = &origin->client;
    sink = &origin->sink;
  }
  auto writer = std::make_shared<RdbWriter>(
      options, [set, srv, home, origin, finished = std::move(job.finished),
                done = std::move(job.done)](bool ok, const std::string& why) mutable {
        // The writer's thread.
        PersistState& p = srv->persist;
        p.last_peak_bytes.store(p.peak_bytes.load());
        p.queued_bytes.store(0);
        if (finished) finished(ok, why);
        {
          std::lock_guard<std::mutex> lock(p.abandon_mu);
          p.abandon = nullptr;
        }
        p.saving.store(false);
        PostFromAnyThread(*set, *srv, home,
                          [done = std::move(done), origin = std::move(origin), ok]() mutable {
                            if (done) done(ok);
                          });
      });
  {
    std::lock_guard<std::mutex> lock(persist.abandon_mu);
    persist.abandon = [w = std::weak_ptr<RdbWriter>(writer)] {
      if (auto strong = w.lock()) strong->Abandon("The server is shutting down");
    };
  }
  writer->Start();

  struct Begun {
    Shard::SnapshotCounts counts;
    int64_t dirty = 0;
  };
  const bool keep = job.keep != nullptr;
  std::shared_ptr<const LockSet> locks = keep ? job.keep : LockWholeShards(shards);
  AcquireThen(self, shards, *client, *sink, locks,
              [&self, set, srv, locks, keep, writer, at_point = std::move(job.at_point)] {
                // Every shard is held whole: no multi-shard command is half done anywhere.
                if (at_point) at_point();
                FanOut<Begun>(
                    self, *set, locks->groups->shards(),
                    [locks, keep, writer](Shard& shard, size_t gi) {
                      Begun b;
                      b.dirty = shard.Dirty();
                      b.counts = shard.BeginSnapshot(writer);
                      if (!keep) ReleaseOn(shard, *locks, gi);
                      return b;
                    },
                    [srv, writer](std::vector<Begun>& begun) {
                      size_t keys = 0, expires = 0;
                      int64_t dirty = 0;
                      for (const Begun& b : begun) {
                        keys += b.counts.keys;
                        expires += b.counts.expires;
                        dirty += b.dirty;
                      }
                      srv->persist.dirty_at_start.store(dirty);
                      writer->Begin(keys, expires, FunctionCode(*srv));
                    });
              });
  return true;
}

bool StartSave(ShardThread& self, ShardSet& shards, ServerState& server, ClientState* client,
               ReplySink* sink, SaveReason reason, SaveDone done, std::string* error,
               std::shared_ptr<const LockSet> keep) {
  SnapshotJob job;
  job.keep = std::move(keep);
  {
    std::lock_guard<std::mutex> lock(server.config_mu);
    job.dir = server.config.dir;
    job.filename = server.config.dbfilename;
  }
  const int64_t started = server.clock->NowUnixSeconds();
  ServerState* srv = &server;
  job.finished = [srv, started](bool ok, const std::string& why) {
    PersistState& p = srv->persist;
    const int64_t now = srv->clock->NowUnixSeconds();
    p.last_ok.store(ok);
    p.last_duration_s.store(now - started);
    if (ok) {
      p.dirty_at_save.store(p.dirty_at_start.load());
      p.lastsave_unix.store(now);
      p.saves.fetch_add(1);
      Log(LogLevel::kNotice, "DB saved on disk");
    } else {
      Log(LogLevel::kWarning, why);
      Log(LogLevel::kWarning, "Background saving error");
    }
    p.save_started_unix.store(-1);
  };
  job.done = std::move(done);
  // Before the writer can end it: the point comes before the shards begin.
  job.at_point = [srv, started] {
    srv->persist.save_started_unix.store(started);
    srv->persist.last_try_unix.store(started);
  };
  if (!StartSnapshot(self, shards, server, client, sink, std::move(job), error)) return false;
  Log(LogLevel::kNotice, reason == SaveReason::kSavePoint ? "Background saving started"
                         : reason == SaveReason::kShutdown ? "Saving the final RDB snapshot before exit"
                                                           : "Background saving started by request");
  return true;
}

bool SavePointsSet(ServerState& server) {
  std::lock_guard<std::mutex> lock(server.config_mu);
  return !server.config.save_points.empty();
}

namespace {

void SaveThenShutdownPaused(ShardThread& self, ShardSet& shards, ServerState& server, bool force,
                            std::function<void()> failed) {
  ServerState* srv = &server;
  std::string error;
  const bool started = StartSave(
      self, shards, server, nullptr, nullptr, SaveReason::kShutdown,
      [srv, force, failed](bool ok) {
        if (ok || force) {
          srv->RequestShutdown();
          return;
        }
        Log(LogLevel::kWarning, "Error trying to save the DB, can't exit.");
        srv->introspect.pause.Unpause();
        if (failed) failed();
      },
      &error);
  if (started) return;
  // A background save is running: its point is too early for the last save, which
  // starts once it ends. Checked again next turn.
  ShardSet* set = &shards;
  self.Post(self.id(), [&self, set, srv, force, failed = std::move(failed)]() mutable {
    SaveThenShutdownPaused(self, *set, *srv, force, std::move(failed));
  });
}

}  // namespace

void SaveThenShutdown(ShardThread& self, ShardSet& shards, ServerState& server, bool force,
                      std::function<void()> failed) {
  server.introspect.pause.Pause(INT64_MAX, ClientPause::kWrite);
  SaveThenShutdownPaused(self, shards, server, force, std::move(failed));
}

void MaybeSaveOnSchedule(ShardThread& self, ShardSet& shards, ServerState& server) {
  PersistState& persist = server.persist;
  if (persist.saving.load(std::memory_order_relaxed)) return;
  std::vector<Config::SavePoint> points;
  {
    std::lock_guard<std::mutex> lock(server.config_mu);
    points = server.config.save_points;
  }
  if (points.empty()) return;
  const int64_t now = server.clock->NowUnixSeconds();
  // As Redis: after a failure, wait before trying again whatever the points say.
  if (!persist.last_ok.load() && now - persist.last_try_unix.load() <= kRetryDelaySeconds) return;
  const int64_t changes = ChangesSinceLastSave(shards, server);
  const int64_t since = now - persist.lastsave_unix.load();
  for (const Config::SavePoint& p : points) {
    if (changes >= p.changes && since > p.seconds) {
      Log(LogLevel::kNotice, p.changes, " changes in ", p.seconds, " seconds. Saving...");
      std::string error;
      StartSave(self, shards, server, nullptr, nullptr, SaveReason::kSavePoint, nullptr, &error);
      return;
    }
  }
}

}  // namespace rc
