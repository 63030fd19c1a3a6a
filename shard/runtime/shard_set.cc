#include "shard/runtime/shard_set.h"

namespace rc {

size_t ShardThread::RunInbox() {
  inbox_.Drain(&draining_);
  size_t n = draining_.size();
  for (auto& task : draining_) std::move(task)();
  draining_.clear();
  return n;
}

ShardSet::ShardSet(size_t threads, const ServerState* server) {
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) {
    threads_.push_back(std::make_unique<ShardThread>(uint32_t(i), threads, server));
  }
}

void ShardSet::FlushOutbox(uint32_t from, Waker& waker) {
  // Once handed over, a batch may already be running on its owner.
  threads_[from]->hops().SealAll();
  threads_[from]->outbox().Flush(
      [this](uint32_t dest) -> Inbox& { return threads_[dest]->inbox(); }, waker);
}

}  // namespace rc
