#include "shard/key_locks.h"

#include "absl/container/flat_hash_set.h"

namespace rc {

namespace {
// Debian's Abseil has its own string_view; heterogeneous lookup takes that one.
absl::string_view AV(std::string_view s) { return absl::string_view(s.data(), s.size()); }
}  // namespace

bool KeyLocks::MayRun(const Keys& keys, bool whole) const {
  if (whole_ > 0 || queued_whole_ > 0) return false;
  if (whole) return locked_.empty() && queue_.empty();
  for (std::string_view k : keys) {
    if (locked_.contains(AV(k)) || queued_.contains(AV(k))) return false;
  }
  return true;
}

void KeyLocks::Lock(const Keys& keys, bool whole) {
  if (whole) {
    ++whole_;
    return;
  }
  for (std::string_view k : keys) ++locked_[AV(k)];
}

void KeyLocks::Unlock(const Keys& keys, bool whole) {
  if (whole) {
    --whole_;
  } else {
    for (std::string_view k : keys) {
      auto it = locked_.find(AV(k));
      if (--it->second == 0) locked_.erase(it);
    }
  }
  RunReady();
}

void KeyLocks::Enqueue(Keys keys, bool whole, Task task) {
  if (whole) {
    ++queued_whole_;
  } else {
    for (std::string_view k : keys) ++queued_[AV(k)];
  }
  queue_.push_back(Waiting{std::move(keys), whole, std::move(task)});
}

void KeyLocks::RunReady() {
  // A task run from here may unlock in turn; the outermost call does the scanning.
  if (running_ready_) return;
  running_ready_ = true;
  bool ran = true;
  while (ran && !queue_.empty()) {
    ran = false;
    // Keys of waiting work that stays put block the same keys further back.
    absl::flat_hash_set<std::string_view> blocked;
    bool blocked_all = false;
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      bool free;
      if (blocked_all || whole_ > 0) {
        free = false;
      } else if (it->whole) {
        free = locked_.empty() && blocked.empty();
      } else {
        free = true;
        for (std::string_view k : it->keys) {
          if (locked_.contains(AV(k)) || blocked.contains(k)) {
            free = false;
            break;
          }
        }
      }
      if (!free) {
        if (it->whole) {
          blocked_all = true;
        } else {
          blocked.insert(it->keys.begin(), it->keys.end());
        }
        continue;
      }
      Waiting w = std::move(*it);
      queue_.erase(it);
      if (w.whole) {
        --queued_whole_;
      } else {
        for (std::string_view k : w.keys) {
          auto q = queued_.find(AV(k));
          if (--q->second == 0) queued_.erase(q);
        }
      }
      std::move(w.task)();
      ran = true;
      break;  // the task may have locked or queued: scan again from the front
    }
  }
  running_ready_ = false;
}

}  // namespace rc
