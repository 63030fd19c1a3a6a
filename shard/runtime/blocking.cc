#include "shard/runtime/blocking.h"

#include <utility>

#include "core/entry_table.h"
#include "core/strings.h"
#include "shard/runtime/shard_set.h"

namespace rc {

void WaitingKeys::Add(std::shared_ptr<Blocker> b, absl::Span<const std::string_view> keys,
                      bool first) {
  if (b->claimed()) return;
  auto [it, fresh] = by_blocker_.try_emplace(b.get());
  Registration& reg = it->second;
  if (fresh) reg.blocker = std::move(b);
  Blocker* raw = reg.blocker.get();
  for (std::string_view key : keys) {
    KeySlot* slot = &*by_key_.try_emplace(std::string(key)).first;
    bool named = false;
    for (const auto& [s, node] : reg.nodes) named |= s == slot;
    if (named) continue;
    if (first) {
      slot->second.push_front(raw);
      reg.nodes.emplace_back(slot, slot->second.begin());
    } else {
      slot->second.push_back(raw);
      reg.nodes.emplace_back(slot, std::prev(slot->second.end()));
    }
  }
}

void WaitingKeys::Remove(const Blocker* b) { Unlink(b); }

void WaitingKeys::Unlink(const Blocker* b, const KeySlot* keep) {
  auto it = by_blocker_.find(b);
  if (it == by_blocker_.end()) return;
  for (auto& [slot, node] : it->second.nodes) {
    slot->second.erase(node);
    if (slot != keep) EraseIfEmpty(slot);
  }
  // May free the blocker: its home is done with it.
  by_blocker_.erase(it);
}

void WaitingKeys::EraseIfEmpty(KeySlot* slot) {
  if (slot->second.empty()) by_key_.erase(by_key_.find(slot->first));
}

void WaitingKeys::Signal(std::string_view key) {
  auto it = by_key_.find(AbslView(key));
  if (it == by_key_.end()) return;
  if (ready_set_.insert(it->first).second) ready_.push_back(it->first);
}

void WaitingKeys::Release(std::string_view key) {
  held_.erase(AbslView(key));
  Signal(key);
}

// ServeReady's step for one key. `in_turn`: KeyLocks runs this as the key's turn came,
// so nothing holds the key and every earlier waiter on it has run; later ones wait.
void ServeKey(ShardThread& thread, const std::string& key, bool in_turn) {
  Shard& shard = thread.shard();
  WaitingKeys& w = shard.waiting();
  auto it = w.by_key_.find(AbslView(key));
  if (it == w.by_key_.end() || w.held_.contains(AbslView(key))) return;
  KeyLocks& locks = shard.locks();
  if (!in_turn && !locks.Idle()) {
    const uint64_t hash = HashKey(key);
    const KeyLocks::Keys keys(&hash, 1);
    if (!locks.MayRun(keys, false)) {
      // Held by a multi-shard command (EXEC included): its pushes show once it releases
      // the key, and the waiters are served behind whatever else waits for it.
      if (!w.in_lock_queue_.insert(key).second) return;
      locks.Enqueue(keys, false, [&thread, key] {
        thread.shard().waiting().in_lock_queue_.erase(key);
        ServeKey(thread, key, /*in_turn=*/true);
        ServeReady(thread);  // what the waiters' moves signalled
      });
      return;
    }
  }
  WaitingKeys::KeySlot* slot = &*it;
  WaitingKeys::Queue& queue = slot->second;
  for (auto node = queue.begin(); node != queue.end();) {
    Blocker* b = *node;
    auto next = std::next(node);
    if (b->claimed()) {
      // Answered on another shard or ended by its home: an entry left to drop.
      w.Unlink(b, slot);
      node = next;
      continue;
    }
    const KeyProbe probe = b->op().Probe(shard, key);
    if (probe == KeyProbe::kMissing) break;
    if (probe == KeyProbe::kWrongType || !b->Claim()) {
      // Waits for another type (BLPOP on a key that became a sorted set stays blocked, as
      // in Redis 7.0), or was claimed between the two looks.
      if (b->claimed()) w.Unlink(b, slot);
      node = next;
      continue;
    }
    std::shared_ptr<Blocker> served = w.by_blocker_.at(b).blocker;
    w.Unlink(b, slot);
    if (served->op().ServedHome()) {
      // Its destination is another shard's: the move happens under both keys' locks,
      // and the key serves nobody else until it is over, so the order of waiters holds.
      w.held_.insert(key);
      thread.Post(served->home(), [served, id = thread.id(), key] { served->Notified(id, key); });
      break;
    }
    std::string reply;
    ReplyBuilder rb(&reply, served->resp3());
    PopRecorded(shard, served->op(), key, rb);
    // Always a task, also to this thread: the client's pipeline resumes from its own
    // loop turn, never in the middle of the command that served it.
    thread.Post(served->home(), [served, id = thread.id(), reply = std::move(reply)]() mutable {
      served->Served(id, std::move(reply));
    });
    node = next;
  }
  w.EraseIfEmpty(slot);
}

void PopRecorded(Shard& shard, const BlockingOp& op, std::string_view key, ReplyBuilder& reply,
                 bool record) {
  if (!record || !shard.aof().on()) return op.Pop(shard, key, reply);
  const int64_t before = shard.Dirty();
  op.Pop(shard, key, reply);
  if (shard.Dirty() != before) op.Record(shard.aof(), key);
}

void ServeReady(ShardThread& thread) {
  WaitingKeys& w = thread.shard().waiting();
  if (w.ready_.empty() || w.serving_) return;
  w.serving_ = true;
  std::vector<std::string> keys;
  while (!w.ready_.empty()) {
    keys.swap(w.ready_);
    w.ready_set_.clear();
    // A served BLMOVE may signal its destination: that key comes in the next round.
    for (const std::string& key : keys) ServeKey(thread, key, /*in_turn=*/false);
    keys.clear();
  }
  w.serving_ = false;
}

}  // namespace rc
