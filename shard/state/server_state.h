#pragma once
// Process-wide state every thread may read. Written only before the workers start,
// except the atomics.

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "shard/state/cluster_state.h"
#include "shard/state/config.h"
#include "shard/state/introspection.h"
#include "shard/state/memory_state.h"
#include "shard/state/persist_state.h"
#include "shard/state/replication_state.h"
#include "timers/clock.h"

namespace rc {

// The Redis version ringcache answers as (INFO, HELLO): the one whose replies it matches.
inline constexpr std::string_view kRedisVersion = "7.0.15";

class CommandTable;
class ScriptRegistry;
class ThreadPool;

struct ServerState {
  // Numeric settings are Tunables any thread reads freely; CONFIG GET and SET hold
  // config_mu for everything else (strings).
  Config config;
  std::mutex config_mu;
  const CommandTable* commands = nullptr;
  const Clock* clock = &SystemClock::Instance();
  int64_t start_unix_us = 0;
  int64_t start_mono_ns = 0;
  std::string run_id;
  std::string executable;
  int bound_port = 0;
  std::atomic<uint64_t> next_client_id{1};
  // The cron's rate as reactor 0 last computed it (Config::EffectiveHz), for INFO's hz.
  std::atomic<int64_t> effective_hz{10};
  // Channel and pattern subscriptions of all clients: keyspace events are skipped
  // entirely while it is zero.
  std::atomic<int64_t> pubsub_subscriptions{0};
  // Frees large values handed over by shard threads; outlives them. Null in tests that
  // build shards without one: values are then freed inline.
  ThreadPool* lazyfree = nullptr;
  // Runs what waits on the network, off the reactors: MIGRATE's exchange with its target
  // (shard/families/dump/migrate_io.h). One thread; stopped before the shards go. Null in
  // tests that build shards without one: MIGRATE then answers an error.
  ThreadPool* network_io = nullptr;
  // The pool's Completed() at the last CONFIG RESETSTAT: INFO's lazyfreed_objects counts
  // from there, as Redis's does.
  std::atomic<uint64_t> lazyfreed_before_reset{0};
  // SLOWLOG, LATENCY and CLIENT PAUSE state, shared by every thread.
  Introspection introspect;
  // maxmemory's server-wide figures (shard/runtime/memory_limit.h).
  MemoryState memory;
  // Snapshots: in progress, last result, changes since (shard/persist/).
  PersistState persist;
  // REPLICAOF and the master link (docs/REPLICATION.md).
  ReplicationState replication;
  // The slot map while cluster-enabled is yes (docs/CLUSTER.md); no map otherwise.
  ClusterState cluster;
  // Scripts and each thread's Lua engine (shard/scripting/script_registry.h); null in
  // tests that build shards without it: EVAL then answers an error.
  ScriptRegistry* scripts = nullptr;

  // Set once SHUTDOWN or a signal asked the server to stop.
  std::atomic<bool> shutdown_requested{false};
  // Installed by the network layer: wakes every reactor so it notices shutdown. Any thread.
  std::function<void()> wake_all;

  // slowlog-log-slower-than: whether a command that ran `ns` belongs in SLOWLOG.
  bool SlowEnough(uint64_t ns) const {
    const int64_t threshold_us = config.slowlog_log_slower_than;
    return threshold_us >= 0 && int64_t(ns / 1000) >= threshold_us;
  }
  // Any thread: SLOWLOG gets `args` of client `addr` / `name` when it ran SlowEnough.
  void LogIfSlow(ArgList args, uint64_t ns, const std::string& addr, const std::string& name) {
    if (!SlowEnough(ns)) return;
    introspect.slowlog.Add(args, ns / 1000, clock->NowUnixMillis() / 1000, addr, name,
                           size_t(config.slowlog_max_len.get()));
  }

  void RequestShutdown() {
    shutdown_requested.store(true);
    if (wake_all) wake_all();
  }
};

}  // namespace rc
