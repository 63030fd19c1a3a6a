#include "shard/runtime/memory_limit.h"

#include <algorithm>
#include <cmath>

#include "shard/runtime/shard_set.h"
#include "shard/state/memory_info.h"
#include "shard/state/server_state.h"
#include "timers/clock.h"

namespace rc {

namespace {

constexpr int64_t kOverheadSampleNanos = 100'000'000;

// Shard 0's thread: refreshes the overhead outside the shards' figures: what the process
// holds from malloc beyond them, and the allocator's per-block headers, theirs included
// (RSS pays those bytes, the usable sizes that used_memory sums do not show them: 8 of
// every 64-byte entry under glibc). An allocator that reports nothing (sanitizer builds)
// leaves it at 0.
void SampleOverhead(ShardSet& shards, MemoryState& state) {
  state.NotePeak(UsedMemory());
  const int64_t malloc_bytes = int64_t(MallocBytes()) + MallocHeaderBytes();
  if (malloc_bytes == 0) return;
  int64_t shards_bytes = 0;
  for (uint32_t i = 0; i < shards.size(); ++i) {
    const Shard& shard = shards.thread(i).shard();
    shards_bytes += i == 0 ? int64_t(shard.MemoryBytes()) : shard.PublishedBytes();
  }
  state.overhead.store(std::max<int64_t>(0, malloc_bytes - shards_bytes),
                       std::memory_order_relaxed);
}

}  // namespace

int64_t EvictionBudgetNanos(int64_t tenacity) {
  if (tenacity <= 10) return 50'000 * tenacity;
  if (tenacity < 100) return int64_t(500'000.0 * std::pow(1.15, double(tenacity - 10)));
  return INT64_MAX / 2;
}

int64_t ServerMemory(ShardSet& shards, uint32_t self, const ServerState& server) {
  int64_t total = server.memory.overhead.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < shards.size(); ++i) {
    Shard& shard = shards.thread(i).shard();
    total += i == self ? int64_t(shard.MemoryBytes()) : shard.PublishedBytes();
  }
  return total;
}

bool OutOfMemory(ShardSet& shards, uint32_t self, const ServerState& server) {
  const int64_t limit = server.config.maxmemory;
  if (limit <= 0 || server.replication.replica.load(std::memory_order_relaxed)) return false;
  if (ServerMemory(shards, self, server) <= limit) return false;
  const EvictionPolicy policy = server.config.maxmemory_policy;
  if (policy == EvictionPolicy::kNoEviction) return true;
  // An evicting policy: the shards will make room, unless none has a key it may evict.
  for (uint32_t i = 0; i < shards.size(); ++i) {
    Shard& shard = shards.thread(i).shard();
    if (i == self ? shard.evictor().HasCandidates(policy)
                  : shard.PublishedKeys(VolatileOnly(policy)) > 0) {
      return false;
    }
  }
  return true;
}

int64_t MemoryToFree(ShardSet& shards, uint32_t self, ServerState& server) {
  Shard& shard = shards.thread(self).shard();
  const Config& config = server.config;
  MemoryState& state = server.memory;
  // Sampled with or without a limit, so a limit set later starts from a known overhead.
  if (self == 0) {
    const int64_t now_ns = MonotonicNanos();
    if (now_ns >= state.next_overhead_sample_ns) {
      state.next_overhead_sample_ns = now_ns + kOverheadSampleNanos;
      SampleOverhead(shards, state);
    }
  }
  const int64_t limit = config.maxmemory;
  // A replica keeps what its master sends (replica-ignore-maxmemory yes, Redis's default
  // and the only value taken): the master's evictions reach it as DELs.
  if (limit <= 0 || server.replication.replica.load(std::memory_order_relaxed)) {
    state.NoteUnder(shard.NowMs());
    return 0;
  }
  const int64_t total = ServerMemory(shards, self, server);
  if (total <= limit) {
    state.NoteUnder(shard.NowMs());
    return 0;
  }
  state.NoteOver(shard.NowMs());
  const EvictionPolicy policy = config.maxmemory_policy;
  if (policy == EvictionPolicy::kNoEviction || !shard.evictor().HasCandidates(policy)) return 0;
  // This shard's share of the excess: its bytes over those of every shard that has keys
  // the policy may evict, so each turn of every shard together frees the excess once.
  const bool ttl_only = VolatileOnly(policy);
  const int64_t own = int64_t(shard.MemoryBytes());
  int64_t evictable = 0;
  for (uint32_t i = 0; i < shards.size(); ++i) {
    Shard& other = shards.thread(i).shard();
    if (i == self) {
      evictable += own;
    } else if (other.PublishedKeys(ttl_only) > 0) {
      evictable += other.PublishedBytes();
    }
  }
  const int64_t excess = total - limit;
  return std::max<int64_t>(
      1, int64_t(double(excess) * double(own) / double(std::max(evictable, own))));
}

bool FreeMemory(ShardSet& shards, uint32_t self, ServerState& server, int64_t bytes) {
  Shard& shard = shards.thread(self).shard();
  const Config& config = server.config;
  const int64_t deadline =
      MonotonicNanos() + EvictionBudgetNanos(config.maxmemory_eviction_tenacity);
  const size_t freed = shard.evictor().Evict(config.maxmemory_policy, size_t(bytes), deadline,
                                             int(config.maxmemory_samples.get()));
  // Stopped by the time budget with more to do: the loop should not sleep.
  return freed > 0 && freed < size_t(bytes);
}

}  // namespace rc
