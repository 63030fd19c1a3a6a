#pragma once
// The server's settings and their defaults. Names and units follow Redis, so an existing
// redis.conf line means the same here. How each is read and printed: config_params.h;
// the file: config_file.h; the command line: command_line.h.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "shard/state/eviction_policy.h"

namespace rc {

// A numeric setting every thread reads on its hot path while CONFIG SET may change it:
// a relaxed atomic (a reader seeing the old value for a moment is fine), copyable so
// Config stays a value type.
template <typename T>
class Tunable {
 public:
  Tunable(T v = T()) : v_(v) {}  // NOLINT: implicit, so defaults read naturally
  Tunable(const Tunable& o) : v_(o.get()) {}
  Tunable& operator=(const Tunable& o) {
    set(o.get());
    return *this;
  }
  Tunable& operator=(T v) {
    set(v);
    return *this;
  }
  T get() const { return v_.load(std::memory_order_relaxed); }
  operator T() const { return get(); }  // NOLINT
  void set(T v) { v_.store(v, std::memory_order_relaxed); }

 private:
  std::atomic<T> v_;
};

// One address of `bind`. Redis's forms: "*" is every IPv4 address, "::*" every IPv6 one,
// and a "-" in front marks one this host may lack: skipped when it cannot be bound.
struct BindAddress {
  std::string host;  // as getaddrinfo takes it ("*" and "::*" already translated)
  bool optional = false;
};
// `bind`'s addresses in order; empty for a list without any.
std::vector<BindAddress> BindAddresses(std::string_view bind);

struct Config {
  // Fixed once the server runs.
  int port = 6379;
  // Redis's list of addresses, space-separated (BindAddresses reads it).
  std::string bind = "127.0.0.1";
  int threads = 0;  // 0: one per core
  int tcp_backlog = 511;
  int metrics_port = 0;      // Prometheus endpoint (net/metrics_server.h); 0: off
  int lazyfree_threads = 1;  // the pool that frees large values off shard threads
  // "io_uring" or "epoll". The server falls back to epoll when io_uring cannot be set up
  // and then stores what runs here.
  std::string io_engine = "io_uring";
  std::string config_file;
  // Redis Cluster protocol (docs/CLUSTER.md). Without a map file every worker thread is a
  // node on its own port: cluster_port_base + i, or port + 1 + i when the base is 0
  // (ephemeral ports when `port` is 0 too).
  bool cluster_enabled = false;
  std::string cluster_config_file;  // the shared JSON slot map; "": one node per thread
  std::string cluster_announce_ip;  // the address nodes advertise; "": bind, or 127.0.0.1
  int cluster_port_base = 0;
  // Changeable with CONFIG SET.
  Tunable<int64_t> maxclients = 10000;
  Tunable<int64_t> proto_max_bulk_len = 512LL * 1024 * 1024;
  Tunable<int64_t> timeout = 0;  // seconds a client may stay idle; 0 = forever
  Tunable<int64_t> hz = 10;
  // Redis's dynamic-hz: the cron runs faster while there are many clients to look after.
  Tunable<bool> dynamic_hz = true;
  // Active expiry per loop turn: at most this many keys and this much time, so a million
  // keys expiring together never stall a reactor.
  Tunable<int64_t> active_expire_keys_per_turn = 20000;
  Tunable<int64_t> active_expire_us_per_turn = 500;
  // A sorted set with more members than this is freed by the lazyfree pool when it is
  // deleted, overwritten, expired or flushed; smaller ones inline (Redis's threshold).
  Tunable<int64_t> lazyfree_threshold = 64;
  // Which removals hand such a value to the pool (Redis's lazyfree-lazy-*); off, the
  // shard thread frees it inline. Unlike Redis's defaults (all no), deletes, expiry and
  // eviction free lazily, as Valkey 8's do, so that no large value stalls a shard;
  // FLUSHALL without ASYNC or SYNC frees inline, as Redis's. UNLINK always frees lazily.
  Tunable<bool> lazyfree_lazy_eviction = true;
  Tunable<bool> lazyfree_lazy_expire = true;
  Tunable<bool> lazyfree_lazy_server_del = true;
  Tunable<bool> lazyfree_lazy_user_del = true;
  Tunable<bool> lazyfree_lazy_user_flush = false;
  // Encoding thresholds of hashes and sets, as Redis's (core/hash.h, core/set.h).
  Tunable<int64_t> hash_max_listpack_entries = 512;
  Tunable<int64_t> hash_max_listpack_value = 64;
  Tunable<int64_t> set_max_intset_entries = 512;
  // Sorted sets' (core/zset.h); the value is at most 255, the compact block's limit.
  Tunable<int64_t> zset_max_listpack_entries = 128;
  Tunable<int64_t> zset_max_listpack_value = 64;
  // A list block's limit, as Redis's quicklist node (core/list.h): negative caps bytes
  // (-2: 8 KiB), positive caps elements.
  Tunable<int64_t> list_max_listpack_size = -2;
  // The memory limit for the whole server and what goes when it is reached
  // (docs/EVICTION.md). 0: no limit.
  Tunable<int64_t> maxmemory = 0;
  Tunable<EvictionPolicy> maxmemory_policy = EvictionPolicy::kNoEviction;
  // Keys sampled per eviction under volatile-lru and volatile-lfu.
  Tunable<int64_t> maxmemory_samples = 5;
  // Bounds the time each loop turn spends evicting, on Redis's scale: 10 is 500 µs.
  Tunable<int64_t> maxmemory_eviction_tenacity = 10;
  std::string loglevel = "notice";
  // The process as a service manager runs it (core/process.h), fixed at start: Redis's
  // daemonize, pidfile (daemonized without one: /var/run/ringcache.pid), logfile ("":
  // stdout) and supervised (no, upstart, systemd or auto).
  bool daemonize = false;
  std::string pidfile;
  std::string logfile;
  std::string supervised = "no";
  // Transparent huge pages off for this process (Redis's disable-thp): a fork-free
  // server gains nothing from them and pays their latency spikes all the same.
  bool disable_thp = true;
  // Seconds of silence before TCP keepalive probes an accepted client (0: none), for
  // connections accepted from then on, as in Redis.
  Tunable<int64_t> tcp_keepalive = 300;
  // Idle loop turns advance a resize of the key table (Redis's activerehashing);
  // without, only key lookups and writes do.
  Tunable<bool> activerehashing = true;
  Tunable<int64_t> notify_keyspace_events = 0;  // NotifyFlag bits (shard/notify.h)

  // Security (docs/RELIABILITY.md). The password is read under ServerState::config_mu;
  // auth_required mirrors "a password is set" for the per-command check.
  std::string requirepass;
  Tunable<bool> auth_required = false;
  // With no password, connections from non-loopback peers are refused (Redis's DENIED).
  Tunable<bool> protected_mode = true;
  // Redis 7's enable-protected-configs: whether CONFIG SET may change the protected
  // settings (dir, dbfilename): "no", "yes", or "local" for loopback clients. Fixed at start.
  std::string enable_protected_configs = "no";
  // Redis 7's enable-debug-command, the same way for DEBUG. Fixed at start.
  std::string enable_debug_command = "no";

  // Client limits. A client whose unparsed input exceeds this is closed.
  Tunable<int64_t> client_query_buffer_limit = 1LL << 30;
  // Output buffer limits per client class (Redis's client-output-buffer-limit): over
  // `hard` bytes of pending output, or over `soft` for more than `soft_seconds`, the
  // client is disconnected. 0 disables a bound.
  struct OutputLimit {
    Tunable<int64_t> hard = 0;
    Tunable<int64_t> soft = 0;
    Tunable<int64_t> soft_seconds = 0;
  };
  enum ClientClass { kNormal = 0, kReplica = 1, kPubSub = 2, kClientClasses = 3 };
  OutputLimit output_limits[kClientClasses] = {
      {0, 0, 0}, {256LL << 20, 64LL << 20, 60}, {32LL << 20, 8LL << 20, 60}};
  // Diagnostics (shard/introspection.h). Microseconds; -1 logs nothing, 0 everything.
  Tunable<int64_t> slowlog_log_slower_than = 10000;
  Tunable<int64_t> slowlog_max_len = 128;
  Tunable<int64_t> latency_monitor_threshold = 0;  // milliseconds; 0 = off
  Tunable<int64_t> latency_tracking = 1;           // per-command latency histograms
  // Milliseconds a script runs before its thread turns busy: -BUSY to other commands,
  // SCRIPT KILL possible (docs/SCRIPTING.md). 0: never. Redis's, alias lua-time-limit.
  Tunable<int64_t> busy_reply_threshold = 5000;
  // Snapshots (docs/PERSISTENCE.md). The strings and save points are under config_mu.
  // `dir` is absolute: the working directory at start unless set.
  std::string dir;
  std::string dbfilename = "dump.rdb";
  struct SavePoint {
    int64_t seconds = 0;
    int64_t changes = 0;
  };
  std::vector<SavePoint> save_points = {{3600, 1}, {300, 100}, {60, 10000}};
  Tunable<bool> rdbcompression = true;
  Tunable<bool> rdbchecksum = true;
  Tunable<bool> stop_writes_on_bgsave_error = true;
  // Microseconds between two keys of a snapshot's background slices: Redis's test knob,
  // here a pace rather than a sleep, so no thread stalls. 0 in production.
  Tunable<int64_t> rdb_key_save_delay = 0;
  // Replication (docs/REPLICATION.md): the master this server follows as "host port"
  // ("" for none: a master), kept by REPLICAOF; the credentials its link uses. Strings,
  // under config_mu.
  std::string replicaof;
  std::string masterauth;
  std::string masteruser;
  // A replica refuses clients' writes (-READONLY).
  Tunable<bool> replica_read_only = true;
  // The append-only log (docs/PERSISTENCE.md). appendfilename and appenddirname are
  // fixed at start, as in Redis; under config_mu like every string.
  Tunable<bool> appendonly = false;
  enum AppendFsync : int64_t { kFsyncNo = 0, kFsyncEverysec = 1, kFsyncAlways = 2 };
  Tunable<int64_t> appendfsync = kFsyncEverysec;
  std::string appendfilename = "appendonly.aof";
  std::string appenddirname = "appendonlydir";
  Tunable<bool> aof_load_truncated = true;
  Tunable<int64_t> auto_aof_rewrite_percentage = 100;
  Tunable<int64_t> auto_aof_rewrite_min_size = 64LL << 20;
  Tunable<bool> no_appendfsync_on_rewrite = false;
  // INFO latencystats' percentiles; under config_mu like every string.
  std::vector<double> latency_tracking_info_percentiles = {50, 99, 99.9};

  // The cron's rate for `clients` connections: hz, doubled (dynamic-hz) while a tick
  // would look at more than 200 clients, up to 500, as Redis computes it.
  int64_t EffectiveHz(size_t clients) const {
    int64_t rate = hz > 0 ? hz.get() : 10;
    if (!dynamic_hz) return rate;
    while (rate < 500 && clients / size_t(rate) > 200) rate = std::min<int64_t>(rate * 2, 500);
    return rate;
  }

  int EffectiveThreads() const {
    if (threads > 0) return threads;
    unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : int(n);
  }
};

}  // namespace rc
