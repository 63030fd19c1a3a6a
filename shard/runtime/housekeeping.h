#pragma once
// A shard thread's background work, once per loop turn after the turn's requests:
// rehashing on an idle turn, expiring keys past their deadline (active expiry), a slice
// of a running snapshot, evicting keys past maxmemory. Each step is bounded
// (active-expire-keys/us-per-turn, a snapshot slice, the eviction budget), and the
// turn's replies leave before each step that may take long, so background work delays
// no reply by more than one step. Steps that pass latency-monitor-threshold are noted
// as Redis's events "expire-cycle", "eviction-cycle" and "snapshot-slice".

#include <cstdint>

#include "absl/functional/function_ref.h"

namespace rc {

class ShardSet;
struct ServerState;

struct HousekeepingTurn {
  bool more = false;              // work is left now: the loop should not sleep
  bool snapshot_waiting = false;  // the snapshot waits for its writer or its pace
};

// Shard thread `self`. `idle_turn`: the turn served no request. `flush_replies` sends
// what the turn answered so far.
HousekeepingTurn Housekeep(ShardSet& shards, uint32_t self, ServerState& server, bool idle_turn,
                           int64_t now_us, absl::FunctionRef<void()> flush_replies);

}  // namespace rc
