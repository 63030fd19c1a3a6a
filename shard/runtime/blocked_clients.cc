#include "shard/runtime/blocked_clients.h"

#include <utility>
#include <vector>

namespace rc {

BlockedClients::Timer BlockedClients::Add(std::shared_ptr<Blocker> b, int64_t deadline_ms) {
  ++stats_.blocked_clients;
  if (deadline_ms <= 0) return timers_.end();
  ++stats_.clients_in_timeout_table;
  // Equal keys go after the ones already there: same deadline, order of blocking.
  return timers_.emplace(deadline_ms, std::move(b));
}

void BlockedClients::Remove(Timer timer) {
  --stats_.blocked_clients;
  if (timer == timers_.end()) return;
  --stats_.clients_in_timeout_table;
  timers_.erase(timer);
}

void BlockedClients::FireDue(int64_t now_ms) {
  std::vector<std::shared_ptr<Blocker>> due;
  while (!timers_.empty() && timers_.begin()->first <= now_ms) {
    due.push_back(std::move(timers_.begin()->second));
    timers_.erase(timers_.begin());
    --stats_.clients_in_timeout_table;
  }
  // Collected first: an expired client may block again at once (its next pipelined
  // command), adding a timer of its own.
  for (auto& b : due) b->Expired();
}

}  // namespace rc
