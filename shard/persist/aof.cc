#include "shard/persist/aof.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>

#include "core/strings.h"
#include "core/log.h"
#include "shard/persist/aof_files.h"
#include "shard/persist/aof_replay.h"
#include "shard/persist/rdb_load.h"
#include "shard/persist/save.h"
#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"

namespace rc {

namespace {

std::shared_ptr<AofFiles> Files(ServerState& server) {
  std::lock_guard<std::mutex> lock(server.persist.aof_mu);
  return server.persist.aof_files;
}

// The files' object, made (with its directory) if there is none yet.
std::shared_ptr<AofFiles> MakeFiles(ShardSet& shards, ServerState& server, std::string* error) {
  std::string dir, name;
  {
    std::lock_guard<std::mutex> lock(server.config_mu);
    dir = StrCat(server.config.dir, "/", server.config.appenddirname);
    name = server.config.appendfilename;
  }
  std::lock_guard<std::mutex> lock(server.persist.aof_mu);
  if (server.persist.aof_files != nullptr) return server.persist.aof_files;
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    *error = StrCat("Can't create the append-only file directory ", dir, ": ",
                          std::strerror(errno));
    return nullptr;
  }
  server.persist.aof_files = std::make_shared<AofFiles>(shards.journal(), server, dir, name);
  return server.persist.aof_files;
}

// A worker thread: writes the base of the log's next set of files as a snapshot;
// `turning_on`: the log starts at the snapshot's point (CONFIG SET appendonly yes).
bool BeginRewrite(ShardThread& self, ShardSet& shards, ServerState& server, bool turning_on,
                  std::string* error) {
  PersistState& p = server.persist;
  std::shared_ptr<AofFiles> files = MakeFiles(shards, server, error);
  if (files == nullptr) return false;
  bool idle = false;
  if (!p.aof_rewriting.compare_exchange_strong(idle, true)) {
    *error = "ERR Background append only file rewriting already in progress";
    return false;
  }
  const int64_t base_seq = files->NextBaseSeq();
  const int64_t incr_seq = files->NextIncrSeq();
  const std::string base_name = AofBaseName(files->appendfilename(), base_seq, true);
  auto logging = std::make_shared<std::atomic<bool>>(false);
  AofJournal* journal = &shards.journal();
  ServerState* srv = &server;
  const int64_t started = server.clock->NowUnixSeconds();

  SnapshotJob job;
  job.dir = files->dir_path();
  job.filename = base_name;
  job.aof_base = true;
  job.at_point = [journal, files, logging, turning_on, srv, started] {
    srv->persist.aof_rewrite_started_unix.store(started);
    if (turning_on && !journal->on()) {
      files->Start();
      journal->set_on(true);
    }
    if (!journal->on()) return;
    logging->store(true);
    // Every shard is held and has handed its records over: what follows this mark
    // happened after the snapshot's point.
    journal->Mark([files] {
      std::string why;
      if (!files->OpenNewIncr(&why)) Log(LogLevel::kWarning, why);
    });
  };
  job.finished = [files, logging, base_name, base_seq, incr_seq, srv, journal, turning_on,
                  started](bool ok, const std::string& why) {
    PersistState& ps = srv->persist;
    std::string failure = why;
    const bool logged = logging->load();
    if (ok && logged && !files->WaitForIncr(incr_seq)) {
      ok = false;
      failure = "The append-only log did not switch to its new file";
    }
    if (ok) {
      ok = files->InstallBase(base_name, base_seq,
                              logged ? incr_seq : std::numeric_limits<int64_t>::max(), &failure);
    }
    ps.aof_last_rewrite_s.store(srv->clock->NowUnixSeconds() - started);
    ps.aof_last_rewrite_ok.store(ok);
    if (ok) {
      ps.aof_rewrites.fetch_add(1);
      ps.aof_rewrite_failures.store(0);
      Log(LogLevel::kNotice, "Background AOF rewrite finished successfully");
    } else {
      ps.aof_rewrite_failures.fetch_add(1);
      Log(LogLevel::kWarning, "Background AOF rewrite failed: ", failure);
      if (turning_on) {
        // Without its base the log would replay to a wrong data set: it stays off and
        // the cron tries again.
        journal->set_on(false);
        files->Stop();
      }
    }
    ps.aof_rewrite_started_unix.store(-1);
    ps.aof_rewriting.store(false);
  };
  if (!StartSnapshot(self, shards, server, nullptr, nullptr, std::move(job), error)) {
    p.aof_rewriting.store(false);
    return false;
  }
  Log(LogLevel::kNotice, "Background append only file rewriting started");
  return true;
}

}  // namespace

bool AofLoadBase(ShardSet& shards, ServerState& server, std::vector<std::string>* replay,
                 std::string* error) {
  std::shared_ptr<AofFiles> files = MakeFiles(shards, server, error);
  if (files == nullptr) return false;
  const std::string manifest_path = files->PathOf(AofManifestName(files->appendfilename()));
  std::string text;
  if (!ReadWholeFile(manifest_path, &text)) return true;  // no log yet: AofStart makes one
  AofManifest manifest;
  if (!ParseAofManifest(text, &manifest, error)) {
    *error = StrCat("Bad AOF manifest ", manifest_path, ": ", *error);
    return false;
  }
  if (const AofFileInfo* base = manifest.base()) {
    const std::string path = files->PathOf(base->name);
    if (base->name.size() > 4 && base->name.substr(base->name.size() - 4) == ".rdb") {
      LoadStats stats;
      if (!LoadRdbFile(path, shards, server, &stats, error, /*keep_expired=*/true)) return false;
      if (!stats.found) {
        *error = StrCat("The AOF base file ", path, " is missing");
        return false;
      }
      Log(LogLevel::kNotice, "DB loaded from base file ", base->name, ": ", stats.keys, " keys");
    } else {
      replay->push_back(path);
    }
  }
  for (const AofFileInfo* incr : manifest.incrs()) replay->push_back(files->PathOf(incr->name));
  files->set_manifest(std::move(manifest));
  return true;
}

bool AofStart(ShardSet& shards, ServerState& server, std::string* error) {
  std::shared_ptr<AofFiles> files = MakeFiles(shards, server, error);
  if (files == nullptr) return false;
  if (!files->OpenLastIncr(error)) return false;
  int64_t size = 0;
  const AofManifest m = files->manifest();
  for (const AofFileInfo& f : m.files) {
    struct stat st;
    if (::stat(files->PathOf(f.name).c_str(), &st) == 0) size += int64_t(st.st_size);
  }
  server.persist.aof_current_size.store(size);
  server.persist.aof_base_size.store(size);
  files->Start();
  shards.journal().set_on(true);
  return true;
}

void AofStop(ShardSet& shards, ServerState& server) {
  shards.journal().set_on(false);
  if (std::shared_ptr<AofFiles> files = Files(server)) files->Stop();
}

std::string StartAofRewrite(ShardThread& self, ShardSet& shards, ServerState& server) {
  PersistState& p = server.persist;
  if (p.aof_rewriting.load()) return "ERR Background append only file rewriting already in progress";
  if (p.saving.load()) {
    p.aof_rewrite_scheduled.store(true);
    return "Background append only file rewriting scheduled";
  }
  std::string error;
  if (!BeginRewrite(self, shards, server, false, &error)) return error;
  return "Background append only file rewriting started";
}

void AofApplySetting(ShardThread& self, ShardSet& shards, ServerState& server) {
  const bool want = server.config.appendonly.get();
  AofJournal& journal = shards.journal();
  if (!want) {
    server.persist.aof_rewrite_scheduled.store(false);
    if (!journal.on()) return;
    journal.set_on(false);
    if (std::shared_ptr<AofFiles> files = Files(server)) files->Stop();
    Log(LogLevel::kNotice, "Background append only file writing stopped");
    return;
  }
  if (journal.on()) return;
  std::string error;
  if (server.persist.saving.load() || server.persist.aof_rewriting.load() ||
      !BeginRewrite(self, shards, server, true, &error)) {
    // The cron starts it once the running snapshot is over.
    server.persist.aof_rewrite_scheduled.store(true);
    if (!error.empty()) Log(LogLevel::kWarning, error);
  }
}

void MaybeRewriteAof(ShardThread& self, ShardSet& shards, ServerState& server) {
  PersistState& p = server.persist;
  // At start the log opens once replayed (net/server.cc), not here.
  if (p.aof_loading.load(std::memory_order_relaxed) || p.saving.load(std::memory_order_relaxed) ||
      p.aof_rewriting.load(std::memory_order_relaxed)) {
    return;
  }
  const bool want_on = server.config.appendonly.get();
  const bool on = shards.journal().on();
  std::string error;
  if (p.aof_rewrite_scheduled.load(std::memory_order_relaxed)) {
    p.aof_rewrite_scheduled.store(false);
    if (!BeginRewrite(self, shards, server, want_on && !on, &error)) {
      Log(LogLevel::kWarning, error);
    }
    return;
  }
  if (want_on && !on) {
    // Turning the log on failed (its base could not be written): again, after a pause.
    const int64_t now = server.clock->NowUnixSeconds();
    if (now - p.aof_last_try_unix.load() < 5) return;
    p.aof_last_try_unix.store(now);
    if (!BeginRewrite(self, shards, server, true, &error)) Log(LogLevel::kWarning, error);
    return;
  }
  if (!on) return;
  const int64_t pct = server.config.auto_aof_rewrite_percentage.get();
  const int64_t size = p.aof_current_size.load();
  if (pct <= 0 || size < server.config.auto_aof_rewrite_min_size.get()) return;
  const int64_t base = std::max<int64_t>(p.aof_base_size.load(), 1);
  if ((size - base) * 100 / base < pct) return;
  Log(LogLevel::kNotice, "Starting automatic rewriting of AOF on ", (size - base) * 100 / base,
      "% growth");
  if (!BeginRewrite(self, shards, server, false, &error)) Log(LogLevel::kWarning, error);
}

}  // namespace rc
