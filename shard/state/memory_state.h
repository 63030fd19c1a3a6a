#pragma once
// Server-wide memory state that every thread reads and the shard threads write
// (shard/runtime/memory_limit.h uses it; docs/EVICTION.md explains the scheme).

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace rc {

struct MemoryState {
  // Allocator bytes outside the shards' own figures (connection buffers, statistics,
  // values waiting for the lazyfree pool, ...), sampled by shard 0's thread ten times
  // a second; counted against maxmemory with them.
  std::atomic<int64_t> overhead{0};
  // When shard 0's thread samples the overhead next (MonotonicNanos); that thread only.
  int64_t next_overhead_sample_ns = 0;
  // used_memory as the server had started, before any data loaded: what the process costs
  // empty (MEMORY STATS startup.allocated). Set once, before the workers serve.
  std::atomic<uint64_t> startup{0};

  // The highest used_memory seen, sampled with the overhead and by every INFO and MEMORY
  // STATS (Redis samples in its cron and after commands), readers that hold the state
  // const. Returns the peak with `used`.
  uint64_t NotePeak(uint64_t used) const {
    uint64_t peak = peak_.load(std::memory_order_relaxed);
    while (used > peak && !peak_.compare_exchange_weak(peak, used, std::memory_order_relaxed)) {
    }
    return std::max(peak, used);
  }

  // INFO's total_eviction_exceeded_time / current_eviction_exceeded_time, in ms: since
  // when the server has been over maxmemory (0: it is not), and the total of past spells.
  void NoteOver(int64_t now_ms) {
    int64_t none = 0;
    over_since_ms_.compare_exchange_strong(none, now_ms, std::memory_order_relaxed);
  }
  void NoteUnder(int64_t now_ms) {
    int64_t since = over_since_ms_.load(std::memory_order_relaxed);
    if (since != 0 && over_since_ms_.compare_exchange_strong(since, 0, std::memory_order_relaxed)) {
      total_over_ms_.fetch_add(now_ms - since, std::memory_order_relaxed);
    }
  }
  int64_t CurrentOverMs(int64_t now_ms) const {
    int64_t since = over_since_ms_.load(std::memory_order_relaxed);
    return since != 0 ? now_ms - since : 0;
  }
  int64_t TotalOverMs(int64_t now_ms) const {
    return total_over_ms_.load(std::memory_order_relaxed) + CurrentOverMs(now_ms);
  }
  // CONFIG RESETSTAT: a spell in progress counts from now.
  void ResetStats(int64_t now_ms) {
    total_over_ms_.store(0, std::memory_order_relaxed);
    int64_t since = over_since_ms_.load(std::memory_order_relaxed);
    if (since != 0)
      over_since_ms_.compare_exchange_strong(since, now_ms, std::memory_order_relaxed);
  }

 private:
  mutable std::atomic<uint64_t> peak_{0};
  std::atomic<int64_t> over_since_ms_{0};
  std::atomic<int64_t> total_over_ms_{0};
};

}  // namespace rc
