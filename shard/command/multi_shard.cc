#include "shard/command/multi_shard.h"

#include "shard/command/client_state.h"

namespace rc {

namespace {

struct Acquisition {
  ShardSet* shards;
  uint32_t home;
  ReplySink* sink;
  ClientState* client;
  std::shared_ptr<const LockSet> locks;
  Task locked;
  // A command inside EXEC: EXEC already holds these keys, so the locks are taken
  // without waiting (they nest: counts go up and come down again).
  bool nested;
};

absl::string_view AV(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// The connection's thread: records that `locks` are being taken for this client.
void MarkLocking(ClientState& client, const LockSet& locks, int delta) {
  if (locks.whole) {
    client.locking_whole += delta;
    return;
  }
  for (size_t gi = 0; gi < locks.groups->shards.size(); ++gi) {
    for (std::string_view k : locks.KeysOf(gi)) {
      auto [it, fresh] = client.locking_keys.try_emplace(AV(k), 0);
      if ((it->second += delta) == 0) client.locking_keys.erase(it);
    }
  }
}

void LockStep(std::shared_ptr<Acquisition> acq, size_t gi);

// On the thread of the shard just locked: on to the next shard, or back home. Every lock
// request leaves from the connection's thread: its posts to a shard arrive in the order
// it sent them, so the request queues behind the client's earlier commands for that
// shard (a SET just before a cross-shard MGET). Posted from the previous shard instead,
// it could overtake them and lock the key before the SET ran.
void Advance(ShardThread& here, std::shared_ptr<Acquisition> acq, size_t gi) {
  const auto& targets = acq->locks->groups->shards;
  if (gi + 1 < targets.size()) {
    const uint32_t next = targets[gi + 1];
    auto from_home = [acq, gi, next]() mutable {
      if (next == acq->home) return LockStep(std::move(acq), gi + 1);
      ShardThread& home = acq->shards->thread(acq->home);
      home.Post(next, [acq, gi]() mutable { LockStep(std::move(acq), gi + 1); });
    };
    if (here.id() == acq->home) return from_home();
    here.Post(acq->home, std::move(from_home));
    return;
  }
  here.Post(acq->home, [acq]() mutable {
    // The command's reply slot is still outstanding, so the connection is alive.
    MarkLocking(*acq->client, *acq->locks, -1);
    std::move(acq->locked)();
    acq->sink->Resume();
  });
}

// On the thread of shard targets[gi]: lock now, or wait in that shard's queue.
void LockStep(std::shared_ptr<Acquisition> acq, size_t gi) {
  ShardThread& here = acq->shards->thread(acq->locks->groups->shards[gi]);
  KeyLocks& locks = here.shard().locks();
  KeyLocks::Keys keys = acq->locks->KeysOf(gi);
  bool whole = acq->locks->whole;
  auto take = [&here, acq, gi, keys, whole]() mutable {
    here.shard().locks().Lock(keys, whole);
    Advance(here, std::move(acq), gi);
  };
  if (acq->nested || locks.MayRun(keys, whole)) {
    take();
  } else {
    locks.Enqueue(std::move(keys), whole, std::move(take));
  }
}

}  // namespace

KeyLocks::Keys LockSet::KeysOf(size_t gi) const {
  KeyLocks::Keys keys;
  if (whole) return keys;
  const auto& args = groups->args[gi];
  for (size_t i = 0; i < args.size(); i += width) keys.push_back(args[i]);
  return keys;
}

std::shared_ptr<const LockSet> LockKeys(std::shared_ptr<const KeyGroups> groups, size_t width) {
  return std::make_shared<const LockSet>(LockSet{std::move(groups), width, false});
}

std::shared_ptr<const LockSet> LockWholeShards(const ShardSet& set) {
  auto groups = std::make_shared<KeyGroups>();
  groups->shards = AllShards(set);
  groups->args.resize(set.size());
  groups->items.resize(set.size());
  return std::make_shared<const LockSet>(LockSet{std::move(groups), 1, true});
}

void AcquireThen(CoordCmd& cmd, std::shared_ptr<const LockSet> locks, Task locked) {
  AcquireThen(cmd.self, cmd.shards, cmd.client, cmd.sink, std::move(locks), std::move(locked));
}

void AcquireThen(ShardThread& self, ShardSet& shards, ClientState& client, ReplySink& sink,
                 std::shared_ptr<const LockSet> locks, Task locked) {
  MarkLocking(client, *locks, +1);
  auto acq = std::make_shared<Acquisition>(Acquisition{
      &shards, self.id(), &sink, &client, std::move(locks), std::move(locked), client.exec_nested});
  uint32_t first = acq->locks->groups->shards[0];
  if (first == self.id()) {
    LockStep(std::move(acq), 0);
  } else {
    self.Post(first, [acq]() mutable { LockStep(std::move(acq), 0); });
  }
}

void ReleaseOn(Shard& shard, const LockSet& locks, size_t gi) {
  shard.locks().Unlock(locks.KeysOf(gi), locks.whole);
}

}  // namespace rc
