#include "shard/command/multi_shard.h"

#include <algorithm>

#include "absl/container/inlined_vector.h"
#include "core/aof_propagate.h"
#include "shard/wire/client_state.h"

namespace rc {

namespace {

constexpr size_t kNone = ~size_t{0};

struct Acquisition {
  ShardSet* shards;
  uint32_t home;
  ReplySink* sink;
  ClientState* client;
  std::shared_ptr<const LockSet> locks;
  LockedStep step;  // empty: AcquireThen's plain `locked`
  Task finish;
  // A command inside EXEC: EXEC already holds these keys, so the locks are taken
  // without waiting (they nest: counts go up and come down again).
  bool nested;
  // The command's record for the append-only log, empty when none is due: it goes to the
  // journal once every lock is in, before any step runs or lock comes off, so it follows
  // whatever happened to its keys before and precedes whatever happens after.
  std::string record = {};

  // The connection's thread only.
  absl::InlinedVector<uint8_t, 8> held = {};  // per group: its try-lock succeeded
  size_t tries_pending = 0;
  bool refused = false;
  size_t steps_pending = 0;

  uint32_t target(size_t gi) const { return locks->groups->shards()[gi]; }
  size_t groups() const { return locks->groups->size(); }
  // On the thread of `shard` (group gi's): the step, its keys' lookups overlapped.
  void Step(Shard& shard, size_t gi) const {
    if (!locks->whole) {
      const absl::Span<const uint64_t> hashes = locks->groups->KeyHashes(gi);
      shard.table().Prefetch(hashes.data(), hashes.size());
    }
    step(shard, gi);
  }
};
using AcqPtr = std::shared_ptr<Acquisition>;

// The connection's thread: records that `locks` are being taken for this client (+1), or
// are in (-1).
void MarkLocking(ClientState& client, const LockSet& locks, int delta) {
  if (locks.whole) {
    client.locking_whole += delta;
    return;
  }
  const absl::Span<const uint64_t> keys = locks.groups->AllKeyHashes();
  if (delta > 0) return client.locking_keys.push_back(keys);
  auto& all = client.locking_keys;
  all.erase(std::find_if(all.begin(), all.end(),
                         [&](absl::Span<const uint64_t> s) { return s.data() == keys.data(); }));
}

// The thread of group gi's shard, as the locks there go in, with the log on: keys past
// their deadline go now (they then stay until the locks come off, Shard::
// KeepsPastDeadline), and the shard's records reach the journal ahead of the command's.
void PrepareForLog(ShardThread& here, const Acquisition& acq, size_t gi) {
  if (acq.nested || !acq.shards->journal().recording()) return;
  if (!acq.locks->whole) {
    const ArgList items = acq.locks->groups->Args(gi);
    const size_t width = acq.locks->groups->width();
    for (size_t i = 0; i < items.size(); i += width) here.shard().ReclaimIfExpired(items[i]);
  }
  acq.shards->PublishAof(here.id());
}

// The thread of group gi's shard: locks its keys if nothing holds or awaits them.
bool TryLock(ShardThread& here, const Acquisition& acq, size_t gi) {
  KeyLocks& locks = here.shard().locks();
  KeyLocks::Keys keys = acq.locks->KeysOf(gi);
  if (!acq.nested && !locks.MayRun(keys, acq.locks->whole)) return false;
  PrepareForLog(here, acq, gi);
  locks.Lock(keys, acq.locks->whole);
  return true;
}

void StepDone(AcqPtr acq) {
  if (--acq->steps_pending > 0) return;
  std::move(acq->finish)();
}

// The connection's thread, every lock held: the step on every shard but `stepped` (whose
// step already ran where it was locked), then `finish`.
void AllLocked(AcqPtr acq, size_t stepped) {
  // The command's reply slot is still outstanding, so the connection is alive.
  MarkLocking(*acq->client, *acq->locks, -1);
  ReplySink* sink = acq->sink;
  if (!acq->step) {
    std::move(acq->finish)();
    sink->Resume();
    return;
  }
  ShardThread& self = acq->shards->thread(acq->home);
  if (!acq->record.empty() && acq->shards->journal().recording()) {
    self.note_aof_position(acq->shards->journal().Append(acq->record));
  }
  acq->steps_pending = 1;  // this call's own, so `finish` waits for the loop below
  size_t local = kNone;
  for (size_t gi = 0; gi < acq->groups(); ++gi) {
    if (gi == stepped) continue;
    const uint32_t target = acq->target(gi);
    if (target == acq->home) {
      local = gi;
      continue;
    }
    ++acq->steps_pending;
    self.Post(target, [acq, gi]() mutable {
      ShardThread& there = acq->shards->thread(acq->target(gi));
      acq->Step(there.shard(), gi);
      const uint32_t home = acq->home;
      there.Post(home, [acq = std::move(acq)]() mutable { StepDone(std::move(acq)); });
    });
  }
  if (local != kNone) acq->Step(self.shard(), local);
  StepDone(acq);
  sink->Resume();
}

void OrderedLock(AcqPtr acq, size_t gi);

// On the thread of the shard just locked: on to the next shard, or back home. Every lock
// request leaves from the connection's thread: its posts to a shard arrive in the order
// it sent them, so the request queues behind the client's earlier commands for that
// shard (a SET just before a cross-shard MGET). Posted from the previous shard instead,
// it could overtake them and lock the key before the SET ran.
void Advance(ShardThread& here, AcqPtr acq, size_t gi) {
  if (gi + 1 < acq->groups()) {
    const uint32_t next = acq->target(gi + 1);
    auto from_home = [acq, gi, next]() mutable {
      if (next == acq->home) return OrderedLock(std::move(acq), gi + 1);
      ShardThread& home = acq->shards->thread(acq->home);
      home.Post(next, [acq, gi]() mutable { OrderedLock(std::move(acq), gi + 1); });
    };
    if (here.id() == acq->home) return from_home();
    here.Post(acq->home, std::move(from_home));
    return;
  }
  if (here.id() == acq->home) return AllLocked(std::move(acq), kNone);
  // The last lock is in, so every key is held: this shard's step runs here rather than
  // one more round trip later.
  size_t stepped = kNone;
  if (acq->step && acq->record.empty()) {
    acq->Step(here.shard(), gi);
    stepped = gi;
  }
  here.Post(acq->home, [acq, stepped]() mutable { AllLocked(std::move(acq), stepped); });
}

// On the thread of shard target(gi): lock now, or wait in that shard's queue. Waiting
// in ascending shard order is what keeps two commands from waiting for each other.
void OrderedLock(AcqPtr acq, size_t gi) {
  ShardThread& here = acq->shards->thread(acq->target(gi));
  if (TryLock(here, *acq, gi)) return Advance(here, std::move(acq), gi);
  KeyLocks::Keys keys = acq->locks->KeysOf(gi);
  const bool whole = acq->locks->whole;
  here.shard().locks().Enqueue(keys, whole, [&here, acq, gi, keys, whole]() mutable {
    PrepareForLog(here, *acq, gi);
    here.shard().locks().Lock(keys, whole);
    Advance(here, std::move(acq), gi);
  });
}

// The connection's thread: takes the locks of groups `from`, `from` + 1, ... in order,
// those before `from` being held already.
void StartOrdered(AcqPtr acq, size_t from = 0) {
  const uint32_t first = acq->target(from);
  if (first == acq->home) return OrderedLock(std::move(acq), from);
  acq->shards->thread(acq->home).Post(first, [acq, from]() mutable {
    OrderedLock(std::move(acq), from);
  });
}

// The connection's thread: a try-lock has answered. Once all have: every lock is held, or
// the locks are taken in order from the first refused group on, waiting. The groups
// before it stay held (all below the one waited for, as ordered locking requires); those
// after it are given back first, since waiting while holding a higher shard could close
// a cycle.
void Tried(AcqPtr acq, size_t gi, bool locked, size_t stepped) {
  if (locked) {
    acq->held[gi] = 1;
  } else {
    acq->refused = true;
  }
  if (--acq->tries_pending > 0) return;
  if (!acq->refused) return AllLocked(std::move(acq), stepped);
  ShardThread& self = acq->shards->thread(acq->home);
  const size_t first_refused =
      size_t(std::find(acq->held.begin(), acq->held.end(), 0) - acq->held.begin());
  for (size_t g = first_refused + 1; g < acq->groups(); ++g) {
    if (!acq->held[g]) continue;
    acq->held[g] = 0;
    const uint32_t target = acq->target(g);
    if (target == acq->home) {
      ReleaseOn(self.shard(), *acq->locks, g);
    } else {
      self.Post(target, [acq, g]() {
        ReleaseOn(acq->shards->thread(acq->target(g)).shard(), *acq->locks, g);
      });
    }
  }
  acq->refused = false;
  StartOrdered(std::move(acq), first_refused);
}

// The uncontended case in one parallel hop: every shard is asked at once to lock its keys
// without waiting. Locks taken out of shard order are safe because nobody waits for
// them while holding others. When a single other shard is involved and this shard's keys
// are already locked, that shard runs its step as soon as it has locked: the whole
// command is then one round trip.
void TryAll(AcqPtr acq) {
  ShardThread& self = acq->shards->thread(acq->home);
  acq->held.assign(acq->groups(), 0);
  size_t local = kNone;
  for (size_t gi = 0; gi < acq->groups(); ++gi) {
    if (acq->target(gi) == acq->home) local = gi;
  }
  if (local != kNone) {
    if (!TryLock(self, *acq, local)) return StartOrdered(std::move(acq));
    acq->held[local] = 1;
  }
  const size_t remote = acq->groups() - (local == kNone ? 0 : 1);
  if (remote == 0) return AllLocked(std::move(acq), kNone);
  const bool step_there = remote == 1 && acq->step && acq->record.empty();
  acq->tries_pending = remote;
  for (size_t gi = 0; gi < acq->groups(); ++gi) {
    if (gi == local) continue;
    self.Post(acq->target(gi), [acq, gi, step_there]() mutable {
      ShardThread& there = acq->shards->thread(acq->target(gi));
      const bool locked = TryLock(there, *acq, gi);
      const bool stepped = locked && step_there;
      if (stepped) acq->Step(there.shard(), gi);
      const uint32_t home = acq->home;
      there.Post(home, [acq = std::move(acq), gi, locked, stepped]() mutable {
        Tried(std::move(acq), gi, locked, stepped ? gi : kNone);
      });
    });
  }
}

void Acquire(ShardThread& self, ShardSet& shards, ClientState& client, ReplySink& sink,
             std::shared_ptr<const LockSet> locks, LockedStep step, Task finish,
             std::string record = {}) {
  MarkLocking(client, *locks, +1);
  auto acq = std::make_shared<Acquisition>(Acquisition{&shards, self.id(), &sink, &client,
                                                       std::move(locks), std::move(step),
                                                       std::move(finish), client.exec_nested,
                                                       std::move(record)});
  // Whole-shard locks (FLUSHALL, KEYS, EXEC of those) are rare: always in order.
  if (acq->locks->whole) return StartOrdered(std::move(acq));
  TryAll(std::move(acq));
}

}  // namespace

std::shared_ptr<const LockSet> LockKeys(std::shared_ptr<const KeyGroups> groups) {
  return std::make_shared<const LockSet>(LockSet{std::move(groups), false});
}

std::shared_ptr<const LockSet> LockWholeShards(const ShardSet& set) {
  return std::make_shared<const LockSet>(
      LockSet{std::make_shared<const KeyGroups>(AllShards(set)), true});
}

std::vector<uint32_t> NodeShards(const ShardSet& set, const ClientState& client) {
  if (client.node_shard >= 0) return {uint32_t(client.node_shard)};
  return AllShards(set);
}

std::shared_ptr<const LockSet> LockNodeShards(const CoordCmd& cmd) {
  return std::make_shared<const LockSet>(
      LockSet{std::make_shared<const KeyGroups>(NodeShards(cmd.shards, cmd.client)), true});
}

void AcquireThen(CoordCmd& cmd, std::shared_ptr<const LockSet> locks, Task locked) {
  AcquireThen(cmd.self, cmd.shards, cmd.client, cmd.sink, std::move(locks), std::move(locked));
}

void AcquireThen(ShardThread& self, ShardSet& shards, ClientState& client, ReplySink& sink,
                 std::shared_ptr<const LockSet> locks, Task locked) {
  Acquire(self, shards, client, sink, std::move(locks), nullptr, std::move(locked));
}

void AcquireThenStep(CoordCmd& cmd, std::shared_ptr<const LockSet> locks, LockedStep step,
                     Task finish) {
  // A write outside EXEC and scripts (they record their commands themselves); blocking
  // commands record the pops they make.
  std::string record;
  if (cmd.shards.journal().recording() && !cmd.client.exec_nested) {
    const CommandSpec* spec = cmd.table.Resolve(cmd.args);
    // MIGRATE logs the DELs of the keys it moved; ZMPOP, as the blocking pops it shares
    // its code with (BlockOn), the pops it made (PopRecorded).
    if (spec != nullptr && (spec->flags & kCmdWrite) && !(spec->flags & kCmdBlocking) &&
        spec->full_name != "migrate" && spec->full_name != "zmpop") {
      AofPropagate(cmd.args, {}, cmd.server.clock->NowUnixMillis(), &record);
    }
  }
  Acquire(cmd.self, cmd.shards, cmd.client, cmd.sink, std::move(locks), std::move(step),
          std::move(finish), std::move(record));
}

void ReleaseEverywhere(ShardThread& self, ShardSet& shards, std::shared_ptr<const LockSet> locks) {
  const std::vector<uint32_t> targets = locks->groups->shards();
  FanOut<bool>(
      self, shards, targets,
      [locks](Shard& shard, size_t gi) {
        ReleaseOn(shard, *locks, gi);
        return true;
      },
      [](std::vector<bool>&) {});
}

void ReleaseOn(Shard& shard, const LockSet& locks, size_t gi) {
  shard.locks().Unlock(locks.KeysOf(gi), locks.whole);
}

}  // namespace rc
