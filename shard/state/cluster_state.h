#pragma once
// The cluster map the process serves now (shard/state/cluster_map.h), swapped whole by a
// reload. Readers keep a per-thread copy (ShardThread::cluster_map) and look at the
// generation, one relaxed atomic load, before each command that needs the map.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>

#include "shard/state/cluster_map.h"

namespace rc {

class ClusterState {
 public:
  // Any thread: the current map, or nullptr when cluster mode is off.
  std::shared_ptr<const ClusterMap> map() const {
    std::lock_guard<std::mutex> lock(mu_);
    return map_;
  }
  // Any thread: replaces the map; each thread sees the new one from its next command on.
  void Publish(std::shared_ptr<const ClusterMap> map) {
    std::lock_guard<std::mutex> lock(mu_);
    map_ = std::move(map);
    ++epoch_;
    generation_.fetch_add(1, std::memory_order_release);
  }
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  // Bumped by every publish: CLUSTER INFO's cluster_current_epoch.
  uint64_t epoch() const {
    std::lock_guard<std::mutex> lock(mu_);
    return epoch_;
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const ClusterMap> map_;
  uint64_t epoch_ = 0;
  std::atomic<uint64_t> generation_{0};
};

}  // namespace rc
