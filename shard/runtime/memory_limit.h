#pragma once
// One maxmemory for the whole server, enforced by every shard on its own keys.
//
// How the shards agree (docs/EVICTION.md has the reasoning and the bounds):
//   - Each shard counts its bytes exactly and publishes them before any reply of a loop
//     turn leaves (Reactor::FlushAll calls Shard::PublishMemory: a relaxed store to a
//     cache line of its own), so a write a client saw answered counts on every thread,
//     and after evicting. The server's
//     memory is this shard's exact figure, plus the others' published ones, plus the
//     sampled overhead outside the shards (MemoryState::overhead).
//   - Every loop turn (at least every cron tick, even when idle) each shard compares
//     that sum with maxmemory. Under it, nobody evicts, however full one shard is.
//   - Over it, each shard evicts its share of the excess: its bytes over the bytes of
//     all shards that hold keys the policy may evict. One round of turns frees the
//     excess once (not once per shard), and every shard gives up memory in proportion
//     to its size, so keys age at one rate across shards, as under one global policy.
// The dispatcher refuses denyoom commands (OOM) only when the server is over the limit
// and the policy can evict nothing anywhere.

#include <cstdint>

namespace rc {

class ShardSet;
struct ServerState;

// Shard thread `self`: the bytes counted against maxmemory.
int64_t ServerMemory(ShardSet& shards, uint32_t self, const ServerState& server);

// Shard thread `self` (the connection's): whether a command Redis flags denyoom must get
// the OOM error now. Cheap while maxmemory is 0 (one load).
bool OutOfMemory(ShardSet& shards, uint32_t self, const ServerState& server);

// Shard thread `self`, once per loop turn: returns how many bytes it should evict now
// (the server's excess over maxmemory, or this shard's unpaid share), 0 for none. Cheap: a few loads, and one allocator query every 100 ms on shard 0.
int64_t MemoryToFree(ShardSet& shards, uint32_t self, ServerState& server);
// Shard thread `self`, right after: evicts up to `bytes` by the policy within the
// per-turn time budget. Returns true when more is due at once (the loop should not
// sleep).
bool FreeMemory(ShardSet& shards, uint32_t self, ServerState& server, int64_t bytes);

// The per-turn eviction budget for maxmemory-eviction-tenacity, on Redis's scale: 50 µs
// per step up to 10 (500 µs), then 15% more per step; 100 is unbounded.
int64_t EvictionBudgetNanos(int64_t tenacity);

}  // namespace rc
