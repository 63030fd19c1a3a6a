#pragma once
// Fan-out / fan-in across shards. `work(shard, i)` runs on the thread that owns each
// target shard (inline for the caller's own), and `done(results)` runs on the calling
// thread once every target has answered, with results in `targets` order.
//
//   conn thread ──post──▶ shard A: work ──post──▶ conn thread: store result A ─┐
//               ──post──▶ shard B: work ──post──▶ conn thread: store result B ─┴▶ done
//
// `work` is copied to every target and may run on several threads at once: it must
// touch only the shard it is given and data it owns immutably. What it returns is
// moved back, never a pointer into the shard.

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "shard/runtime/shard_set.h"

namespace rc {

// As FanOut, but `work(thread, i)` gets the whole ShardThread: for per-thread state that is
// not the keyspace (connections, command statistics). Same rules: only the owner runs it.
template <typename T, typename Work, typename Done>
void FanOutThreads(ShardThread& self, ShardSet& set, const std::vector<uint32_t>& targets,
                   Work work, Done done) {
  struct State {
    std::vector<T> results;
    size_t pending;
    Done done;
    void Arrived() {
      if (--pending == 0) std::move(done)(results);
    }
  };
  auto state = std::make_shared<State>(
      State{std::vector<T>(targets.size()), targets.size(), std::move(done)});
  const uint32_t home = self.id();
  ShardSet* shards = &set;
  size_t local = targets.size();
  for (size_t i = 0; i < targets.size(); ++i) {
    const uint32_t target = targets[i];
    if (target == home) {
      local = i;
      continue;
    }
    self.Post(target, [shards, target, home, i, state, work]() mutable {
      ShardThread& there = shards->thread(target);
      T result = work(there, i);
      there.Post(home, [state = std::move(state), i, result = std::move(result)]() mutable {
        state->results[i] = std::move(result);
        state->Arrived();
      });
    });
  }
  if (local < targets.size()) {
    state->results[local] = work(self, local);
    state->Arrived();
  }
}

template <typename T, typename Work, typename Done>
void FanOut(ShardThread& self, ShardSet& set, const std::vector<uint32_t>& targets, Work work,
            Done done) {
  FanOutThreads<T>(
      self, set, targets, [work](ShardThread& t, size_t i) { return work(t.shard(), i); },
      std::move(done));
}

// Every shard, 0..n-1.
inline std::vector<uint32_t> AllShards(const ShardSet& set) {
  std::vector<uint32_t> v(set.size());
  for (uint32_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

}  // namespace rc
