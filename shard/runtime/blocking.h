#pragma once
// Blocking commands (BLPOP, BZPOPMIN, ...) on a shared-nothing server: the parts that run
// on a key's shard. docs/BLOCKING.md has the whole design; in short:
//
//   client's thread (home)                     key's shard S (its thread only)
//   ───────────────────────                    ──────────────────────────────
//   BLPOP a b 0: try the keys in order,  ───▶  nothing to pop: WaitingKeys::Add,
//   atomically (one task on S, or under        the Blocker queues behind every
//   multi-shard locks)                         earlier waiter on each key
//                                              ...
//                                              LPUSH a x: Shard::Add signals `a`;
//                                              after the command ServeReady walks a's
//                                              queue: Claim() the first waiter, pop for
//   Blocker::Served(reply): the reply    ◀───  it, post its reply home
//   fills the held slot, the client
//   reads on
//
// A Blocker is shared by the client's thread and every shard it waits on; its state is
// the one thing they race for. Claim() moves it from waiting to done exactly once: a
// shard that wins pops and delivers, one that loses drops its stale entry and serves the
// next waiter; the client's thread wins it to time out, unblock or forget a closed
// client. So no element is popped for two clients or for none, even when two shards'
// keys become ready for the same client at once.
//
// Serving happens after each command (the dispatcher and the inbox call ServeReady), so
// a pipelined `LPUSH k x` `LPOP k` lets the waiter have x first, as in Redis; a key that
// multi-shard locks hold (EXEC, MSET, ...) is served once they release it, so a push
// inside MULTI wakes nobody before EXEC commits.

#include <atomic>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/container/node_hash_map.h"
#include "absl/types/span.h"
#include "core/reply_builder.h"

namespace rc {

class Shard;
class ShardThread;

// What a key holds, for a blocking command.
enum class KeyProbe : uint8_t {
  kMissing,    // absent: nothing to pop (empty collections do not exist)
  kReady,      // the command's type: something to pop
  kWrongType,  // another type
};

// What one blocking command does to a key, implemented by its family
// (shard/families/blocking/). Immutable once built and shared by every thread that
// handles the command: it owns copies of whatever arguments it needs.
class AofRecorder;

// Pops for a blocked or blocking command on `shard` and records the pop for the
// append-only log when it changed something, unless `record` is false (a command inside
// EXEC, which records it in its place). The key's shard thread.
class BlockingOp;
void PopRecorded(Shard& shard, const BlockingOp& op, std::string_view key, ReplyBuilder& reply,
                 bool record = true);

class BlockingOp {
 public:
  virtual ~BlockingOp() = default;
  // The key's shard thread: what `key` holds for this command.
  virtual KeyProbe Probe(Shard& shard, std::string_view key) const = 0;
  // The key's shard thread, `key` probed kReady: takes what the command takes (raising
  // its keyspace events) and appends the reply. The reply may be an error that ends the
  // command all the same (BLMOVE's destination of the wrong type).
  virtual void Pop(Shard& shard, std::string_view key, ReplyBuilder& reply) const = 0;
  // What Pop did to `key`, as the append-only log replays it: the command's
  // non-blocking form (LPOP, ZPOPMIN, LMOVE), which takes the same from the same state.
  virtual void Record(AofRecorder& aof, std::string_view key) const = 0;
  // The reply when nothing came: on timeout, or at once inside MULTI (`in_multi`), where
  // the command is its non-blocking form.
  virtual void ReplyNothing(ReplyBuilder& reply, bool in_multi) const {
    (void)in_multi;
    reply.NullArray();
  }
  // A move onto a key of another shard (BlockingMoveOp): the key's shard cannot pop for it
  // alone, so it claims the waiter, holds the key (serving no one else from it) and hands
  // the waiter home (Blocker::Notified), which moves under both keys' locks.
  virtual bool ServedHome() const { return false; }
};

// A blocking command that pushes what it pops onto another key (BLMOVE, BRPOPLPUSH). When
// the two keys live on different shards, the client's thread moves under their locks
// with these steps, each on its key's shard.
class BlockingMoveOp : public BlockingOp {
 public:
  BlockingMoveOp(std::string source, std::string destination, bool across)
      : source_(std::move(source)), destination_(std::move(destination)), across_(across) {}
  const std::string& source() const { return source_; }
  const std::string& destination() const { return destination_; }
  bool ServedHome() const override { return across_; }

  // The source's shard, the source probed kReady: the element a pop would take.
  virtual std::string Peek(Shard& shard) const = 0;
  // The destination's shard: whether it may take the element (false: WRONGTYPE).
  virtual bool DestinationOk(Shard& shard) const = 0;
  // The source's shard: pops the peeked element; the destination's: pushes it. Each
  // raises its keyspace events.
  virtual void Take(Shard& shard) const = 0;
  virtual void Give(Shard& shard, std::string_view elem) const = 0;
  // Take's and Give's records for the log, each on its key's shard.
  virtual void RecordTake(AofRecorder& aof) const = 0;
  virtual void RecordGive(AofRecorder& aof, std::string_view elem) const = 0;

 private:
  const std::string source_;
  const std::string destination_;
  const bool across_;
};

// One blocked command. Shared (by std::shared_ptr) between the client's thread (home),
// which owns the reply, and every shard whose WaitingKeys lists it.
class Blocker {
 public:
  // Where the command is, as its home thread sees it (home thread only).
  enum class Phase : uint8_t {
    kAttempt,   // its first look at the keys is under way
    kWaiting,   // queued on its keys' shards (CLIENT LIST flag b, INFO blocked_clients)
    kFinished,  // answered
  };

  Blocker(std::shared_ptr<const BlockingOp> op, uint32_t home, bool resp3)
      : op_(std::move(op)), home_(home), resp3_(resp3) {}
  virtual ~Blocker() = default;
  Blocker(const Blocker&) = delete;
  Blocker& operator=(const Blocker&) = delete;

  // Any thread.
  const BlockingOp& op() const { return *op_; }
  const std::shared_ptr<const BlockingOp>& shared_op() const { return op_; }
  uint32_t home() const { return home_; }
  bool resp3() const { return resp3_; }
  // Takes the command out of the waiting state; true for exactly one caller. A shard
  // claims it to serve it, the home thread to end it otherwise.
  bool Claim() {
    bool waiting = true;
    return waiting_.compare_exchange_strong(waiting, false, std::memory_order_acq_rel);
  }
  // Someone claimed it: shards drop it instead of serving it.
  bool claimed() const { return !waiting_.load(std::memory_order_acquire); }
  // The source's shard, under the locks of a move across shards that found nothing to
  // move: the waiter a shard claimed to hand home waits again.
  void Reopen() { waiting_.store(true, std::memory_order_release); }

  // Home thread: the shard `shard` claimed the command and popped for it (it no longer
  // lists it); `reply` is the answer (RESP bytes in the client's protocol).
  virtual void Served(uint32_t shard, std::string reply) = 0;
  // Home thread: the deadline passed (BlockedClients::FireDue).
  virtual void Expired() = 0;
  // Home thread: the shard `shard` claimed the command (a BlockingMoveOp across shards)
  // and holds `key`, which has data, until the move under locks releases it
  // (WaitingKeys::Release).
  virtual void Notified(uint32_t shard, std::string key) = 0;

  Phase phase = Phase::kAttempt;  // home thread only

 private:
  const std::shared_ptr<const BlockingOp> op_;
  const uint32_t home_;
  const bool resp3_;
  std::atomic<bool> waiting_{true};
};

// One shard's blocked commands by key, and the keys that got a value since they were last
// served. Owned by a Shard; its thread only.
class WaitingKeys {
 public:
  // Nothing waits here: the shard's write paths skip Signal (one branch).
  bool empty() const { return by_key_.empty(); }
  // `b` waits on `keys` (this shard's; a key named twice counts once), behind every
  // earlier waiter on each (`first`: ahead of them, as the waiter a move handed home
  // comes back). Does nothing when `b` was already claimed.
  void Add(std::shared_ptr<Blocker> b, absl::Span<const std::string_view> keys, bool first = false);
  // `b` no longer waits here (answered elsewhere, timed out, client gone). No-op when it
  // does not.
  void Remove(const Blocker* b);
  // `key` got a value (added or replaced): noted for ServeReady when someone waits on it.
  void Signal(std::string_view key);
  // A move across shards that held `key` is over: its other waiters may be served.
  void Release(std::string_view key);
  bool HasReady() const { return !ready_.empty(); }

  size_t keys() const { return by_key_.size(); }
  size_t blockers() const { return by_blocker_.size(); }

 private:
  friend void ServeReady(ShardThread& thread);
  friend void ServeKey(ShardThread& thread, const std::string& key, bool in_turn);
  using Queue = std::list<Blocker*>;  // first come, first served
  using KeySlot = std::pair<const std::string, Queue>;
  struct Registration {
    std::shared_ptr<Blocker> blocker;
    // Its node in each of its keys' queues.
    absl::InlinedVector<std::pair<KeySlot*, Queue::iterator>, 2> nodes;
  };

  // Unlinks `b` from every queue here; `keep` (whose queue the caller walks) stays in the
  // map even when left empty.
  void Unlink(const Blocker* b, const KeySlot* keep = nullptr);
  // Erases `slot`'s key when nobody waits on it any more.
  void EraseIfEmpty(KeySlot* slot);

  // Node maps: each key's queue and each registration stay where they are while others
  // come and go, so the nodes above stay valid.
  absl::node_hash_map<std::string, Queue> by_key_;
  absl::node_hash_map<const Blocker*, Registration> by_blocker_;
  std::vector<std::string> ready_;  // signalled keys, in signal order
  absl::flat_hash_set<std::string> ready_set_;
  // Keys whose first waiter was handed home to move across shards: the others wait.
  absl::flat_hash_set<std::string> held_;
  // Keys whose serving waits its turn in KeyLocks (one task each): a key signalled again
  // meanwhile needs no second task, and two such tasks must never queue behind each
  // other, each re-queueing behind the other as it runs.
  absl::flat_hash_set<std::string> in_lock_queue_;
  bool serving_ = false;  // ServeReady is on the stack
};

// The shard's thread, after a command (or a task) ran: serves the waiters of every key
// that got a value, in signal order, each key's first come first; a key held by
// multi-shard locks is served once they release it. Chains (a served BLMOVE pushing into
// a key someone waits on) are served in the same call. Costs one branch when no key is
// ready.
void ServeReady(ShardThread& thread);

}  // namespace rc
