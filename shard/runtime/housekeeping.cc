#include "shard/runtime/housekeeping.h"

#include <algorithm>

#include "shard/runtime/memory_limit.h"
#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"
#include "timers/clock.h"

namespace rc {

namespace {

// Times a step for the latency monitor: the clock is read only while the monitor is on.
class LatencyEvent {
 public:
  LatencyEvent(ServerState& server, const char* name)
      : server_(server),
        name_(name),
        start_ns_(server.config.latency_monitor_threshold > 0 ? MonotonicNanos() : 0) {}
  ~LatencyEvent() {
    const int64_t threshold_ms = server_.config.latency_monitor_threshold;
    if (threshold_ms <= 0 || start_ns_ == 0) return;
    const int64_t ms = (MonotonicNanos() - start_ns_) / 1'000'000;
    if (ms >= threshold_ms) {
      server_.introspect.latency.Add(name_, uint64_t(ms), server_.clock->NowUnixMillis() / 1000);
    }
  }

 private:
  ServerState& server_;
  const char* name_;
  int64_t start_ns_;
};

// Expires keys past their deadline within the per-turn key and time budgets; true when
// more are due now.
bool ExpireStep(Shard& shard, const Config& config) {
  const int64_t now_ms = shard.NowMs();
  const int64_t max_keys = config.active_expire_keys_per_turn;
  const int64_t budget_ns = config.active_expire_us_per_turn * 1000;
  const int64_t start = MonotonicNanos();
  // Small batches, so the time budget is checked often without reading the clock per key.
  constexpr int64_t kBatch = 64;
  for (int64_t done = 0; done < max_keys;) {
    const size_t n = shard.ExpireDue(now_ms, size_t(std::min(kBatch, max_keys - done)));
    done += int64_t(n);
    if (n < size_t(kBatch) || MonotonicNanos() - start >= budget_ns) break;
  }
  return shard.NextDeadline() <= now_ms;
}

}  // namespace

HousekeepingTurn Housekeep(ShardSet& shards, uint32_t self, ServerState& server, bool idle_turn,
                           int64_t now_us, absl::FunctionRef<void()> flush_replies) {
  Shard& shard = shards.thread(self).shard();
  HousekeepingTurn turn;
  turn.more = idle_turn && shard.IdleRehashStep();
  if (shard.keys_with_ttl() > 0 && shard.NextDeadline() <= shard.NowMs()) {
    flush_replies();
    LatencyEvent event(server, "expire-cycle");
    turn.more |= ExpireStep(shard, server.config);
  }
  if (shard.SnapshotActive()) {
    flush_replies();
    LatencyEvent event(server, "snapshot-slice");
    const SnapshotProgress progress = shard.SnapshotStep(now_us);
    turn.more |= progress == SnapshotProgress::kMore;
    turn.snapshot_waiting = progress == SnapshotProgress::kWaiting;
  }
  if (const int64_t excess = MemoryToFree(shards, self, server); excess > 0) {
    flush_replies();
    LatencyEvent event(server, "eviction-cycle");
    turn.more |= FreeMemory(shards, self, server, excess);
  }
  return turn;
}

}  // namespace rc
