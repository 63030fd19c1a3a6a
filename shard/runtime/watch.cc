#include "shard/runtime/watch.h"

#include <algorithm>
#include <utility>

#include "core/entry_table.h"
#include "core/strings.h"
#include "shard/runtime/shard_set.h"
#include "shard/wire/client_state.h"

namespace rc {

void WatchedKeys::Add(std::string_view key, std::shared_ptr<WatchState> state) {
  by_key_[AbslView(key)].push_back(std::move(state));
}

void WatchedKeys::Remove(std::string_view key, const WatchState* state) {
  auto it = by_key_.find(AbslView(key));
  if (it == by_key_.end()) return;
  auto& states = it->second;
  states.erase(std::remove_if(states.begin(), states.end(),
                              [state](const auto& s) { return s.get() == state; }),
               states.end());
  if (states.empty()) by_key_.erase(it);
}

void WatchedKeys::Touch(std::string_view key) {
  auto it = by_key_.find(AbslView(key));
  if (it != by_key_.end()) MarkDirty(it->second);
}

void WatchedKeys::MarkDirty(const std::vector<std::shared_ptr<WatchState>>& states) {
  // Release: EXEC reads the flag after a message from this thread (the lock hop).
  for (const auto& s : states) s->dirty.store(true, std::memory_order_release);
}

namespace {

// On the keys' shard: runs `fn(shard, keys)` now, or in the keys' turn in KeyLocks while
// a multi-shard command holds one of them or earlier work waits for one. Writes the
// client sent before its WATCH may still be to come there (an EXEC or a multi-shard
// command writes after taking its locks; a command waits behind another client's), and
// they must not count as changes. Removals take the same turn, so that none overtakes a
// registration still waiting.
template <typename Fn>
void InKeyOrder(Shard& shard, std::vector<std::string> keys, const Fn& fn) {
  KeyLocks& locks = shard.locks();
  if (locks.Idle()) return fn(shard, keys);
  std::vector<uint64_t> hashes;
  hashes.reserve(keys.size());
  for (const std::string& k : keys) hashes.push_back(HashKey(k));
  if (locks.MayRun(hashes, false)) return fn(shard, keys);
  locks.Enqueue(hashes, false, [&shard, keys = std::move(keys), fn] { fn(shard, keys); });
}

// Runs `fn(shard, keys)` on the owner of each group of `keys`, in the keys' order there
// (InKeyOrder): inline for this thread's shard, posted for the others (so it queues
// behind this client's earlier commands).
template <typename Keys, typename Fn>
void ForEachOwner(ShardThread& self, ShardSet& shards, const Keys& keys, Fn fn) {
  std::vector<std::vector<std::string>> by_shard(shards.size());
  for (const auto& k : keys) by_shard[shards.ShardOf(k)].push_back(k);
  for (uint32_t s = 0; s < by_shard.size(); ++s) {
    if (by_shard[s].empty()) continue;
    if (s == self.id()) {
      InKeyOrder(self.shard(), std::move(by_shard[s]), fn);
      continue;
    }
    self.Post(s, [&shards, s, fn, mine = std::move(by_shard[s])]() mutable {
      InKeyOrder(shards.thread(s).shard(), std::move(mine), fn);
    });
  }
}

}  // namespace

void WatchKeys(ShardThread& self, ShardSet& shards, ClientState& client,
               const std::vector<std::string_view>& keys) {
  WatchSet& w = client.watching;
  if (w.state == nullptr) w.state = std::make_shared<WatchState>();
  std::vector<std::string> fresh;
  for (std::string_view k : keys) {
    if (w.keys.emplace(k).second) fresh.emplace_back(k);
  }
  ForEachOwner(self, shards, fresh,
               [state = w.state](Shard& shard, const std::vector<std::string>& mine) {
                 for (const auto& k : mine) {
                   // A key already past its deadline goes now: its reclaiming later is
                   // no change to the watcher (Redis ignores it too).
                   shard.Find(k);
                   shard.watched().Add(k, state);
                 }
               });
}

void UnwatchAll(ShardThread& self, ShardSet& shards, ClientState& client) {
  ReleaseWatches(self, shards, std::exchange(client.watching, WatchSet{}));
}

void ReleaseWatches(ShardThread& self, ShardSet& shards, WatchSet watch) {
  if (watch.state == nullptr) return;
  ForEachOwner(self, shards, watch.keys,
               [state = watch.state](Shard& shard, const std::vector<std::string>& mine) {
                 for (const auto& k : mine) shard.watched().Remove(k, state.get());
               });
}

}  // namespace rc
