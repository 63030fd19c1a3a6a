#include "shard/command/blocking_call.h"

#include <cassert>
#include <utility>

#include "core/entry_table.h"
#include "core/numbers.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/errors.h"
#include "shard/command/key_groups.h"
#include "shard/command/multi_shard.h"
#include "shard/runtime/shard_set.h"
#include "shard/wire/client_state.h"
#include "shard/wire/reply_sink.h"

namespace rc {

namespace {

constexpr std::string_view kTimeoutNotFloat = "ERR timeout is not a float or out of range";
constexpr std::string_view kTimeoutNegative = "ERR timeout is negative";

// Runs `task` on `shard`'s thread now, or once multi-shard locks free `hashes`. `nested`:
// inside EXEC, whose own locks hold the keys for it.
void WhenKeysFree(Shard& shard, KeyLocks::Keys hashes, bool nested, Task task) {
  KeyLocks& locks = shard.locks();
  if (nested || locks.Idle() || locks.MayRun(hashes, false)) return std::move(task)();
  locks.Enqueue(hashes, false, std::move(task));
}

std::string Nothing(const BlockingOp& op, bool resp3, bool in_multi) {
  std::string out;
  ReplyBuilder rb(&out, resp3);
  op.ReplyNothing(rb, in_multi);
  return out;
}

// The keys of a command spread over several shards, looked at under their locks.
struct ManyKeysPlan {
  enum class Kind : uint8_t { kNothing, kPop, kWrongType, kQueue };
  Kind kind = Kind::kNothing;
  size_t group = 0;  // kPop: the group and position of the key to pop
  size_t pos = 0;
  std::string reply;  // kPop: written by that group's shard
};

// `call` null: the non-blocking form (inside EXEC), answered through a DeferredReply.
void OnManyShards(CoordCmd& cmd, std::shared_ptr<const BlockingOp> op,
                  std::shared_ptr<const KeyGroups> groups, std::shared_ptr<BlockedCall> call) {
  using Probes = std::vector<KeyProbe>;
  using Plan = ManyKeysPlan;
  const bool resp3 = cmd.client.resp3;
  // Inside EXEC, EXEC records the pop in its place among its commands.
  const bool record = !cmd.client.exec_nested;
  std::shared_ptr<DeferredReply> deferred;
  if (call == nullptr) deferred = std::make_shared<DeferredReply>(cmd);
  LockedReadThenWrite(
      cmd, LockKeys(groups),
      [op, groups](Shard& shard, size_t gi) {
        Probes probes;
        for (std::string_view key : groups->Args(gi)) probes.push_back(op->Probe(shard, key));
        return probes;
      },
      [groups, call](std::vector<Probes>& probes) {
        // Back in argument order: the first key that exists answers.
        std::vector<std::pair<size_t, size_t>> at(groups->item_count());
        for (size_t gi = 0; gi < groups->size(); ++gi) {
          absl::Span<const uint32_t> items = groups->Items(gi);
          for (size_t j = 0; j < items.size(); ++j) at[items[j]] = {gi, j};
        }
        Plan plan;
        for (const auto& [gi, j] : at) {
          const KeyProbe p = probes[gi][j];
          if (p == KeyProbe::kMissing) continue;
          plan.kind = p == KeyProbe::kReady ? Plan::Kind::kPop : Plan::Kind::kWrongType;
          plan.group = gi;
          plan.pos = j;
          return plan;
        }
        if (call != nullptr && !call->claimed()) plan.kind = Plan::Kind::kQueue;
        return plan;
      },
      [op, groups, call, resp3, record](Shard& shard, size_t gi, Plan& plan) {
        if (plan.kind == Plan::Kind::kPop && plan.group == gi) {
          // Only this shard writes the plan's reply; the others only read its kind.
          ReplyBuilder rb(&plan.reply, resp3);
          PopRecorded(shard, *op, groups->Args(gi)[plan.pos], rb, record);
        } else if (plan.kind == Plan::Kind::kQueue) {
          shard.waiting().Add(call, groups->Args(gi));
        }
      },
      [op, call, deferred, resp3](Plan& plan) {
        std::string reply;
        if (plan.kind == Plan::Kind::kPop) {
          reply = std::move(plan.reply);
        } else if (plan.kind == Plan::Kind::kWrongType) {
          ReplyBuilder(&reply, resp3).Error(err::kWrongType);
        } else if (plan.kind == Plan::Kind::kNothing) {
          reply = Nothing(*op, resp3, /*in_multi=*/call == nullptr);
        }
        if (call == nullptr) {
          deferred->Send([&](ReplyBuilder& rb) { rb.out()->append(reply); });
        } else if (plan.kind == Plan::Kind::kQueue) {
          call->Queued();
        } else {
          call->Answered(std::move(reply));
        }
      });
}

// Every key on one shard, another thread's (or this one's, held by multi-shard locks):
// the owner looks and, finding nothing, queues the command in the same step, once the
// locks let it at the keys. `call` null: the non-blocking form.
void OnOwner(CoordCmd& cmd, std::shared_ptr<const BlockingOp> op,
             std::shared_ptr<const KeyGroups> groups, std::shared_ptr<BlockedCall> call) {
  ShardSet* shards = &cmd.shards;
  const uint32_t owner = groups->shards()[0];
  const uint32_t home = cmd.self.id();
  const bool nested = cmd.client.exec_nested;
  const bool resp3 = cmd.client.resp3;
  std::shared_ptr<DeferredReply> deferred;
  if (call == nullptr) deferred = std::make_shared<DeferredReply>(cmd);
  auto attempt = [shards, owner, home, op, groups, call, deferred, resp3, nested]() {
    ShardThread& there = shards->thread(owner);
    const ArgList keys = groups->Args(0);
    std::string out;
    ReplyBuilder rb(&out, resp3);
    // A client that left meanwhile takes nothing.
    bool answered = (call == nullptr || !call->claimed()) &&
                    TryKeys(there.shard(), *op, keys, rb, /*record=*/!nested);
    if (!answered && call == nullptr) {
      op->ReplyNothing(rb, /*in_multi=*/true);
      answered = true;
    } else if (!answered) {
      there.shard().waiting().Add(call, keys);
    }
    // Back home as a task, also from this thread's own shard.
    there.Post(home, [call, deferred, answered, out = std::move(out)]() mutable {
      if (deferred != nullptr) {
        deferred->Send([&](ReplyBuilder& r) { r.out()->append(out); });
      } else if (answered) {
        call->Answered(std::move(out));
      } else {
        call->Queued();
      }
    });
  };
  auto when_free = [shards, owner, groups, nested, attempt = std::move(attempt)]() mutable {
    WhenKeysFree(shards->thread(owner).shard(), groups->KeyHashes(0), nested, std::move(attempt));
  };
  if (owner == home) return when_free();
  cmd.self.Post(owner, std::move(when_free));
}

// A move whose keys live on two shards (BLMOVE), under both keys' locks: the source's
// shard reports its element, the destination's whether it takes it, then one pops and
// the other pushes, so no client sees the element in both lists or in neither. With
// nothing to move the blocked call queues on the source in the same step. `call` null:
// the non-blocking form; `retry`: the source's shard handed `call` home and holds the
// source until this step releases it.
struct MovePlan {
  enum class Kind : uint8_t { kNothing, kMove, kWrongType, kQueue };
  Kind kind = Kind::kNothing;
  std::string elem;
};

void MoveAcross(CoordCmd& cmd, std::shared_ptr<const BlockingMoveOp> op,
                std::shared_ptr<BlockedCall> call, bool retry) {
  struct Seen {
    bool is_src = false;
    KeyProbe src = KeyProbe::kMissing;
    bool dst_ok = true;
    std::string elem;
  };
  std::string_view keys[] = {op->source(), op->destination()};
  auto groups = std::make_shared<const KeyGroups>(cmd.shards, ArgList(keys, 2), 0, 1);
  const bool resp3 = cmd.client.resp3;
  std::shared_ptr<DeferredReply> deferred;
  if (call == nullptr) deferred = std::make_shared<DeferredReply>(cmd);
  auto is_src = [groups](size_t gi) { return groups->Items(gi)[0] == 0; };
  const bool record = !cmd.client.exec_nested;
  LockedReadThenWrite(
      cmd, LockKeys(groups),
      [op, is_src](Shard& shard, size_t gi) {
        Seen s;
        s.is_src = is_src(gi);
        if (!s.is_src) {
          s.dst_ok = op->DestinationOk(shard);
        } else if ((s.src = op->Probe(shard, op->source())) == KeyProbe::kReady) {
          s.elem = op->Peek(shard);
        }
        return s;
      },
      [call](std::vector<Seen>& seen) {
        Seen& src = seen[0].is_src ? seen[0] : seen[1];
        const Seen& dst = seen[0].is_src ? seen[1] : seen[0];
        MovePlan p;
        // A call that timed out or lost its client while handed home moves nothing.
        if (call != nullptr && call->Ending()) return p;
        if (src.src == KeyProbe::kMissing) {
          if (call != nullptr) p.kind = MovePlan::Kind::kQueue;
        } else if (src.src == KeyProbe::kWrongType || !dst.dst_ok) {
          p.kind = MovePlan::Kind::kWrongType;
        } else {
          p.kind = MovePlan::Kind::kMove;
          p.elem = std::move(src.elem);
        }
        return p;
      },
      [op, is_src, call, retry, record](Shard& shard, size_t gi, const MovePlan& p) {
        if (!is_src(gi)) {
          if (p.kind == MovePlan::Kind::kMove) {
            op->Give(shard, p.elem);
            if (record && shard.aof().on()) op->RecordGive(shard.aof(), p.elem);
          }
          return;
        }
        if (p.kind == MovePlan::Kind::kMove) {
          op->Take(shard);
          if (record && shard.aof().on()) op->RecordTake(shard.aof());
        }
        if (p.kind == MovePlan::Kind::kQueue) {
          // Handed home, it comes back first in line, where it was.
          if (retry) call->Reopen();
          const std::string_view src[] = {op->source()};
          shard.waiting().Add(call, src, /*first=*/retry);
        }
        if (retry) shard.waiting().Release(op->source());
      },
      [op, call, deferred, resp3](const MovePlan& p) {
        std::string reply;
        ReplyBuilder rb(&reply, resp3);
        if (p.kind == MovePlan::Kind::kMove) {
          rb.Bulk(p.elem);
        } else if (p.kind == MovePlan::Kind::kWrongType) {
          rb.Error(err::kWrongType);
        } else if (call == nullptr) {
          op->ReplyNothing(rb, /*in_multi=*/true);
        }
        if (call == nullptr) {
          deferred->Send([&](ReplyBuilder& r) { r.out()->append(reply); });
        } else {
          call->MoveDone(p.kind == MovePlan::Kind::kQueue, std::move(reply));
        }
      });
}

}  // namespace

bool ParseBlockTimeout(std::string_view arg, int64_t now_ms, int64_t* deadline_ms,
                       std::string_view* error) {
  long double seconds = 0;
  if (!ParseLongDouble(arg, &seconds)) {
    *error = kTimeoutNotFloat;
    return false;
  }
  // Redis casts seconds * 1000 to long long: x86 turns a value out of range into
  // LLONG_MIN, so "inf" and 1e400 read as negative.
  const long double ms = seconds * 1000.0L;
  const int64_t whole =
      ms > -9223372036854775808.0L && ms < 9223372036854775808.0L ? int64_t(ms) : INT64_MIN;
  if (whole < 0) {
    *error = kTimeoutNegative;
    return false;
  }
  // Redis 7.0 lets the deadline overflow into a value its timeout table never reaches.
  *deadline_ms = whole == 0 || whole > INT64_MAX - now_ms ? 0 : now_ms + whole;
  return true;
}

bool TryKeys(Shard& shard, const BlockingOp& op, ArgList keys, ReplyBuilder& reply, bool record) {
  for (std::string_view key : keys) {
    switch (op.Probe(shard, key)) {
      case KeyProbe::kMissing:
        continue;
      case KeyProbe::kWrongType:
        reply.Error(err::kWrongType);
        return true;
      case KeyProbe::kReady:
        PopRecorded(shard, op, key, reply, record);
        return true;
    }
  }
  return false;
}

void PopOrNothing(ShardCmd& cmd, const BlockingOp& op, ArgList keys) {
  if (!TryKeys(cmd.shard, op, keys, cmd.reply, /*record=*/true)) {
    op.ReplyNothing(cmd.reply, /*in_multi=*/true);
  }
}

void BlockOn(CoordCmd& cmd, std::shared_ptr<const BlockingOp> op, ArgList keys, int64_t deadline_ms,
             bool may_block) {
  auto groups = std::make_shared<const KeyGroups>(cmd.shards, keys, 0, 1);
  may_block &= !cmd.client.exec_nested && !cmd.client.deny_blocking;
  auto make_call = [&] {
    // The connection reads nothing while a call waits, so a client has one at most; a
    // second would take the first's place, where CLIENT UNBLOCK and a disconnect find it.
    assert(cmd.client.blocked == nullptr);
    auto call = std::make_shared<BlockedCall>(op, cmd, deadline_ms, groups->shards());
    cmd.client.blocked = call;
    return call;
  };
  if (op->ServedHome()) {
    auto move = std::static_pointer_cast<const BlockingMoveOp>(op);
    return MoveAcross(cmd, std::move(move), may_block ? make_call() : nullptr, /*retry=*/false);
  }
  if (groups->size() > 1) {
    // The call is made before op and groups are moved into the arguments: argument
    // evaluation order is unspecified.
    std::shared_ptr<BlockedCall> call = may_block ? make_call() : nullptr;
    return OnManyShards(cmd, std::move(op), std::move(groups), std::move(call));
  }
  if (groups->shards()[0] == cmd.self.id()) {
    const ArgList own = groups->Args(0);
    Shard& shard = cmd.self.shard();
    KeyLocks& locks = shard.locks();
    if (cmd.client.exec_nested || locks.Idle() || locks.MayRun(groups->KeyHashes(0), false)) {
      // This thread's own keys, free: answered or queued right here.
      if (TryKeys(shard, *op, own, cmd.reply, /*record=*/!cmd.client.exec_nested)) return;
      if (!may_block) return op->ReplyNothing(cmd.reply, /*in_multi=*/true);
      std::shared_ptr<BlockedCall> call = make_call();
      shard.waiting().Add(call, own);
      call->Queued();
      return;
    }
  }
  std::shared_ptr<BlockedCall> call = may_block ? make_call() : nullptr;
  OnOwner(cmd, std::move(op), std::move(groups), std::move(call));
}

BlockedCall::BlockedCall(std::shared_ptr<const BlockingOp> op, CoordCmd& cmd, int64_t deadline_ms,
                         std::vector<uint32_t> shards)
    : Blocker(std::move(op), cmd.self.id(), cmd.client.resp3),
      self_(cmd.self),
      set_(cmd.shards),
      server_(cmd.server),
      table_(cmd.table),
      client_(cmd.client),
      sink_(cmd.sink),
      slot_(cmd.sink.Defer()),
      deadline_ms_(deadline_ms),
      shards_(std::move(shards)),
      timer_(cmd.self.blocked().NoTimer()) {}

std::string BlockedCall::NothingReply() const { return Nothing(op(), resp3(), false); }

void BlockedCall::Queued() {
  if (phase != Phase::kAttempt) return;  // served before the news that it was queued
  if (home_claimed_) return Finish(std::string(), true);  // the client left while it tried
  phase = Phase::kWaiting;
  timer_ = self_.blocked().Add(shared_from_this(), deadline_ms_);
}

void BlockedCall::Expired() {
  timer_ = self_.blocked().NoTimer();  // BlockedClients took it off already
  if (Claim()) return Finish(NothingReply(), true);
  // Claimed by a shard: being served (its answer comes), or handed home to move.
  expired_ = op().ServedHome();
}

void BlockedCall::Notified(uint32_t shard, std::string key) {
  (void)shard;
  (void)key;
  // The move runs as the command would, from this connection, under both keys' locks.
  std::string unused;
  ReplyBuilder rb(&unused, resp3());
  CoordCmd cmd{self_, set_, server_, client_, sink_, table_, ArgList(), rb};
  MoveAcross(cmd, std::static_pointer_cast<const BlockingMoveOp>(shared_op()), shared_from_this(),
             /*retry=*/true);
}

void BlockedCall::MoveDone(bool queued, std::string reply) {
  if (!queued) return Finish(Ending() ? EndReply() : std::move(reply), /*unqueue=*/false);
  if (phase == Phase::kAttempt) return Queued();
  // Queued again: if it ended meanwhile, it ends now (unless a shard claimed it again,
  // whose hand-over will end it).
  if (Ending() && Claim()) Finish(EndReply(), /*unqueue=*/true);
}

bool BlockedCall::Unblock(bool error) {
  if (phase != Phase::kWaiting || !Claim()) return false;
  std::string reply;
  if (error) {
    ReplyBuilder(&reply, resp3()).Error(kUnblockedError);
  } else {
    reply = NothingReply();
  }
  // CLIENT UNBLOCK runs inside another client's command: the connection resumes from a
  // task of its own.
  self_.Post(self_.id(), [call = shared_from_this(), reply = std::move(reply)]() mutable {
    call->Finish(std::move(reply), true);
  });
  return true;
}

void BlockedCall::ClientClosed() {
  closed_ = true;
  // A shard is serving it (its answer still comes, to nobody) or handed it home to move
  // (the move sees closed_).
  if (!Claim()) return;
  home_claimed_ = true;
  // While the first look is under way its tasks still refer to the connection: the
  // answer to that look ends the call.
  if (phase == Phase::kWaiting) Finish(std::string(), true);
}

void BlockedCall::Finish(std::string reply, bool unqueue, uint32_t served_by) {
  if (phase == Phase::kFinished) return;
  std::shared_ptr<BlockedCall> keep = shared_from_this();
  if (phase == Phase::kWaiting) self_.blocked().Remove(timer_);
  phase = Phase::kFinished;
  for (uint32_t s : shards_) {
    if (!unqueue || s == served_by) continue;
    // Posted to this thread's shard too, as a shard may be in the middle of serving.
    self_.Post(s, [keep, set = &set_, s] { set->thread(s).shard().waiting().Remove(keep.get()); });
  }
  client_.blocked.reset();
  sink_.Fulfill(slot_, std::move(reply));
  sink_.Resume();
}

bool UnblockClient(ClientState& client, bool error) {
  return client.blocked != nullptr && client.blocked->Unblock(error);
}

void BlockedClientClosed(ClientState& client) {
  if (client.blocked != nullptr) client.blocked->ClientClosed();
}

bool BlockedWaiting(const ClientState& client) {
  return client.blocked != nullptr && client.blocked->phase == Blocker::Phase::kWaiting;
}

}  // namespace rc
