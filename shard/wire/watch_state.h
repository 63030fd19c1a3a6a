#pragma once
// What a client's WATCH leaves in its ClientState and in the shards that own its keys
// (shard/runtime/watch.h registers and releases them).

#include <atomic>
#include <memory>
#include <string>

#include "absl/container/flat_hash_set.h"

namespace rc {

struct WatchState {
  // Written by shard threads, read by the client's thread at EXEC.
  std::atomic<bool> dirty{false};
};

// What one client watches; lives in its ClientState, on its connection's thread.
struct WatchSet {
  std::shared_ptr<WatchState> state;  // null when nothing is watched
  absl::flat_hash_set<std::string> keys;
};

}  // namespace rc
