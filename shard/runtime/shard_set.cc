#include "shard/runtime/shard_set.h"

namespace rc {

size_t ShardThread::RunInbox() {
  inbox_.Drain(&draining_);
  size_t n = draining_.size();
  for (auto& task : draining_) {
    std::move(task)();
    if (shard_.waiting().HasReady()) ServeReady(*this);
  }
  draining_.clear();
  return n;
}

std::vector<uint16_t> SplitSlots(size_t shards, const std::vector<bool>& local) {
  size_t total = 0;
  for (bool mine : local) total += mine;
  std::vector<uint16_t> owner(kNumKeySlots, 0);
  if (total == 0) return owner;
  // Shard i takes local slots [first(i), first(i+1)), first(i) = round(i * total / shards):
  // redis-cli's lround split.
  auto first = [&](size_t i) { return (2 * i * total + shards) / (2 * shards); };
  size_t seen = 0, shard = 0;
  for (size_t s = 0; s < kNumKeySlots; ++s) {
    while (shard + 1 < shards && seen >= first(shard + 1)) ++shard;
    owner[s] = uint16_t(shard);
    if (local[s]) ++seen;
  }
  return owner;
}

ShardSet::ShardSet(size_t threads, const ServerState* server) {
  std::shared_ptr<const ClusterMap> map = server != nullptr ? server->cluster.map() : nullptr;
  slot_shard_ = SplitSlots(
      threads, map != nullptr ? map->LocalSlots() : std::vector<bool>(kNumKeySlots, true));
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) {
    threads_.push_back(std::make_unique<ShardThread>(uint32_t(i), threads, server));
  }
}

std::vector<SlotRange> ShardSet::RangesOf(uint32_t shard) const {
  std::vector<SlotRange> ranges;
  for (size_t s = 0; s < kNumKeySlots; ++s) {
    if (slot_shard_[s] != shard) continue;
    if (!ranges.empty() && size_t(ranges.back().last) + 1 == s) {
      ranges.back().last = uint16_t(s);
    } else {
      ranges.push_back({uint16_t(s), uint16_t(s)});
    }
  }
  return ranges;
}

void ShardSet::FlushOutbox(uint32_t from, Waker& waker) {
  // Once handed over, a batch may already be running on its owner.
  threads_[from]->hops().SealAll();
  threads_[from]->outbox().Flush(
      [this](uint32_t dest) -> Inbox& { return threads_[dest]->inbox(); }, waker);
}

}  // namespace rc
