#include "shard/runtime/key_locks.h"

namespace rc {

bool KeyLocks::MayRun(Keys keys, bool whole) const {
  if (whole_ > 0 || !whole_waiters_.empty()) return false;
  if (whole) return locked_.empty() && waiting_.empty();
  for (uint64_t h : keys) {
    if (locked_.contains(h) || waiters_of_.contains(h)) return false;
  }
  return true;
}

void KeyLocks::Lock(Keys keys, bool whole) {
  if (whole) {
    ++whole_;
    return;
  }
  for (uint64_t h : keys) ++locked_[h];
}

void KeyLocks::Unlock(Keys keys, bool whole) {
  std::vector<uint64_t> candidates;
  if (whole) {
    // Rare (FLUSHALL, KEYS, DBSIZE): anyone may be free now.
    if (--whole_ == 0) {
      for (const auto& [seq, w] : waiting_) candidates.push_back(seq);
    }
  } else {
    for (uint64_t h : keys) {
      auto it = locked_.find(h);
      if (--it->second == 0) {
        locked_.erase(it);
        AddFront(h, &candidates);
      }
    }
    // A whole-shard waiter at the head may have been waiting for these keys.
    if (!whole_waiters_.empty()) candidates.push_back(*whole_waiters_.begin());
  }
  Wake(std::move(candidates));
}

void KeyLocks::Enqueue(Keys keys, bool whole, Task task) {
  uint64_t seq = next_seq_++;
  absl::InlinedVector<uint64_t, 4> hashes;
  if (whole) {
    whole_waiters_.insert(seq);
  } else {
    for (uint64_t h : keys) {
      hashes.push_back(h);
      auto& fifo = waiters_of_[h];
      // A key named twice by one waiter is queued once.
      if (fifo.empty() || fifo.back() != seq) fifo.push_back(seq);
    }
  }
  waiting_.emplace(seq, Waiter{std::move(hashes), whole, std::move(task)});
}

void KeyLocks::AddFront(uint64_t key, std::vector<uint64_t>* candidates) const {
  auto it = waiters_of_.find(key);
  if (it != waiters_of_.end()) candidates->push_back(it->second.front());
}

bool KeyLocks::Runnable(uint64_t seq, const Waiter& w) const {
  if (whole_ > 0) return false;
  if (w.whole) return locked_.empty() && waiting_.begin()->first == seq;
  if (!whole_waiters_.empty() && *whole_waiters_.begin() < seq) return false;
  for (uint64_t k : w.keys) {
    if (locked_.contains(k)) return false;
    auto it = waiters_of_.find(k);
    if (it->second.front() != seq) return false;
  }
  return true;
}

void KeyLocks::Wake(std::vector<uint64_t> candidates) {
  if (waking_) {
    // A task run below unlocked in turn: the outer loop will try these too.
    pending_candidates_.insert(pending_candidates_.end(), candidates.begin(), candidates.end());
    return;
  }
  waking_ = true;
  while (!candidates.empty() || !pending_candidates_.empty()) {
    if (candidates.empty()) candidates.swap(pending_candidates_);
    uint64_t seq = candidates.back();
    candidates.pop_back();
    auto it = waiting_.find(seq);
    if (it == waiting_.end() || !Runnable(seq, it->second)) continue;
    Waiter w = std::move(it->second);
    waiting_.erase(it);
    // Whoever is next in line after this waiter is worth a look once it has run (the
    // task may lock some of those keys; Runnable() will say).
    if (w.whole) {
      whole_waiters_.erase(seq);
      for (const auto& [s, other] : waiting_) candidates.push_back(s);
    } else {
      for (uint64_t k : w.keys) {
        auto f = waiters_of_.find(k);
        if (f == waiters_of_.end() || f->second.front() != seq) continue;  // named twice
        f->second.erase(f->second.begin());
        if (f->second.empty()) {
          waiters_of_.erase(f);
        } else {
          candidates.push_back(f->second.front());
        }
      }
      if (!whole_waiters_.empty()) candidates.push_back(*whole_waiters_.begin());
    }
    std::move(w.task)();
  }
  waking_ = false;
}

}  // namespace rc
