#include "shard/runtime/mailbox.h"

namespace rc {

bool Inbox::PushBatch(std::vector<Message>* batch) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (tasks_.empty()) {
      tasks_.swap(*batch);
    } else {
      for (auto& t : *batch) tasks_.push_back(std::move(t));
      batch->clear();
    }
    has_work_.store(true, std::memory_order_seq_cst);
  }
  return sleeping_.exchange(false, std::memory_order_seq_cst);
}

void Inbox::Drain(std::vector<Message>* out) {
  out->clear();
  if (!has_work_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(mu_);
  out->swap(tasks_);
  has_work_.store(false, std::memory_order_relaxed);
}

bool Inbox::PrepareToSleep() {
  sleeping_.store(true, std::memory_order_seq_cst);
  if (has_work_.load(std::memory_order_seq_cst)) {
    sleeping_.store(false, std::memory_order_relaxed);
    return false;
  }
  return true;
}

}  // namespace rc
