#pragma once
// WATCH: optimistic locking for MULTI/EXEC. A client's watch is one WatchState, shared
// by the client's connection thread and every shard that owns one of its keys.
//
//   WATCH k (conn thread) ──post──▶ owner of k, in k's turn in KeyLocks:
//                                    WatchedKeys::Add(k, state)
//   any write to k (owner thread) ─▶ Shard::KeyModified(k) ─▶ state->dirty = true
//   EXEC (conn thread, once it holds the locks on the watched keys) reads state->dirty
//
// The registration travels in the same mailbox as the client's later commands to that
// shard, and waits in KeyLocks as a command on the key would, so it comes after every
// write of the client's sent before it and before the client's next read of the key.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "shard/wire/watch_state.h"

namespace rc {

class ShardThread;
class ShardSet;
struct ClientState;

// One shard's watched keys and who watches them. The shard's thread only.
class WatchedKeys {
 public:
  bool empty() const { return by_key_.empty(); }
  void Add(std::string_view key, std::shared_ptr<WatchState> state);
  void Remove(std::string_view key, const WatchState* state);
  // `key` changed: every watcher's EXEC will fail.
  void Touch(std::string_view key);
  // FLUSHALL / FLUSHDB: as Redis, only keys that existed count as changed.
  template <typename Exists>
  void TouchExisting(Exists exists) {
    for (auto& [key, states] : by_key_) {
      if (exists(key)) MarkDirty(states);
    }
  }
  size_t size() const { return by_key_.size(); }

 private:
  static void MarkDirty(const std::vector<std::shared_ptr<WatchState>>& states);

  absl::flat_hash_map<std::string, std::vector<std::shared_ptr<WatchState>>> by_key_;
};

// Connection's thread. WATCH: registers `keys` with their owning shards.
void WatchKeys(ShardThread& self, ShardSet& shards, ClientState& client,
               const std::vector<std::string_view>& keys);
// Connection's thread. Removes every registration of `watch` from its shards (UNWATCH,
// DISCARD, EXEC's end, disconnect).
void ReleaseWatches(ShardThread& self, ShardSet& shards, WatchSet watch);
// Connection's thread: the client watches nothing any more.
void UnwatchAll(ShardThread& self, ShardSet& shards, ClientState& client);

}  // namespace rc
