#include "shard/command/transaction.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "core/aof_propagate.h"
#include "core/entry_table.h"
#include "shard/command/dispatcher.h"
#include "shard/command/invoke.h"
#include "shard/command/multi_shard.h"
#include "shard/runtime/fanout.h"
#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"
#include "shard/wire/reply_sink.h"

namespace rc {

namespace {

struct Transaction;

// Collects the reply of one queued command that runs on the connection's thread, inline
// or deferred (a multi-shard command answers later). Connection's thread only, like
// every ReplySink.
class ExecSink final : public ReplySink {
 public:
  ExecSink(ReplySink* outer, std::shared_ptr<Transaction> tx, size_t index)
      : outer_(outer), tx_(std::move(tx)), index_(index) {}

  std::string* inline_out() { return &inline_; }
  uint64_t Defer() override {
    FlushInline();
    parts_.emplace_back();
    ++pending_;
    return parts_.size() - 1;
  }
  void Fulfill(uint64_t slot, std::string resp) override;
  void Resume() override { outer_->Resume(); }
  void Push(std::string resp) override { outer_->Push(std::move(resp)); }

  // The handler has returned. True when the reply is complete; otherwise Fulfill carries
  // the transaction on once it is.
  bool Started() {
    started_ = true;
    if (pending_ > 0) return false;
    tx_.reset();
    return true;
  }
  std::string TakeReply() {
    FlushInline();
    std::string reply;
    for (auto& p : parts_) reply += p;
    return reply;
  }

 private:
  void FlushInline() {
    if (!inline_.empty()) parts_.push_back(std::move(inline_));
    inline_.clear();
  }

  ReplySink* outer_;
  std::shared_ptr<Transaction> tx_;  // keeps the transaction alive while a reply is owed
  size_t index_;
  std::string inline_;
  std::vector<std::string> parts_;
  size_t pending_ = 0;
  bool started_ = false;
};

// What one shard's part of a run of single-shard commands sends back: their replies and
// runs in order, and with the log on what they changed.
struct ShardRuns {
  std::vector<std::string> replies;
  std::vector<Ran> ran;
  std::string records;
};

struct Transaction : std::enable_shared_from_this<Transaction> {
  ShardThread* self;
  ShardSet* shards;
  ServerState* server;
  ClientState* client;
  ReplySink* sink;
  const CommandTable* table;
  uint64_t slot;
  bool resp3;  // the client's protocol when EXEC began
  std::vector<QueuedCommand> queued;
  std::unique_ptr<OwnedArgs> exec_args;  // EXEC as the client sent it, for MONITOR
  bool shown = false;                    // monitors have seen the transaction
  WatchSet watch;
  std::shared_ptr<const LockSet> locks;  // null when the commands name no key
  std::vector<std::string> replies;
  // Each command's run: its time, and whether the slow log wants it (logged at the end).
  std::vector<Ran> ran;
  // With the log on: the records of what ran so far, in order. Across shards they reach
  // the journal whole at the end, before the locks come off (Finish).
  bool logging = false;
  std::string records;
  // Sinks of coordinator commands; kept to the end, since one may still be on the stack
  // (its Fulfill carries the transaction on).
  std::vector<std::unique_ptr<ExecSink>> sinks;

  // The shard a command's keys all live on, when it runs there (as Dispatch routes it).
  bool OneShard(const QueuedCommand& q, uint32_t* owner) const {
    const CommandSpec& spec = *q.spec;
    if (spec.on_shard == nullptr) return false;
    const ArgList args = q.args->view();
    *owner = OwnerOf(*shards, args, spec.KeysFor(args));
    return *owner != kNoShard;
  }

  void Start() {
    std::vector<std::string_view> keys;
    bool whole = false;
    for (const QueuedCommand& q : queued) {
      const CommandSpec& spec = *q.spec;
      if (spec.keys.none() && !spec.CountedKeys()) {
        // KEYS, DBSIZE, FLUSHALL, ... see every key.
        whole |= (spec.flags & (kCmdWrite | kCmdReadOnly)) != 0;
      } else if (spec.on_shard == nullptr) {
        whole = true;  // keys beyond the row's triple (ZUNIONSTORE): not known here
      } else {
        for (std::string_view k : spec.KeysOf(q.args->view())) keys.push_back(k);
      }
    }
    for (const std::string& k : watch.keys) keys.push_back(k);
    if (!whole && RunOnOneShard(keys)) return;
    if (whole) {
      locks = LockWholeShards(*shards);
    } else if (!keys.empty()) {
      absl::flat_hash_set<std::string_view> seen;
      std::vector<std::string_view> unique;
      for (std::string_view k : keys) {
        if (seen.insert(k).second) unique.push_back(k);
      }
      auto groups =
          std::make_shared<const KeyGroups>(*shards, ArgList(unique.data(), unique.size()), 0, 1);
      locks = LockKeys(std::move(groups));
    }
    if (locks == nullptr) return CheckWatches();
    AcquireThen(*self, *shards, *client, *sink, locks,
                [tx = shared_from_this()] { tx->CheckWatches(); });
  }

  // The common case: every key, queued or watched, lives on one shard and every command
  // runs there. Then the whole transaction is one task on that shard, run once its keys
  // are free, like a single-shard command: no locks, no hop beyond the owner's.
  bool RunOnOneShard(const std::vector<std::string_view>& keys) {
    if (keys.empty()) return false;
    const uint32_t owner = shards->ShardOf(keys[0]);
    for (std::string_view k : keys) {
      if (shards->ShardOf(k) != owner) return false;
    }
    for (const QueuedCommand& q : queued) {
      uint32_t s = 0;
      if (!OneShard(q, &s)) return false;
    }
    // The key locks know keys by hash; a key named twice is locked once.
    auto unique = std::make_shared<std::vector<uint64_t>>();
    absl::flat_hash_set<uint64_t> seen;
    for (std::string_view k : keys) {
      const uint64_t h = HashKey(k);
      if (seen.insert(h).second) unique->push_back(h);
    }
    const uint32_t home = self->id();
    ShardSet* set = shards;
    // On the owner's thread.
    auto run = [tx = shared_from_this(), set, owner, home]() {
      ShardThread& there = set->thread(owner);
      Shard& shard = there.shard();
      bool dirty = false;
      if (tx->watch.state != nullptr) {
        for (const std::string& k : tx->watch.keys) shard.Find(k);  // expired: changed
        dirty = tx->watch.state->dirty.load(std::memory_order_acquire);
      }
      if (!dirty) {
        std::string records;
        const bool logging = shard.aof().on();
        for (size_t i = 0; i < tx->queued.size(); ++i) {
          tx->replies[i] =
              tx->RunOnShard(shard, tx->queued[i], logging ? &records : nullptr, &tx->ran[i]);
        }
        AppendUnit(records, shard.aof().target());
      }
      if (owner == home) return tx->Finish(!dirty);
      there.Post(home, [tx, dirty] { tx->Finish(!dirty); });
    };
    auto when_free = [set, owner, unique, run = std::move(run)]() mutable {
      KeyLocks& locks = set->thread(owner).shard().locks();
      if (locks.Idle() || locks.MayRun(*unique, false)) return run();
      locks.Enqueue(*unique, false, std::move(run));
    };
    if (owner == home) {
      when_free();
    } else {
      self->Post(owner, std::move(when_free));
    }
    return true;
  }

  // Locks held. A watched key past its deadline counts as changed: reclaim it first.
  void CheckWatches() {
    if (watch.state == nullptr) return Run(0);
    std::vector<std::vector<std::string>> by_shard(shards->size());
    for (const std::string& k : watch.keys) by_shard[shards->ShardOf(k)].push_back(k);
    std::vector<uint32_t> targets;
    auto mine = std::make_shared<std::vector<std::vector<std::string>>>();
    for (uint32_t s = 0; s < by_shard.size(); ++s) {
      if (by_shard[s].empty()) continue;
      targets.push_back(s);
      mine->push_back(std::move(by_shard[s]));
    }
    std::shared_ptr<const std::vector<std::vector<std::string>>> keys = std::move(mine);
    FanOut<bool>(
        *self, *shards, targets,
        [keys](Shard& shard, size_t i) {
          for (const std::string& k : (*keys)[i]) shard.Find(k);
          return true;
        },
        [tx = shared_from_this()](std::vector<bool>&) {
          if (tx->watch.state->dirty.load(std::memory_order_acquire)) return tx->Finish(false);
          tx->Run(0);
        });
  }

  // Runs queued[i...] in order.
  void Run(size_t i) {
    while (i < queued.size()) {
      uint32_t owner = 0;
      if (OneShard(queued[i], &owner)) {
        size_t end = i;
        std::vector<uint32_t> targets;
        for (; end < queued.size() && OneShard(queued[end], &owner); ++end) {
          if (std::find(targets.begin(), targets.end(), owner) == targets.end()) {
            targets.push_back(owner);
          }
        }
        if (targets.size() == 1 && targets[0] == self->id()) {
          for (; i < end; ++i) {
            replies[i] =
                RunOnShard(self->shard(), queued[i], logging ? &records : nullptr, &ran[i]);
          }
          continue;
        }
        return RunBatch(i, end, std::move(targets));
      }
      // As it would run outside MULTI, with EXEC's locks standing in for its own.
      sinks.push_back(std::make_unique<ExecSink>(sink, shared_from_this(), i));
      ExecSink& s = *sinks.back();
      ReplyBuilder rb(s.inline_out(), client->resp3);
      CoordCmd c{*self, *shards, *server, *client, s, *table, queued[i].args->view(), rb};
      client->exec_nested = true;
      client->exec_records = logging ? &records : nullptr;
      ran[i] = InvokeOnCoord(c, *queued[i].spec, InvokeAs{InvokePath::kExec});
      client->exec_nested = false;
      client->exec_records = nullptr;
      if (!s.Started()) return;
      replies[i] = s.TakeReply();
      RecordCoord(i);
      ++i;
    }
    Finish(true);
  }

  // A command that ran as a coordinator: its record, as it changed whatever it did.
  void RecordCoord(size_t i) {
    const QueuedCommand& q = queued[i];
    // A blocking command inside EXEC is its non-blocking form, recorded as such.
    if (!logging || !(q.spec->flags & kCmdWrite)) return;
    AofPropagate(q.args->view(), replies[i], server->clock->NowUnixMillis(), &records);
  }

  // On the keys' owner. `records`: where what the command changed is recorded (null: the
  // log is off). Its run goes back with the reply, into ran[] (SlowLogRuns).
  std::string RunOnShard(Shard& shard, const QueuedCommand& q, std::string* records,
                         Ran* ran_out) const {
    std::string out;
    ReplyBuilder rb(&out, resp3);
    *ran_out = InvokeOnShard(shards->thread(shard.id()), *server, *q.spec, q.args->view(), rb,
                             InvokeAs{InvokePath::kExec, nullptr, records});
    return out;
  }

  // As Redis, the slow log has the commands EXEC ran, each on its own, not EXEC.
  void SlowLogRuns() const {
    for (size_t i = 0; i < queued.size(); ++i) {
      if (ran[i].slow) LogSlowRun(*server, *client, queued[i].args->view(), ran[i].ns);
    }
  }

  // queued[i, end): single-shard commands, one message per shard in `targets`.
  void RunBatch(size_t i, size_t end, std::vector<uint32_t> targets) {
    std::sort(targets.begin(), targets.end());
    auto per_shard = std::make_shared<std::vector<std::vector<size_t>>>(targets.size());
    for (size_t j = i; j < end; ++j) {
      uint32_t owner = 0;
      OneShard(queued[j], &owner);
      if (queued[j].spec->prepare != nullptr) {
        queued[j].spec->prepare(*self, *server, queued[j].args->view());
      }
      auto t = size_t(std::lower_bound(targets.begin(), targets.end(), owner) - targets.begin());
      (*per_shard)[t].push_back(j);
    }
    // The shards read the queued commands while this thread waits: nothing changes them
    // until every shard has answered.
    std::shared_ptr<const Transaction> reader = shared_from_this();
    FanOut<ShardRuns>(
        *self, *shards, targets,
        [reader, per_shard](Shard& shard, size_t t) {
          ShardRuns runs;
          for (size_t j : (*per_shard)[t]) {
            Ran ran;
            runs.replies.push_back(reader->RunOnShard(
                shard, reader->queued[j], reader->logging ? &runs.records : nullptr, &ran));
            runs.ran.push_back(ran);
          }
          return runs;
        },
        [tx = shared_from_this(), per_shard, end](std::vector<ShardRuns>& out) {
          for (size_t t = 0; t < out.size(); ++t) {
            for (size_t k = 0; k < out[t].replies.size(); ++k) {
              const size_t j = (*per_shard)[t][k];
              tx->replies[j] = std::move(out[t].replies[k]);
              tx->ran[j] = out[t].ran[k];
            }
            tx->records += out[t].records;
          }
          tx->Run(end);
        });
  }

  void Finish(bool ran) {
    if (ran && !records.empty() && shards->journal().recording()) {
      std::string unit;
      AppendUnit(records, &unit);
      self->note_aof_position(shards->journal().Append(unit));
    }
    if (locks != nullptr) ReleaseEverywhere(*self, *shards, locks);
    ReleaseWatches(*self, *shards, std::move(watch));
    client->exec_count = -1;
    client->exec_mem = 0;
    std::string out;
    ReplyBuilder rb(&out, resp3);
    if (!ran) {
      rb.NullArray();
    } else {
      rb.ArrayLen(replies.size());
      for (const std::string& r : replies) out += r;
      SlowLogRuns();
    }
    sink->Fulfill(slot, std::move(out));
    if (!shown) ShowToMonitors(ran);
  }

  // As Redis, monitors see each command EXEC ran (admin ones excepted), then EXEC.
  void ShowToMonitors(bool ran) {
    shown = true;
    if (server->introspect.monitors.load(std::memory_order_relaxed) == 0) return;
    if (ran) {
      for (const QueuedCommand& q : queued) {
        if (!(q.spec->flags & kCmdAdmin)) {
          FeedMonitors(*self, *shards, *server, client->addr, q.args->view());
        }
      }
    }
    FeedMonitors(*self, *shards, *server, client->addr, exec_args->view());
  }
};

void ExecSink::Fulfill(uint64_t slot, std::string resp) {
  parts_[slot] = std::move(resp);
  if (--pending_ > 0 || !started_) return;
  std::shared_ptr<Transaction> tx = std::move(tx_);
  tx->replies[index_] = TakeReply();
  tx->RecordCoord(index_);
  // Carry on from a fresh task: whoever called Fulfill may still use this sink (a lock
  // acquisition calls Resume() after its command ran), and the transaction's end frees it.
  const uint32_t home = tx->self->id();
  tx->self->Post(home, [tx, next = index_ + 1] { tx->Run(next); });
}

}  // namespace

void ExecTransaction(CoordCmd& cmd) {
  auto tx = std::make_shared<Transaction>();
  tx->self = &cmd.self;
  tx->shards = &cmd.shards;
  tx->server = &cmd.server;
  tx->client = &cmd.client;
  tx->sink = &cmd.sink;
  tx->table = &cmd.table;
  tx->resp3 = cmd.client.resp3;
  tx->queued = std::move(cmd.client.multi->queued);
  tx->exec_args = std::make_unique<OwnedArgs>(cmd.args);
  cmd.client.multi.reset();
  cmd.client.exec_count = int64_t(tx->queued.size());
  cmd.client.exec_mem = MultiMem(tx->queued);
  tx->watch = std::exchange(cmd.client.watching, WatchSet{});
  tx->replies.resize(tx->queued.size());
  tx->ran.resize(tx->queued.size());
  tx->slot = cmd.sink.Defer();
  tx->logging = cmd.shards.journal().recording();
  // Without WATCH every queued command runs: monitors see them now, in the order of the
  // client's requests, as they see a command sent to another shard when it is sent.
  // With WATCH only the end knows whether they ran.
  if (tx->watch.state == nullptr) tx->ShowToMonitors(true);
  tx->Start();
}

}  // namespace rc
