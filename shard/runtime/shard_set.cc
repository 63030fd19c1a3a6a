#include "shard/runtime/shard_set.h"

namespace rc {

size_t ShardThread::RunAll(std::vector<Message>& tasks) {
  running_ = &tasks;
  size_t n = 0;
  for (running_next_ = 0; running_next_ < tasks.size();) {
    Message& m = tasks[running_next_++];
    if (!m.task) continue;  // a busy script's turn ran it already
    std::move(m.task)();
    ++n;
    if (shard_.waiting().HasReady()) ServeReady(*this);
  }
  running_ = nullptr;
  tasks.clear();
  return n;
}

size_t ShardThread::RunInbox() {
  size_t n = 0;
  if (!held_.empty()) {
    std::vector<Message> held;
    held.swap(held_);
    n += RunAll(held);
    // A script went busy again among them and held newer tasks: those still come before
    // the inbox's.
    if (!held_.empty()) return n;
  }
  inbox_.Drain(&draining_);
  return n + RunAll(draining_);
}

void ShardThread::RunInboxWhileBusy() {
  // The tasks RunAll has taken out of the inbox but not reached (the busy script runs in
  // one of them), then the inbox.
  if (running_ != nullptr) {
    for (size_t i = running_next_; i < running_->size(); ++i) {
      Message& m = (*running_)[i];
      if (!m.while_busy || !m.task) continue;
      Task task = std::move(m.task);
      m.task = nullptr;
      std::move(task)();
    }
  }
  inbox_.Drain(&busy_draining_);
  for (Message& m : busy_draining_) {
    if (m.while_busy) {
      std::move(m.task)();
    } else {
      held_.push_back(std::move(m));
    }
  }
  busy_draining_.clear();
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

ShardSet::ShardSet(size_t threads, const ServerState* server) : replicas_(*this, server) {
  std::shared_ptr<const ClusterMap> map = server != nullptr ? server->cluster.map() : nullptr;
  slot_shard_ = SplitSlots(
      threads, map != nullptr ? map->LocalSlots() : std::vector<bool>(kNumKeySlots, true));
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) {
    threads_.push_back(std::make_unique<ShardThread>(uint32_t(i), threads, server, busy_threads_));
    threads_.back()->shard().aof().Attach(journal_.on_flag());
  }
}

void ShardSet::PublishAof(uint32_t from) {
  AofRecorder& rec = threads_[from]->shard().aof();
  if (!rec.HasLocal()) return;
  std::string records = rec.TakeLocal();
  // Off meanwhile: what was recorded goes nowhere.
  if (journal_.recording()) threads_[from]->note_aof_position(journal_.Append(records));
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
