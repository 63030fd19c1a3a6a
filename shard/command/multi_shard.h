#pragma once
// Atomic commands across shards. A command whose keys live on several shards first locks
// them all, then runs its steps, and releases each shard's locks in its last step there.
// No other command touches those keys in between, so no client observes half of it.
//
// Uncontended, the locks take one parallel hop: every shard is asked at once to lock
// without waiting, and the first step runs as soon as all have said yes; with a single
// other shard, that shard runs its step right where it locked, so the whole command is
// one round trip.
//
//   conn thread: try-lock own keys ─▶ shard B: try-lock (+ step if B is the only other)
//                                   ─▶ conn thread: step on the rest … ─▶ reply
//
// If a shard refuses (a key is held or awaited), what was taken is given back and the
// locks are taken shard by shard in ascending order, waiting in each shard's queue;
// that order keeps two commands from waiting for each other:
//
//   conn thread ─▶ shard 0: lock ─▶ shard 1: lock ─▶ … ─▶ conn thread: step on every shard
//
// Two shapes cover the commands: LockedFanOut (one step on every shard, which releases)
// and LockedReadThenWrite (a read step, a decision on the connection's thread, a write
// step that releases). A command builds on them rather than on AcquireThen/ReleaseOn, so
// no path can leave a lock behind.
//
// While the locks are being taken, a later command of the same connection that names one
// of the keys waits (Dispatcher::Admit, Hold::kForLocks), so it reaches the shards after the locks and
// queues behind them instead of overtaking the command. Other commands go ahead.

#include <functional>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "shard/command/key_groups.h"
#include "shard/runtime/fanout.h"
#include "shard/wire/reply_sink.h"

namespace rc {

// What a multi-shard command locks: the keys of `groups`; or, with `whole`, every key of
// every shard in `groups`.
struct LockSet {
  std::shared_ptr<const KeyGroups> groups;
  bool whole = false;

  KeyLocks::Keys KeysOf(size_t gi) const {
    return whole ? KeyLocks::Keys() : groups->KeyHashes(gi);
  }
};

std::shared_ptr<const LockSet> LockKeys(std::shared_ptr<const KeyGroups> groups);
std::shared_ptr<const LockSet> LockWholeShards(const ShardSet& set);
// Every shard the client's node holds: one for a per-thread cluster node's connection,
// else all (ClientState::node_shard). Commands over the whole keyspace work on these.
std::vector<uint32_t> NodeShards(const ShardSet& set, const ClientState& client);
std::shared_ptr<const LockSet> LockNodeShards(const CoordCmd& cmd);

// A step of a locked command: runs on the thread of shard `groups->shards[gi]`, possibly on
// several threads at once, so it touches only the shard it is given and immutable data.
using LockedStep = std::function<void(Shard& shard, size_t gi)>;

// Connection's thread: takes every lock of `locks`, then runs `locked` on this thread.
void AcquireThen(CoordCmd& cmd, std::shared_ptr<const LockSet> locks, Task locked);
void AcquireThen(ShardThread& self, ShardSet& shards, ClientState& client, ReplySink& sink,
                 std::shared_ptr<const LockSet> locks, Task locked);

// Connection's thread: takes every lock of `locks`, runs `step` on every locked shard,
// then `finish` on this thread.
void AcquireThenStep(CoordCmd& cmd, std::shared_ptr<const LockSet> locks, LockedStep step,
                     Task finish);

// On the thread of shard `locks.groups->shards[gi]`: releases what `locks` holds there and
// runs the work that waited for it.
void ReleaseOn(Shard& shard, const LockSet& locks, size_t gi);
// The thread that took `locks`: releases them on every shard they hold.
void ReleaseEverywhere(ShardThread& self, ShardSet& shards, std::shared_ptr<const LockSet> locks);

// Lock, run `work(shard, gi)` → T on every shard (owner thread), then `done(results)` on
// the connection's thread with the results in group order. Results travel home in
// separate slots: the steps of different shards finish on different threads.
template <typename T, typename Work, typename Done>
void LockedSteps(CoordCmd& cmd, std::shared_ptr<const LockSet> locks, Work work, Done done) {
  struct Slot {
    T value;
  };
  struct Results {
    std::vector<Slot> slots;
    Done done;
  };
  auto results = std::make_shared<Results>(
      Results{std::vector<Slot>(locks->groups->shards().size()), std::move(done)});
  LockedStep step = [results, work](Shard& shard, size_t gi) {
    results->slots[gi].value = work(shard, gi);
  };
  AcquireThenStep(cmd, std::move(locks), std::move(step), [results]() mutable {
    std::vector<T> values;
    values.reserve(results->slots.size());
    for (Slot& s : results->slots) values.push_back(std::move(s.value));
    std::move(results->done)(values);
  });
}

// The common shape: lock, then one step on every shard that also releases, then `done`
// with the results on the connection's thread.
template <typename T, typename Work, typename Done>
void LockedFanOut(CoordCmd& cmd, std::shared_ptr<const LockSet> locks, Work work, Done done) {
  LockedSteps<T>(
      cmd, locks,
      [locks, work](Shard& shard, size_t gi) {
        T result = work(shard, gi);
        ReleaseOn(shard, *locks, gi);
        return result;
      },
      std::move(done));
}

// The two-phase shape of a command that must see every shard before it writes any
// (MSETNX, RENAME across shards, ZUNIONSTORE & co.):
//
//   lock ─▶ read(shard, gi) → R on every shard ─▶ decide(vector<R>&) → Plan on the
//   connection's thread ─▶ write(shard, gi, Plan&) on every shard, then release there
//   ─▶ done(Plan&) on the connection's thread (the reply)
//
// `write` runs on every locked shard even when the plan is to write nothing, since it is
// where the locks come off. `read` and `write` are copied to every shard and run on
// several threads at once: they touch only the shard they are given and immutable
// captures; `read` returns copies (or values taken off the shard, moved), never pointers
// into it. Every write step sees the same plan, so it reads it and moves out only what
// the plan addresses to its own shard (a value to store there).
template <typename ReadFn, typename DecideFn, typename WriteFn, typename DoneFn>
void LockedReadThenWrite(CoordCmd& cmd, std::shared_ptr<const LockSet> locks, ReadFn read,
                         DecideFn decide, WriteFn write, DoneFn done) {
  using Read = std::invoke_result_t<ReadFn&, Shard&, size_t>;
  using Plan = std::invoke_result_t<DecideFn&, std::vector<Read>&>;
  ShardThread* self = &cmd.self;
  ShardSet* shards = &cmd.shards;
  auto decided = [self, shards, locks, decide = std::move(decide), write = std::move(write),
                  done = std::move(done)](std::vector<Read>& reads) mutable {
    auto plan = std::make_shared<Plan>(decide(reads));
    FanOut<bool>(
        *self, *shards, locks->groups->shards(),
        [locks, plan, write](Shard& shard, size_t gi) {
          write(shard, gi, *plan);
          ReleaseOn(shard, *locks, gi);
          return true;
        },
        [plan, done = std::move(done)](std::vector<bool>&) mutable { done(*plan); });
  };
  LockedSteps<Read>(cmd, locks, std::move(read), std::move(decided));
}

}  // namespace rc
