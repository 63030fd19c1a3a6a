// INFO: every thread reports its counters, its per-command statistics and its shard's
// size (FanOutThreads); the connection's thread merges them, adds process-wide figures and
// prints Redis 7.0's sections in Redis's order with Redis's field names.

#include <malloc.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <set>

#include "absl/strings/str_format.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/arg_parser.h"
#include "shard/command/deferred_reply.h"
#include "shard/runtime/fanout.h"
#include "shard/runtime/replication_hub.h"
#include "shard/runtime/shard_set.h"
#include "shard/scripting/function_registry.h"
#include "shard/scripting/script_registry.h"
#include "shard/state/memory_info.h"
#include "shard/state/server_state.h"
#include "shard/wire/command.h"
#include "shard/wire/command_stats.h"
#include "threadpool/thread_pool.h"
#include "timers/clock.h"

namespace rc {

namespace {

struct ThreadReport {
  ThreadStats thread;
  CommandStats commands;
  ShardStats shard;
  size_t keys = 0;
  size_t dataset_bytes = 0;
  size_t expires = 0;
  int64_t avg_ttl = 0;
  int64_t dirty = 0;
  uint64_t aof_buffer = 0;  // log records not yet handed to the writer thread
};

struct Totals {
  uint64_t connections_received = 0, connected_clients = 0, rejected_connections = 0;
  uint64_t commands_processed = 0, net_input_bytes = 0, net_output_bytes = 0;
  uint64_t reads_processed = 0, writes_processed = 0;
  uint64_t blocked_clients = 0, clients_in_timeout_table = 0;
  uint64_t forwarded_commands = 0;  // run on another thread than their connection's
  size_t recent_max_input = 0, recent_max_output = 0;  // the largest of any thread
  uint64_t keyspace_hits = 0, keyspace_misses = 0, expired_keys = 0, evicted_keys = 0;
  double instantaneous_ops = 0;
  CommandStats commands;  // every thread's, merged
  size_t keys = 0, dataset_bytes = 0, expires = 0;
  int64_t avg_ttl = 0;  // weighted by each shard's keys with a TTL
  int64_t dirty = 0;
  uint64_t aof_buffer = 0;  // log records not yet handed to the writer thread
};

Totals Sum(const std::vector<ThreadReport>& reports) {
  Totals t;
  // The reactors' cron notes the peaks by monotonic second (Reactor::TrackBufferPeaks).
  const int64_t now_sec = MonotonicNanos() / 1'000'000'000;
  for (const auto& r : reports) {
    t.recent_max_input = std::max(t.recent_max_input, r.thread.recent_input.Max(now_sec));
    t.recent_max_output = std::max(t.recent_max_output, r.thread.recent_output.Max(now_sec));
    t.connections_received += r.thread.connections_received;
    t.connected_clients += r.thread.connected_clients;
    t.rejected_connections += r.thread.rejected_connections;
    t.blocked_clients += r.thread.blocked_clients;
    t.clients_in_timeout_table += r.thread.clients_in_timeout_table;
    t.commands_processed += r.thread.commands_processed;
    t.forwarded_commands += r.thread.remote_commands;
    t.net_input_bytes += r.thread.net_input_bytes;
    t.net_output_bytes += r.thread.net_output_bytes;
    t.reads_processed += r.thread.reads_processed;
    t.writes_processed += r.thread.writes_processed;
    t.instantaneous_ops += r.thread.InstantaneousOps();
    t.commands.Merge(r.commands);
    t.keyspace_hits += r.shard.keyspace_hits;
    t.keyspace_misses += r.shard.keyspace_misses;
    t.expired_keys += r.shard.expired_keys;
    t.evicted_keys += r.shard.evicted_keys;
    t.keys += r.keys;
    t.dirty += r.dirty;
    t.dataset_bytes += r.dataset_bytes;
    t.expires += r.expires;
  }
  if (t.expires > 0) {
    double weighted = 0;
    for (const auto& r : reports) weighted += double(r.avg_ttl) * double(r.expires);
    t.avg_ttl = int64_t(weighted / double(t.expires));
  }
  return t;
}

void ServerSection(const ServerState& s, std::string* out) {
  utsname u;
  uname(&u);
  int64_t now_us = s.clock->NowUnixMicros();
  int64_t uptime = (now_us - s.start_unix_us) / 1'000'000;
  StrAppend(out, "# Server\r\n", "redis_version:", kRedisVersion, "\r\n",
            "ringcache_version:0.1.0\r\n",
            "redis_mode:", s.config.cluster_enabled ? "cluster" : "standalone", "\r\n",
            "os:", u.sysname, " ", u.release, " ", u.machine, "\r\n", "arch_bits:64\r\n",
            "multiplexing_api:", s.config.io_engine, "\r\n", "io_engine:", s.config.io_engine,
            "\r\n", "gcc_version:", __GNUC__, ".", __GNUC_MINOR__, ".", __GNUC_PATCHLEVEL__, "\r\n",
            "process_id:", getpid(), "\r\n", "run_id:", s.run_id, "\r\n", "tcp_port:", s.bound_port,
            "\r\n", "server_time_usec:", now_us, "\r\n", "uptime_in_seconds:", uptime, "\r\n",
            "uptime_in_days:", uptime / 86400, "\r\n", "hz:",
            s.effective_hz.load(std::memory_order_relaxed), "\r\n", "configured_hz:",
            s.config.hz.get(), "\r\n",
            "executable:", s.executable, "\r\n", "config_file:", s.config.config_file, "\r\n",
            "threads:", s.config.EffectiveThreads(), "\r\n\r\n");
}

void ClientsSection(const ServerState& s, const Totals& t, std::string* out) {
  StrAppend(out, "# Clients\r\n", "connected_clients:", t.connected_clients, "\r\n",
            "cluster_connections:0\r\n", "maxclients:", s.config.maxclients.get(), "\r\n",
            "client_recent_max_input_buffer:", t.recent_max_input, "\r\n",
            "client_recent_max_output_buffer:", t.recent_max_output, "\r\n",
            "blocked_clients:", t.blocked_clients, "\r\n", "tracking_clients:0\r\n",
            "clients_in_timeout_table:", t.clients_in_timeout_table, "\r\n\r\n");
}

// The lazyfree pool's queue and what it has freed (Redis's names): shared by all shards.
uint64_t LazyfreePending(const ServerState& s) {
  return s.lazyfree != nullptr ? s.lazyfree->Pending() : 0;
}
uint64_t LazyfreeDone(const ServerState& s) {
  return s.lazyfree != nullptr ? s.lazyfree->Completed() - s.lazyfreed_before_reset.load() : 0;
}

// Redis 7.0's scripting lines of INFO memory: the Lua states' heaps (every thread's two,
// summed), the scripts' bodies and the function libraries.
void ScriptingMemory(const ServerState& s, std::string* out) {
  uint64_t vm_eval = 0, vm_functions = 0, scripts_eval = 0, cached = 0;
  uint64_t functions = 0, libraries = 0, functions_bytes = 0;
  if (s.scripts != nullptr) {
    const ScriptRegistry& r = *s.scripts;
    vm_eval = uint64_t(std::max<int64_t>(0, r.eval_vm_bytes()));
    vm_functions = uint64_t(std::max<int64_t>(0, r.functions_vm_bytes()));
    scripts_eval = r.body_bytes();
    cached = r.count();
    functions = r.functions().function_count();
    libraries = r.functions().library_count();
    functions_bytes = r.functions().memory_bytes();
  }
  const uint64_t vm_total = vm_eval + vm_functions;
  const uint64_t scripts = scripts_eval + functions_bytes;
  StrAppend(out, "used_memory_lua:", vm_eval, "\r\n", "used_memory_vm_eval:", vm_eval, "\r\n",
            "used_memory_lua_human:", HumanBytes(vm_eval), "\r\n",
            "used_memory_scripts_eval:", scripts_eval, "\r\n", "number_of_cached_scripts:", cached,
            "\r\n", "number_of_functions:", functions, "\r\n", "number_of_libraries:", libraries,
            "\r\n", "used_memory_vm_functions:", vm_functions, "\r\n",
            "used_memory_vm_total:", vm_total, "\r\n",
            "used_memory_vm_total_human:", HumanBytes(vm_total), "\r\n",
            "used_memory_functions:", functions_bytes, "\r\n", "used_memory_scripts:", scripts,
            "\r\n", "used_memory_scripts_human:", HumanBytes(scripts), "\r\n");
}

// Redis's allocator_* fields, where the allocator tells them cheaply (not glibc).
void AllocatorMemory(uint64_t rss, std::string* out) {
  const AllocatorFigures a = MallocFigures();
  if (!a.known) return;
  auto ratio = [](int64_t x, int64_t y) { return absl::StrFormat("%.2f", y ? double(x) / y : 0.0); };
  StrAppend(out, "allocator_allocated:", a.allocated, "\r\n", "allocator_active:", a.active,
            "\r\n", "allocator_resident:", a.resident, "\r\n",
            "allocator_frag_ratio:", ratio(a.active, a.allocated), "\r\n",
            "allocator_frag_bytes:", a.active - a.allocated, "\r\n",
            "allocator_rss_ratio:", ratio(a.resident, a.active), "\r\n",
            "allocator_rss_bytes:", a.resident - a.active, "\r\n",
            "rss_overhead_ratio:", ratio(int64_t(rss), a.resident), "\r\n",
            "rss_overhead_bytes:", int64_t(rss) - a.resident, "\r\n");
}

void MemorySection(const ServerState& s, const Totals& t, std::string* out) {
  const uint64_t used = UsedMemory();
  const uint64_t peak = s.memory.NotePeak(used);
  uint64_t rss = RssBytes();
  const auto maxmemory = uint64_t(s.config.maxmemory.get());
  StrAppend(out, "# Memory\r\n", "used_memory:", used, "\r\n",
            "used_memory_human:", HumanBytes(used), "\r\n", "used_memory_rss:", rss, "\r\n",
            "used_memory_rss_human:", HumanBytes(rss), "\r\n", "used_memory_peak:", peak, "\r\n",
            "used_memory_peak_human:", HumanBytes(peak), "\r\n",
            "used_memory_dataset:", t.dataset_bytes, "\r\n",
            "mem_counted_for_evict:", used + uint64_t(MallocHeaderBytes()), "\r\n",
            "mem_fragmentation_ratio:",
            absl::StrFormat("%.2f", used ? double(rss) / double(used) : 0.0), "\r\n");
  AllocatorMemory(rss, out);
  ScriptingMemory(s, out);
  StrAppend(out, "maxmemory:", maxmemory, "\r\n", "maxmemory_human:", HumanBytes(maxmemory), "\r\n",
            "maxmemory_policy:", PolicyName(s.config.maxmemory_policy), "\r\n",
            "mem_allocator:", MallocName(), "\r\n", "lazyfree_pending_objects:", LazyfreePending(s), "\r\n",
            "\r\n");
}

// Redis 7.0's fields. The cow_* ones measure what a snapshot holds beyond the data set:
// records queued for the file, the old values writes kept (docs/PERSISTENCE.md). The
// file loads before the server listens, so loading is always 0 to a client.
void PersistenceSection(const ServerState& s, const Totals& t, std::string* out) {
  const PersistState& p = s.persist;
  const int64_t now = s.clock->NowUnixMillis() / 1000;
  const bool saving = p.saving.load();
  const int64_t started = p.save_started_unix.load();
  const bool rewriting = p.aof_rewriting.load();
  const int64_t rw_started = p.aof_rewrite_started_unix.load();
  StrAppend(out, "# Persistence\r\n", "loading:0\r\n", "async_loading:0\r\n",
            "current_cow_peak:", saving ? p.peak_bytes.load() : 0, "\r\n", "current_cow_size:", saving ? p.queued_bytes.load() : 0,
            "\r\n", "current_cow_size_age:0\r\n", "current_fork_perc:0.00\r\n",
            "current_save_keys_processed:0\r\n", "current_save_keys_total:0\r\n",
            "rdb_changes_since_last_save:", t.dirty - p.dirty_at_save.load(), "\r\n",
            "rdb_bgsave_in_progress:", saving && !rewriting ? 1 : 0, "\r\n",
            "rdb_last_save_time:", p.lastsave_unix.load(), "\r\n",
            "rdb_last_bgsave_status:", p.last_ok.load() ? "ok" : "err", "\r\n",
            "rdb_last_bgsave_time_sec:", p.last_duration_s.load(), "\r\n",
            "rdb_current_bgsave_time_sec:", saving && started >= 0 ? now - started : -1, "\r\n",
            "rdb_saves:", p.saves.load(), "\r\n", "rdb_last_cow_size:", p.last_peak_bytes.load(),
            "\r\n", "rdb_last_load_keys_expired:", p.loaded_expired.load(), "\r\n",
            "rdb_last_load_keys_loaded:", p.loaded_keys.load(), "\r\n",
            "aof_enabled:", s.config.appendonly.get() ? 1 : 0, "\r\n",
            "aof_rewrite_in_progress:", rewriting ? 1 : 0, "\r\n",
            "aof_rewrite_scheduled:", p.aof_rewrite_scheduled.load() ? 1 : 0, "\r\n",
            "aof_last_rewrite_time_sec:", p.aof_last_rewrite_s.load(), "\r\n",
            "aof_current_rewrite_time_sec:", rewriting && rw_started >= 0 ? now - rw_started : -1,
            "\r\n", "aof_last_bgrewrite_status:", p.aof_last_rewrite_ok.load() ? "ok" : "err",
            "\r\n", "aof_rewrites:", p.aof_rewrites.load(), "\r\n",
            "aof_rewrites_consecutive_failures:", p.aof_rewrite_failures.load(), "\r\n",
            "aof_last_write_status:", p.aof_last_write_ok.load() ? "ok" : "err", "\r\n",
            "aof_last_cow_size:0\r\n", "module_fork_in_progress:0\r\n",
            "module_fork_last_cow_size:0\r\n");
  if (s.config.appendonly.get()) {
    StrAppend(out, "aof_current_size:", p.aof_current_size.load(), "\r\n",
              "aof_base_size:", p.aof_base_size.load(), "\r\n",
              "aof_pending_rewrite:", p.aof_rewrite_scheduled.load() ? 1 : 0, "\r\n",
              "aof_buffer_length:", t.aof_buffer, "\r\n",
              "aof_pending_bio_fsync:", p.aof_fsync_in_progress.load() ? 1 : 0, "\r\n",
              // The writer thread never postpones a write for an fsync, as Redis's
              // everysec does when its background fsync runs late.
              "aof_delayed_fsync:0\r\n");
  }
  out->append("\r\n");
}

void StatsSection(const ServerState& s, const Totals& t, std::string* out) {
  const int64_t now_ms = s.clock->NowUnixMillis();
  StrAppend(out, "# Stats\r\n", "total_connections_received:", t.connections_received, "\r\n",
            "total_commands_processed:", t.commands_processed, "\r\n",
            "instantaneous_ops_per_sec:", uint64_t(t.instantaneous_ops + 0.5), "\r\n",
            "total_net_input_bytes:", t.net_input_bytes, "\r\n",
            "total_net_output_bytes:", t.net_output_bytes, "\r\n",
            "rejected_connections:", t.rejected_connections, "\r\n",
            "expired_keys:", t.expired_keys, "\r\n", "evicted_keys:", t.evicted_keys, "\r\n",
            "evicted_clients:0\r\n", "total_eviction_exceeded_time:", s.memory.TotalOverMs(now_ms),
            "\r\n", "current_eviction_exceeded_time:", s.memory.CurrentOverMs(now_ms), "\r\n",
            "keyspace_hits:", t.keyspace_hits, "\r\n", "keyspace_misses:", t.keyspace_misses,
            "\r\n", "lazyfreed_objects:", LazyfreeDone(s), "\r\n", "unexpected_error_replies:0\r\n",
            "total_error_replies:", t.commands.total_error_replies(), "\r\n",
            "dump_payload_sanitizations:0\r\n", "total_reads_processed:", t.reads_processed, "\r\n",
            "total_writes_processed:", t.writes_processed, "\r\n",
            "io_threaded_reads_processed:0\r\n", "io_threaded_writes_processed:0\r\n",
            // ringcache's own: commands whose keys another thread owned (one hop each);
            // cluster-aware clients on the per-thread ports keep it near 0 (docs/CLUSTER.md).
            "forwarded_commands:", t.forwarded_commands, "\r\n\r\n");
}

// A master without replicas, or a replica, as Redis 7.0 reports them; no backlog is kept
// (repl_backlog_active:0).
void ReplicationSection(const ServerState& s, ShardSet& shards, std::string* out) {
  const ReplicationState& r = s.replication;
  std::string host, replid, replid2;
  int port = 0;
  int64_t second_offset = -1;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    host = r.master_host;
    port = r.master_port;
    replid = r.replid;
    replid2 = r.replid2;
    second_offset = r.second_offset;
  }
  const bool replica = r.replica.load();
  const int64_t offset = replica ? r.offset.load() : shards.replicas().offset();
  StrAppend(out, "# Replication\r\n");
  if (!replica) {
    const std::vector<ReplicationHub::View> replicas = shards.replicas().List();
    StrAppend(out, "role:master\r\n", "connected_slaves:", replicas.size(), "\r\n");
    const int64_t now_ms = s.clock->NowUnixMillis();
    for (size_t i = 0; i < replicas.size(); ++i) {
      const ReplicationHub::View& v = replicas[i];
      StrAppend(out, "slave", i, ":ip=", v.ip, ",port=", v.port,
                ",state=", v.online ? "online" : "wait_bgsave", ",offset=", v.ack_offset,
                ",lag=", v.ack_ms > 0 ? (now_ms - v.ack_ms) / 1000 : 0, "\r\n");
    }
  } else {
    const int64_t now_ms = s.clock->NowUnixMillis();
    const LinkState link = r.link.load();
    const bool up = link == LinkState::kConnected;
    const bool syncing = link == LinkState::kSync;
    const int64_t last_io = r.last_io_ms.load();
    StrAppend(out, "role:slave\r\n", "master_host:", host, "\r\n", "master_port:", port, "\r\n",
              "master_link_status:", up ? "up" : "down", "\r\n", "master_last_io_seconds_ago:",
              up && last_io > 0 ? (now_ms - last_io) / 1000 : -1, "\r\n",
              "master_sync_in_progress:", syncing ? 1 : 0, "\r\n",
              "slave_read_repl_offset:", up ? r.read_offset.load() : offset, "\r\n",
              "slave_repl_offset:", offset, "\r\n");
    if (syncing) {
      const int64_t total = r.sync_total.load();
      const int64_t read = r.sync_read.load();
      const double perc = total > 0 ? double(read) * 100 / double(total) : 0;
      StrAppend(out, "master_sync_total_bytes:", total, "\r\n", "master_sync_read_bytes:", read,
                "\r\n", "master_sync_left_bytes:", total - read, "\r\n",
                "master_sync_perc:", absl::StrFormat("%.2f", perc), "\r\n",
                "master_sync_last_io_seconds_ago:",
                last_io > 0 ? (now_ms - last_io) / 1000 : 0, "\r\n");
    }
    if (!up) {
      const int64_t down = r.down_since_ms.load();
      StrAppend(out, "master_link_down_since_seconds:", down > 0 ? (now_ms - down) / 1000 : -1,
                "\r\n");
    }
    StrAppend(out, "slave_priority:100\r\n", "slave_read_only:",
              s.config.replica_read_only.get() ? 1 : 0, "\r\n", "replica_announced:1\r\n",
              "connected_slaves:0\r\n");
  }
  StrAppend(out, "master_failover_state:no-failover\r\n", "master_replid:", replid, "\r\n",
            "master_replid2:", replid2, "\r\n", "master_repl_offset:", offset, "\r\n",
            "second_repl_offset:", second_offset, "\r\n", "repl_backlog_active:0\r\n",
            "repl_backlog_size:1048576\r\n", "repl_backlog_first_byte_offset:0\r\n",
            "repl_backlog_histlen:0\r\n\r\n");
}

void CpuSection(std::string* out) {
  rusage self;
  getrusage(RUSAGE_SELF, &self);
  auto secs = [](const timeval& tv) {
    return absl::StrFormat("%.6f", double(tv.tv_sec) + double(tv.tv_usec) / 1e6);
  };
  rusage children;
  getrusage(RUSAGE_CHILDREN, &children);
  StrAppend(out, "# CPU\r\n", "used_cpu_sys:", secs(self.ru_stime), "\r\n",
            "used_cpu_user:", secs(self.ru_utime), "\r\n",
            "used_cpu_sys_children:", secs(children.ru_stime), "\r\n",
            "used_cpu_user_children:", secs(children.ru_utime), "\r\n\r\n");
}

void CommandStatsSection(const Totals& t, const std::vector<std::string>& names, std::string* out) {
  StrAppend(out, "# Commandstats\r\n");
  const auto& cmds = t.commands.commands();
  for (size_t i = 0; i < cmds.size() && i < names.size(); ++i) {
    const CommandStat& c = cmds[i];
    if (c.calls == 0 && c.failed == 0 && c.rejected == 0) continue;
    double usec = double(c.nanos) / 1000.0;
    StrAppend(out, "cmdstat_", names[i], ":calls=", c.calls, ",usec=", uint64_t(usec),
              ",usec_per_call=", absl::StrFormat("%.2f", c.calls ? usec / double(c.calls) : 0.0),
              ",rejected_calls=", c.rejected, ",failed_calls=", c.failed, "\r\n");
  }
  StrAppend(out, "\r\n");
}

void ErrorStatsSection(const Totals& t, std::string* out) {
  StrAppend(out, "# Errorstats\r\n");
  for (const auto& [code, n] : t.commands.errors()) {
    StrAppend(out, "errorstat_", code, ":count=", n, "\r\n");
  }
  StrAppend(out, "\r\n");
}

void LatencyStatsSection(const Totals& t, const std::vector<std::string>& names,
                         const std::vector<double>& percentiles, std::string* out) {
  StrAppend(out, "# Latencystats\r\n");
  const auto& cmds = t.commands.commands();
  for (size_t i = 0; i < cmds.size() && i < names.size(); ++i) {
    const LatencyHistogram* h = cmds[i].hist.get();
    if (h == nullptr || h->total() == 0) continue;
    StrAppend(out, "latency_percentiles_usec_", names[i], ":");
    for (size_t p = 0; p < percentiles.size(); ++p) {
      StrAppend(out, p ? "," : "", "p", FormatTrimmedDouble(percentiles[p]), "=",
                absl::StrFormat("%.3f", double(h->Percentile(percentiles[p])) / 1000.0));
    }
    StrAppend(out, "\r\n");
  }
  StrAppend(out, "\r\n");
}

void KeyspaceSection(const Totals& t, std::string* out) {
  StrAppend(out, "# Keyspace\r\n");
  if (t.keys > 0) {
    StrAppend(out, "db0:keys=", t.keys, ",expires=", t.expires, ",avg_ttl=", t.avg_ttl, "\r\n");
  }
  StrAppend(out, "\r\n");
}

// Redis 7.0's sections in its order; `in_default` ones make up INFO / INFO default.
struct SectionName {
  const char* name;
  bool in_default;
};
constexpr SectionName kSections[] = {
    {"server", true},        {"clients", true},     {"memory", true},        {"persistence", true},
    {"stats", true},         {"replication", true}, {"cpu", true},           {"modules", true},
    {"commandstats", false}, {"errorstats", true},  {"latencystats", false}, {"cluster", true},
    {"keyspace", true},
};

void Info(CoordCmd& cmd) {
  std::set<std::string> want;
  auto add_all = [&](bool everything) {
    for (const auto& s : kSections) {
      if (everything || s.in_default) want.insert(s.name);
    }
  };
  if (cmd.args.size() == 1) add_all(false);
  ArgParser p(cmd.args, 1);
  while (p.HasNext()) {
    if (p.Flag("ALL") || p.Flag("EVERYTHING")) {
      add_all(true);
    } else if (p.Flag("DEFAULT")) {
      add_all(false);
    } else {
      want.insert(ToLower(p.Next<std::string_view>()));
    }
  }
  std::vector<double> percentiles;
  {
    std::lock_guard<std::mutex> lock(cmd.server.config_mu);
    percentiles = cmd.server.config.latency_tracking_info_percentiles;
  }
  DeferredReply out(cmd);
  const ServerState* server = &cmd.server;
  ShardSet* shards = &cmd.shards;
  const std::vector<std::string>* names = &cmd.table.stat_names();
  FanOutThreads<ThreadReport>(
      cmd.self, cmd.shards, AllShards(cmd.shards),
      [](ShardThread& thread, size_t) {
        Shard& shard = thread.shard();
        return ThreadReport{thread.stats(),
                            thread.command_stats(),
                            shard.stats(),
                            shard.size(),
                            shard.MemoryBytes(),
                            shard.keys_with_ttl(),
                            shard.SampleAvgTtl(shard.NowMs()),
                            shard.Dirty()};
      },
      [out, server, shards, want, names, percentiles](std::vector<ThreadReport>& reports) {
        Totals t = Sum(reports);
        t.aof_buffer = shards->journal().pending();
        std::string text;
        for (const auto& section : kSections) {
          std::string_view s = section.name;
          if (!want.count(section.name)) continue;
          if (s == "server") ServerSection(*server, &text);
          if (s == "clients") ClientsSection(*server, t, &text);
          if (s == "memory") MemorySection(*server, t, &text);
          if (s == "persistence") PersistenceSection(*server, t, &text);
          if (s == "stats") StatsSection(*server, t, &text);
          if (s == "replication") ReplicationSection(*server, *shards, &text);
          if (s == "cpu") CpuSection(&text);
          if (s == "modules") StrAppend(&text, "# Modules\r\n\r\n");
          if (s == "commandstats") CommandStatsSection(t, *names, &text);
          if (s == "errorstats") ErrorStatsSection(t, &text);
          if (s == "latencystats") LatencyStatsSection(t, *names, percentiles, &text);
          if (s == "cluster") {
            StrAppend(&text,
                      "# Cluster\r\ncluster_enabled:", server->config.cluster_enabled ? 1 : 0,
                      "\r\n\r\n");
          }
          if (s == "keyspace") KeyspaceSection(t, &text);
        }
        // Redis ends the last section without the blank line.
        if (text.size() >= 2) text.resize(text.size() - 2);
        out.Send([&](ReplyBuilder& rb) { rb.Verbatim(text); });
      });
}

}  // namespace

void RegisterInfoCommand(CommandTable& t) {
  t.StartFamily().Add({.name = "info",
                       .arity = -1,
                       .flags = kCmdLoading | kCmdStale | kCmdAllThreads,
                       .on_coord = Info,
                       .categories = {"@dangerous"}});
}

}  // namespace rc
