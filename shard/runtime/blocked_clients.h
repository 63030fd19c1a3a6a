#pragma once
// The blocked clients of one worker thread, from their own side: how many wait (INFO
// blocked_clients) and their deadlines, which the reactor fires on time. The keys they
// wait on are listed by the keys' shards (WaitingKeys, blocking.h). Owner thread only.

#include <cstdint>
#include <map>
#include <memory>

#include "shard/runtime/blocking.h"
#include "shard/runtime/stats.h"

namespace rc {

class BlockedClients {
 public:
  using Timers = std::multimap<int64_t, std::shared_ptr<Blocker>>;
  using Timer = Timers::iterator;

  explicit BlockedClients(ThreadStats& stats) : stats_(stats) {}

  // A client now waits: counted, and with a deadline (Unix ms, > 0) timed. Returns its
  // timer (NoTimer() without a deadline), which Remove takes.
  Timer Add(std::shared_ptr<Blocker> b, int64_t deadline_ms);
  // It waits no more (answered, unblocked, gone).
  void Remove(Timer timer);
  Timer NoTimer() { return timers_.end(); }

  // The earliest deadline (Unix ms), INT64_MAX when none.
  int64_t NextDeadline() const { return timers_.empty() ? INT64_MAX : timers_.begin()->first; }
  // Calls Expired() on each blocker whose deadline is at or before `now_ms`, earliest
  // first (equal deadlines in the order they blocked). Their timers are gone by then.
  void FireDue(int64_t now_ms);

 private:
  ThreadStats& stats_;  // blocked_clients, clients_in_timeout_table
  Timers timers_;
};

}  // namespace rc
