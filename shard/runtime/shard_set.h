#pragma once
// All worker threads' shard-side state, and the routing function from key to owner.
//
// Thread i owns ShardThread i. Other threads may only push to its inbox; everything
// else in it is touched by thread i alone.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "core/key_slot.h"
#include "shard/runtime/aof_journal.h"
#include "shard/runtime/replication_hub.h"
#include "shard/runtime/blocked_clients.h"
#include "shard/runtime/mailbox.h"
#include "shard/runtime/notify.h"
#include "shard/runtime/pubsub.h"
#include "shard/runtime/script_busy.h"
#include "shard/runtime/shard.h"
#include "shard/runtime/stats.h"
#include "shard/state/client_registry.h"
#include "shard/state/server_state.h"
#include "shard/wire/command_stats.h"
#include "shard/wire/hop_batch.h"

namespace rc {

class ShardThread {
 public:
  // `busy_threads` counts the threads whose script is busy (ShardSet::AnyScriptBusy).
  ShardThread(uint32_t id, size_t threads, const ServerState* server,
              std::atomic<int>& busy_threads)
      : id_(id),
        shard_(id, &stats_, server),
        events_(server, &pubsub_),
        outbox_(threads),
        hops_(threads),
        blocked_(stats_),
        script_busy_(busy_threads) {
    shard_.set_event_listener(&events_);
    shard_.set_command_stats(&command_stats_);
  }

  uint32_t id() const { return id_; }
  // Owner thread only.
  Shard& shard() { return shard_; }
  ThreadStats& stats() { return stats_; }
  // Per-command calls, time, errors and latency of commands that ran on this thread.
  CommandStats& command_stats() { return command_stats_; }
  // This thread's connections (CLIENT LIST, KILL).
  ClientRegistry& clients() { return clients_; }
  // The channels and patterns this thread's connections subscribe to.
  PubSub& pubsub() { return pubsub_; }
  // Keyspace events raised on this thread, published once per loop turn.
  KeyEvents& events() { return events_; }
  // This thread's clients waiting in a blocking command, with their deadlines.
  BlockedClients& blocked() { return blocked_; }
  // Owner thread: queue `task` to run on thread `dest` at its next turn. It goes after
  // every command batched for `dest` so far, so the batch takes no more. `while_busy`:
  // it may run while `dest`'s script is busy (mailbox.h's Message).
  void Post(uint32_t dest, Task task, bool while_busy = false) {
    hops_.Seal(dest);
    outbox_.Add(dest, std::move(task), while_busy);
  }
  // Owner thread: queue `task` to reach thread `dest` before anything else this turn
  // posts anywhere (Outbox's ahead lane). For keyspace events.
  void PostAhead(uint32_t dest, Task task) { outbox_.AddAhead(dest, std::move(task)); }
  Outbox& outbox() { return outbox_; }
  // Owner thread: the batches of commands this thread sends to their keys' owners.
  HopLanes& hops() { return hops_; }
  // Any thread may push; the owner drains.
  Inbox& inbox() { return inbox_; }

  // Owner thread: runs every task received so far; returns how many ran. Blocked clients
  // waiting on keys a task gave a value are served right after it. Tasks held back while
  // a script was busy run first: they came before anything still in the inbox.
  size_t RunInbox();
  // Owner thread, from inside its busy script (BusyTurn): runs the tasks received so far
  // that may run now (Message::while_busy) and holds the others back, in order, for
  // RunInbox.
  void RunInboxWhileBusy();
  bool HoldsTasks() const { return !held_.empty(); }

  // Whether this thread's script is busy, and SCRIPT KILL's way to it (script_busy.h):
  // this thread enters and leaves it, any thread reads it.
  ScriptBusy& script_busy() { return script_busy_; }
  // The reactor's restricted loop turn for a busy script; null where no reactor runs the
  // thread (unit tests). Set once, before the thread runs scripts.
  // Owner thread: the journal's length after this thread's latest append. Under
  // appendfsync always the loop turn's replies wait until the disk has it.
  void note_aof_position(uint64_t p) { aof_position_ = std::max(aof_position_, p); }
  uint64_t aof_position() const { return aof_position_; }
  BusyTurn* busy_turn() const { return busy_turn_; }
  void set_busy_turn(BusyTurn* turn) { busy_turn_ = turn; }

  // Owner thread: the cluster map as of now (nullptr when cluster mode is off). The
  // thread keeps its own reference and fetches a new one only after a reload, so
  // checking costs one atomic load.
  const ClusterMap* cluster_map(const ClusterState& cluster) {
    const uint64_t generation = cluster.generation();
    if (generation != cluster_generation_) {
      cluster_map_ = cluster.map();
      cluster_generation_ = generation;
    }
    return cluster_map_.get();
  }

 private:
  // Runs `tasks` in order, skipping those a busy script's turn ran already.
  size_t RunAll(std::vector<Message>& tasks);

  uint32_t id_;
  ThreadStats stats_;
  CommandStats command_stats_;
  ClientRegistry clients_;
  PubSub pubsub_;
  Shard shard_;
  KeyEvents events_;
  Outbox outbox_;
  HopLanes hops_;
  BlockedClients blocked_;
  Inbox inbox_;
  std::vector<Message> draining_;
  // The list RunAll runs and the index of its next task, for RunInboxWhileBusy.
  std::vector<Message>* running_ = nullptr;
  size_t running_next_ = 0;
  std::vector<Message> held_;           // posted while the script was busy, not run yet
  std::vector<Message> busy_draining_;  // RunInboxWhileBusy's, apart from draining_
  ScriptBusy script_busy_;
  BusyTurn* busy_turn_ = nullptr;
  uint64_t aof_position_ = 0;
  std::shared_ptr<const ClusterMap> cluster_map_;
  uint64_t cluster_generation_ = 0;
};

// Each shard owns one contiguous range of Redis Cluster slots, so a thread can be a
// cluster node of its own (docs/CLUSTER.md). The ranges split `local` (the slots this
// process serves; all of them without a cluster map) into `shards` runs of nearly equal
// size, as redis-cli --cluster create splits 16384 slots over its masters (3 shards:
// 0-5460, 5461-10922, 10923-16383); a slot outside `local` goes with the next one inside.
std::vector<uint16_t> SplitSlots(size_t shards, const std::vector<bool>& local);

class ShardSet {
 public:
  // The slot ranges follow the cluster map `server` holds, if any (its local slots).
  ShardSet(size_t threads, const ServerState* server);

  size_t size() const { return threads_.size(); }
  ShardThread& thread(uint32_t i) { return *threads_[i]; }
  // Any thread: whether some thread's script is busy (script_busy.h); one relaxed load,
  // so every command can ask.
  bool AnyScriptBusy() const { return busy_threads_.load(std::memory_order_relaxed) > 0; }
  // The shard owning the key's Redis Cluster slot (honouring {hash tags}), so keys that
  // share a tag share a shard.
  uint32_t ShardOf(std::string_view key) const {
    return threads_.size() == 1 ? 0 : slot_shard_[KeySlot(key)];
  }
  uint32_t ShardOfSlot(uint16_t slot) const { return slot_shard_[slot]; }
  // The slots `shard` owns, as ascending ranges.
  std::vector<SlotRange> RangesOf(uint32_t shard) const;
  // Owner thread `from`: hands its outbox to the destinations.
  void FlushOutbox(uint32_t from, Waker& waker);

  // The append-only log's order (aof_journal.h).
  AofJournal& journal() { return journal_; }
  // This server's replicas, fed by the journal (docs/REPLICATION.md).
  ReplicationHub& replicas() { return replicas_; }
  // Owner thread `from`: hands its shard's records to the journal (the end of its loop
  // turn; a multi-shard command locking keys there).
  void PublishAof(uint32_t from);

 private:
  AofJournal journal_;                // before threads_, whose recorders read its flag
  ReplicationHub replicas_;
  std::atomic<int> busy_threads_{0};  // before threads_, which refer to it
  std::vector<std::unique_ptr<ShardThread>> threads_;
  std::vector<uint16_t> slot_shard_;  // slot -> shard; fixed for the process's lifetime
};

}  // namespace rc
