// Set commands over several keys: SINTER, SINTERCARD, SUNION, SDIFF, their STORE forms,
// and SMOVE. Keys on one shard run there in one step; keys on several shards take the
// multi-shard path of the Z*STORE family (shard/command/multi_shard.h), atomic across
// shards:
//
//   lock every key ─▶ each shard copies its sources out ─▶ the connection's thread
//   combines them ─▶ the destination's shard stores the result; all release ─▶ reply
//
// The arithmetic (SetCombine) is shared by both paths. Results are built as Redis builds
// them (createIntsetObject, then setTypeAdd), so their encoding and, for an intset, their
// order match Redis's.

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "core/member_set.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/arg_parser.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/errors.h"
#include "shard/command/key_groups.h"
#include "shard/command/multi_shard.h"
#include "shard/command/typed_lookup.h"
#include "shard/families/set/set_limits.h"
#include "shard/runtime/notify.h"
#include "shard/runtime/shard.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

// A source set copied off its shard.
struct SourceSet {
  bool exists = false;
  bool wrongtype = false;
  std::vector<std::string> members;
};

SourceSet ReadSource(Shard& shard, std::string_view key) {
  SourceSet s;
  Entry* e = shard.FindForRead(key);
  if (e == nullptr) return s;
  if (e->type() != ValueType::kSet) {
    s.wrongtype = true;
    return s;
  }
  s.exists = true;
  const MemberSet& set = *e->object<MemberSet>();
  s.members.reserve(set.size());
  set.ForEach([&](std::string_view m) { s.members.emplace_back(m); });
  return s;
}

enum class SetOperation { kUnion, kInter, kDiff };

struct OpSpec {
  SetOperation op = SetOperation::kUnion;
  bool store = false;
  bool card_only = false;  // SINTERCARD
  int64_t limit = 0;       // SINTERCARD LIMIT; 0: none
  MemberSet::Limits limits;
  std::string_view event;  // the STORE form's keyspace event
};

struct SetOpOutcome {
  std::string error;
  // The result (nullptr when empty); the destination's write step moves it out.
  mutable std::unique_ptr<MemberSet> set;
  int64_t size = 0;  // members of the result, or SINTERCARD's count
};

SetOpOutcome SetCombine(const OpSpec& spec, std::vector<SourceSet>& src) {
  SetOpOutcome o;
  for (const SourceSet& s : src) {
    if (s.wrongtype) {
      o.error = std::string(err::kWrongType);
      return o;
    }
  }
  auto lookup = [](const SourceSet& s) {
    return absl::flat_hash_set<std::string_view>(s.members.begin(), s.members.end());
  };
  std::vector<std::string_view> result;
  switch (spec.op) {
    case SetOperation::kInter: {
      if (std::any_of(src.begin(), src.end(), [](const SourceSet& s) { return !s.exists; })) break;
      std::vector<size_t> order(src.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return src[a].members.size() < src[b].members.size();
      });
      std::vector<absl::flat_hash_set<std::string_view>> others;
      for (size_t i = 1; i < order.size(); ++i) others.push_back(lookup(src[order[i]]));
      for (const std::string& m : src[order[0]].members) {
        if (std::all_of(others.begin(), others.end(),
                        [&](const auto& s) { return s.contains(m); })) {
          result.push_back(m);
          if (spec.card_only && spec.limit > 0 && int64_t(result.size()) >= spec.limit) break;
        }
      }
      break;
    }
    case SetOperation::kUnion:
      for (const SourceSet& s : src)
        result.insert(result.end(), s.members.begin(), s.members.end());
      break;
    case SetOperation::kDiff: {
      if (!src[0].exists) break;
      std::vector<absl::flat_hash_set<std::string_view>> others;
      for (size_t i = 1; i < src.size(); ++i) others.push_back(lookup(src[i]));
      for (const std::string& m : src[0].members) {
        if (std::none_of(others.begin(), others.end(),
                         [&](const auto& s) { return s.contains(m); })) {
          result.push_back(m);
        }
      }
      break;
    }
  }
  if (spec.card_only) {
    o.size = int64_t(result.size());
    return o;
  }
  auto set = std::make_unique<MemberSet>(/*intset=*/true);
  for (std::string_view m : result) set->Add(m, spec.limits);
  o.size = int64_t(set->size());
  if (o.size > 0) o.set = std::move(set);
  return o;
}

void ReplyOutcome(ReplyBuilder& rb, const OpSpec& spec, const SetOpOutcome& o) {
  if (!o.error.empty()) return rb.Error(o.error);
  if (spec.store || spec.card_only) return rb.Integer(o.size);
  rb.SetLen(size_t(o.size));
  if (o.set != nullptr) o.set->ForEach([&](std::string_view m) { rb.Bulk(m); });
}

// Stores a STORE form's result under `dst` on its shard (an empty one deletes it).
void StoreResult(Shard& shard, std::string_view dst, const OpSpec& spec, const SetOpOutcome& o) {
  if (!o.error.empty()) return;
  shard.StoreNotify(dst, o.set != nullptr ? Value(std::move(o.set)) : Value(), kNotifySet,
                    spec.event);
}

// Runs `spec` over `keys` (the destination first when storing) and replies.
void RunCoord(CoordCmd& cmd, std::vector<std::string_view> keys,
              std::shared_ptr<const OpSpec> spec) {
  auto groups =
      std::make_shared<const KeyGroups>(cmd.shards, ArgList(keys.data(), keys.size()), 0, 1);
  const size_t first_source = spec->store ? 1 : 0;
  auto read = [groups, first_source](Shard& shard, size_t gi) {
    const auto& items = groups->Items(gi);
    std::vector<SourceSet> reads(items.size());
    for (size_t k = 0; k < items.size(); ++k) {
      if (items[k] >= first_source) reads[k] = ReadSource(shard, groups->Args(gi)[k]);
    }
    return reads;
  };
  auto combine = [groups, first_source, spec](std::vector<std::vector<SourceSet>>& parts) {
    std::vector<SourceSet> sources(groups->item_count() - first_source);
    for (size_t gi = 0; gi < parts.size(); ++gi) {
      for (size_t k = 0; k < parts[gi].size(); ++k) {
        const size_t item = groups->Items(gi)[k];
        if (item >= first_source) sources[item - first_source] = std::move(parts[gi][k]);
      }
    }
    return SetCombine(*spec, sources);
  };
  DeferredReply out(cmd);
  if (!spec->store) {
    return LockedFanOut<std::vector<SourceSet>>(
        cmd, LockKeys(groups), read,
        [out, combine, spec](std::vector<std::vector<SourceSet>>& parts) {
          SetOpOutcome o = combine(parts);
          out.Send([&](ReplyBuilder& rb) { ReplyOutcome(rb, *spec, o); });
        });
  }
  LockedReadThenWrite(
      cmd, LockKeys(groups), read, combine,
      [groups, spec](Shard& shard, size_t gi, const SetOpOutcome& o) {
        // Items are in argument order within a group: the destination leads its group.
        if (groups->Items(gi)[0] == 0) StoreResult(shard, groups->Args(gi)[0], *spec, o);
      },
      [out, spec](const SetOpOutcome& o) {
        out.Send([&](ReplyBuilder& rb) { ReplyOutcome(rb, *spec, o); });
      });
}

// Every key on this shard: one step, no locks.
void RunLocal(ShardCmd& cmd, ArgList keys, const OpSpec& spec) {
  std::vector<SourceSet> sources;
  for (size_t i = spec.store ? 1 : 0; i < keys.size(); ++i) {
    sources.push_back(ReadSource(cmd.shard, keys[i]));
  }
  SetOpOutcome o = SetCombine(spec, sources);
  // Redis raises a STORE form's event after its reply.
  ReplyOutcome(cmd.reply, spec, o);
  if (spec.store) StoreResult(cmd.shard, keys[0], spec, o);
}

OpSpec SpecFor(const ServerState& server, SetOperation op, bool store) {
  OpSpec spec;
  spec.op = op;
  spec.store = store;
  spec.limits = SetLimits(server);
  spec.event = op == SetOperation::kInter   ? "sinterstore"
               : op == SetOperation::kUnion ? "sunionstore"
                                     : "sdiffstore";
  return spec;
}

template <SetOperation kOp, bool kStore>
void SetOpLocal(ShardCmd& cmd) {
  RunLocal(cmd, ArgList(cmd.args.data() + 1, cmd.args.size() - 1),
           SpecFor(cmd.server, kOp, kStore));
}

template <SetOperation kOp, bool kStore>
void SetOpCoord(CoordCmd& cmd) {
  RunCoord(cmd, std::vector<std::string_view>(cmd.args.begin() + 1, cmd.args.end()),
           std::make_shared<const OpSpec>(SpecFor(cmd.server, kOp, kStore)));
}

// SINTERCARD numkeys key [key ...] [LIMIT limit]
void SInterCard(CoordCmd& cmd) {
  int64_t numkeys;
  if (!ParseInt64(cmd.args[1], &numkeys) || numkeys < 1) {
    return cmd.reply.Error("ERR numkeys should be greater than 0");
  }
  if (numkeys > int64_t(cmd.args.size()) - 2) {
    return cmd.reply.Error("ERR Number of keys can't be greater than number of args");
  }
  auto spec = std::make_shared<OpSpec>();
  spec->op = SetOperation::kInter;
  spec->card_only = true;
  for (size_t j = 2 + size_t(numkeys); j < cmd.args.size(); ++j) {
    if (EqualsIgnoreCase(cmd.args[j], "LIMIT") && j + 1 < cmd.args.size()) {
      ++j;
      if (!ParseInt64(cmd.args[j], &spec->limit) || spec->limit < 0) {
        return cmd.reply.Error("ERR LIMIT can't be negative");
      }
    } else {
      return cmd.reply.Error(err::kSyntax);
    }
  }
  RunCoord(cmd, std::vector<std::string_view>(cmd.args.begin() + 2, cmd.args.begin() + 2 + numkeys),
           std::move(spec));
}

// ---- SMOVE source destination member ----

// What SMOVE does once it has seen both keys, as Redis 7.0's smoveCommand decides.
struct SMovePlan {
  std::string error;
  int64_t reply = 0;
  bool move = false;  // remove from the source, add to the destination
};

struct SMoveSeen {
  bool exists = false;
  bool wrongtype = false;
  bool has_member = false;
};

SMoveSeen See(Shard& shard, std::string_view key, std::string_view member) {
  SMoveSeen k;
  Entry* e = shard.Find(key);
  if (e == nullptr) return k;
  k.exists = true;
  k.wrongtype = e->type() != ValueType::kSet;
  k.has_member = !k.wrongtype && e->object<MemberSet>()->Contains(member);
  return k;
}

SMovePlan DecideMove(const SMoveSeen& src, const SMoveSeen& dst, bool same_key) {
  SMovePlan p;
  if (!src.exists) return p;
  if (src.wrongtype || dst.wrongtype) {
    p.error = std::string(err::kWrongType);
    return p;
  }
  if (same_key || !src.has_member) {
    p.reply = src.has_member ? 1 : 0;
    return p;
  }
  p.reply = 1;
  p.move = true;
  return p;
}

void MoveOut(Shard& shard, std::string_view key, std::string_view member) {
  Entry* e = shard.Find(key);
  bool exists;
  {
    ValueUpdate update(shard, e);
    update.get<MemberSet>().Remove(member);
    exists = update.Finish();
  }
  shard.NotifyRemoved(kNotifySet, "srem", key, !exists);
}

void MoveIn(Shard& shard, const ServerState& server, std::string_view key,
            std::string_view member) {
  Entry* e = shard.Find(key);
  if (e == nullptr) {
    e = shard.Add(key, Value(std::unique_ptr<MemberSet>(MemberSet::ForMember(member))));
  }
  bool added;
  {
    ValueUpdate update(shard, e);
    added = update.get<MemberSet>().Add(member, SetLimits(server));
    if (!added) update.NothingChanged();
  }
  if (added) shard.Notify(kNotifySet, "sadd", key);
}

void SMove(ShardCmd& cmd) {
  const SMoveSeen src = See(cmd.shard, cmd.args[1], cmd.args[3]);
  const SMoveSeen dst = See(cmd.shard, cmd.args[2], cmd.args[3]);
  const SMovePlan p = DecideMove(src, dst, cmd.args[1] == cmd.args[2]);
  if (!p.error.empty()) return cmd.reply.Error(p.error);
  if (p.move) {
    MoveOut(cmd.shard, cmd.args[1], cmd.args[3]);
    MoveIn(cmd.shard, cmd.server, cmd.args[2], cmd.args[3]);
  }
  cmd.reply.Integer(p.reply);
}

// The two keys are on different shards.
void SMoveCoord(CoordCmd& cmd) {
  auto groups = std::make_shared<const KeyGroups>(cmd.shards, cmd.args.subspan(1, 2), 0, 1);
  auto member = std::make_shared<const std::string>(cmd.args[3]);
  const ServerState* server = &cmd.server;
  DeferredReply out(cmd);
  LockedReadThenWrite(
      cmd, LockKeys(groups),
      [groups, member](Shard& shard, size_t gi) {
        return std::make_pair(groups->Items(gi)[0], See(shard, groups->Args(gi)[0], *member));
      },
      [](std::vector<std::pair<uint32_t, SMoveSeen>>& seen) {
        SMoveSeen src, dst;
        for (const auto& [item, k] : seen) (item == 0 ? src : dst) = k;
        return DecideMove(src, dst, false);
      },
      [groups, member, server](Shard& shard, size_t gi, const SMovePlan& p) {
        if (!p.move) return;
        if (groups->Items(gi)[0] == 0) {
          MoveOut(shard, groups->Args(gi)[0], *member);
        } else {
          MoveIn(shard, *server, groups->Args(gi)[0], *member);
        }
      },
      [out](const SMovePlan& p) {
        out.Send([&](ReplyBuilder& rb) {
          if (!p.error.empty()) return rb.Error(p.error);
          rb.Integer(p.reply);
        });
      });
}

}  // namespace

void RegisterSetMultiCommands(CommandTable& t) {
  const uint32_t kW = kCmdWrite | kCmdDenyOom;
  const uint32_t kR = kCmdReadOnly;
  CommandTable::Family f = t.StartFamily("@set");
  f.Add({.name = "smove",
         .arity = 4,
         .flags = kCmdWrite | kCmdFast,
         .keys = {1, 2, 1},
         .on_shard = SMove,
         .on_coord = SMoveCoord});
  f.Add({.name = "sinter",
         .arity = -2,
         .flags = kR,
         .keys = {1, -1, 1},
         .on_shard = SetOpLocal<SetOperation::kInter, false>,
         .on_coord = SetOpCoord<SetOperation::kInter, false>});
  f.Add({.name = "sunion",
         .arity = -2,
         .flags = kR,
         .keys = {1, -1, 1},
         .on_shard = SetOpLocal<SetOperation::kUnion, false>,
         .on_coord = SetOpCoord<SetOperation::kUnion, false>});
  f.Add({.name = "sdiff",
         .arity = -2,
         .flags = kR,
         .keys = {1, -1, 1},
         .on_shard = SetOpLocal<SetOperation::kDiff, false>,
         .on_coord = SetOpCoord<SetOperation::kDiff, false>});
  f.Add({.name = "sinterstore",
         .arity = -3,
         .flags = kW,
         .keys = {1, -1, 1},
         .on_shard = SetOpLocal<SetOperation::kInter, true>,
         .on_coord = SetOpCoord<SetOperation::kInter, true>});
  f.Add({.name = "sunionstore",
         .arity = -3,
         .flags = kW,
         .keys = {1, -1, 1},
         .on_shard = SetOpLocal<SetOperation::kUnion, true>,
         .on_coord = SetOpCoord<SetOperation::kUnion, true>});
  f.Add({.name = "sdiffstore",
         .arity = -3,
         .flags = kW,
         .keys = {1, -1, 1},
         .on_shard = SetOpLocal<SetOperation::kDiff, true>,
         .on_coord = SetOpCoord<SetOperation::kDiff, true>});
  f.Add(
      {.name = "sintercard", .arity = -3, .flags = kR, .on_coord = SInterCard, .numkeys_index = 1});
}

}  // namespace rc
