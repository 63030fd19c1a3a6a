#pragma once
// Atomic commands across shards. A command whose keys live on several shards first locks
// them shard by shard, in ascending shard order, then runs its steps (FanOut), and
// releases each shard's locks in its last step there. No other command touches those
// keys in between, so no client observes half of it.
//
//   conn thread ─▶ shard 0: lock ─▶ shard 1: lock ─▶ … ─▶ conn thread: locked()
//                   (waits in the shard's queue if the keys are busy)
//   locked(): FanOut(step … ReleaseOn) ─▶ reply
//
// Two shapes cover the commands: LockedFanOut (one step on every shard, which releases)
// and LockedReadThenWrite (a read step, a decision on the connection's thread, a write
// step that releases). A command builds on them rather than on AcquireThen/ReleaseOn, so
// no path can leave a lock behind.
//
// While the locks are being taken, a later command of the same connection that names one
// of the keys waits (Dispatcher::MustWait), so it reaches the shards after the locks and
// queues behind them instead of overtaking the command. Other commands go ahead.

#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "shard/command/key_groups.h"
#include "shard/command/reply_sink.h"
#include "shard/runtime/fanout.h"

namespace rc {

// What a multi-shard command locks: the keys of `groups` (shards ascending), every
// `width`-th argument of each group being a key; or, with `whole`, every key of every
// shard in `groups`.
struct LockSet {
  std::shared_ptr<const KeyGroups> groups;
  size_t width = 1;
  bool whole = false;

  KeyLocks::Keys KeysOf(size_t gi) const;
};

std::shared_ptr<const LockSet> LockKeys(std::shared_ptr<const KeyGroups> groups, size_t width);
std::shared_ptr<const LockSet> LockWholeShards(const ShardSet& set);

// Connection's thread: takes every lock of `locks`, then runs `locked` on this thread.
void AcquireThen(CoordCmd& cmd, std::shared_ptr<const LockSet> locks, Task locked);
void AcquireThen(ShardThread& self, ShardSet& shards, ClientState& client, ReplySink& sink,
                 std::shared_ptr<const LockSet> locks, Task locked);

// On the thread of shard `locks.groups->shards[gi]`: releases what `locks` holds there and
// runs the work that waited for it.
void ReleaseOn(Shard& shard, const LockSet& locks, size_t gi);

// The common shape: lock, then one step on every shard that also releases, then `done`
// with the results on the connection's thread.
template <typename T, typename Work, typename Done>
void LockedFanOut(CoordCmd& cmd, std::shared_ptr<const LockSet> locks, Work work, Done done) {
  ShardThread* self = &cmd.self;
  ShardSet* shards = &cmd.shards;
  AcquireThen(cmd, locks, [self, shards, locks, work, done = std::move(done)]() mutable {
    FanOut<T>(
        *self, *shards, locks->groups->shards,
        [locks, work](Shard& shard, size_t gi) {
          T result = work(shard, gi);
          ReleaseOn(shard, *locks, gi);
          return result;
        },
        std::move(done));
  });
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
        *self, *shards, locks->groups->shards,
        [locks, plan, write](Shard& shard, size_t gi) {
          write(shard, gi, *plan);
          ReleaseOn(shard, *locks, gi);
          return true;
        },
        [plan, done = std::move(done)](std::vector<bool>&) mutable { done(*plan); });
  };
  AcquireThen(
      cmd, locks,
      [self, shards, locks, read = std::move(read), decided = std::move(decided)]() mutable {
        FanOut<Read>(*self, *shards, locks->groups->shards, std::move(read), std::move(decided));
      });
}

}  // namespace rc
