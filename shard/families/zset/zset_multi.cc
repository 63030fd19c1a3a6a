// Sorted-set commands over several keys, which may live on different shards:
// ZRANGESTORE, ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE, ZUNION, ZINTER, ZDIFF, ZINTERCARD.
//
// They run on the connection's thread (ZRANGESTORE with both keys on one shard runs there
// inline) and are atomic across shards like MSETNX and RENAME (multi_shard.h):
//
//   lock every key, shard by shard ─▶ step 1 on each shard: copy the sources out
//   (a non-STORE command releases here: LockedFanOut) ─▶ combine on the connection's
//   thread ─▶ step 2 on each shard: the destination's shard stores the result; all
//   release (LockedReadThenWrite) ─▶ reply
//
// Copies are taken because a shard's data never leaves its thread. The set
// arithmetic itself is in zset_setops.cc.

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/errors.h"
#include "shard/command/key_groups.h"
#include "shard/command/multi_shard.h"
#include "shard/command/typed_lookup.h"
#include "shard/families/zset/zset_args.h"
#include "shard/families/zset/zset_setops.h"
#include "shard/runtime/fanout.h"
#include "shard/runtime/shard.h"

namespace rc {

namespace {

// Stores a STORE form's result (an empty one deletes the key), with Redis's events.
void StoreResult(Shard& shard, std::string_view dst, const ScoredMembers& members,
                 const ZSet::Limits& limits, bool incremental, int64_t known_length,
                 std::string_view event) {
  shard.StoreNotify(dst, Value(BuildZSet(members, limits, incremental, known_length)),
                    kNotifyZset, event);
}

// What to keep of a source set (runs on the source's shard; must be thread-safe).
using Extract = std::function<ScoredMembers(const ZSet&)>;

using Combine = std::function<ZSetOpOutcome(std::vector<SourceRead>&)>;

// Locks `keys` (keys[0] is the destination when `event`, the STORE form's keyspace event,
// is given), reads the sources through `extract`, combines them on this thread, stores the
// result under keys[0] when storing (an empty result deletes it) and replies: the count
// stored, or the members.
void ReadCombineStore(CoordCmd& cmd, const std::vector<std::string_view>& keys,
                      std::string_view event, Extract extract, Combine combine) {
  const bool store = !event.empty();
  auto groups =
      std::make_shared<const KeyGroups>(cmd.shards, ArgList(keys.data(), keys.size()), 0, 1);
  auto ex = std::make_shared<const Extract>(std::move(extract));
  const size_t first_source = store ? 1 : 0;
  // On each shard: copies of its sources, in its group's order.
  auto read = [groups, ex, first_source](Shard& shard, size_t gi) {
    const auto& items = groups->Items(gi);
    std::vector<SourceRead> reads(items.size());
    for (size_t k = 0; k < items.size(); ++k) {
      if (items[k] < first_source) continue;
      Entry* e = shard.FindForRead(groups->Args(gi)[k]);
      if (e == nullptr) continue;
      if (e->type() != ValueType::kZSet) {
        reads[k].wrongtype = true;
        continue;
      }
      reads[k].exists = true;
      reads[k].members = (*ex)(*e->object<ZSet>());
    }
    return reads;
  };
  // On this thread: the sources in argument order, combined.
  auto outcome = [groups, first_source,
                  combine = std::move(combine)](std::vector<std::vector<SourceRead>>& parts) {
    std::vector<SourceRead> sources(groups->item_count() - first_source);
    for (size_t gi = 0; gi < parts.size(); ++gi) {
      for (size_t k = 0; k < parts[gi].size(); ++k) {
        size_t item = groups->Items(gi)[k];
        if (item >= first_source) sources[item - first_source] = std::move(parts[gi][k]);
      }
    }
    return combine(sources);
  };
  DeferredReply out(cmd);
  if (!store) {
    return LockedFanOut<std::vector<SourceRead>>(
        cmd, LockKeys(groups), read, [out, outcome](std::vector<std::vector<SourceRead>>& parts) {
          ZSetOpOutcome o = outcome(parts);
          out.Send([&](ReplyBuilder& rb) {
            if (!o.error.empty()) return rb.Error(o.error);
            if (o.cardinality >= 0) return rb.Integer(o.cardinality);
            ScoredLen(rb, o.members.size(), o.withscores);
            for (const auto& [m, s] : o.members) ReplyScored(rb, m, s, o.withscores);
          });
        });
  }
  const ZSet::Limits limits = ZSetLimits(cmd.server);
  LockedReadThenWrite(
      cmd, LockKeys(groups), read, outcome,
      [groups, event, limits](Shard& shard, size_t gi, const ZSetOpOutcome& o) {
        // Items are in argument order within a group: item 0 (the destination) leads its
        // group.
        if (o.error.empty() && groups->Items(gi)[0] == 0) {
          StoreResult(shard, groups->Args(gi)[0], o.members, limits, o.incremental,
                      o.known_length, event);
        }
      },
      [out](const ZSetOpOutcome& o) {
        out.Send([&](ReplyBuilder& rb) {
          if (!o.error.empty()) return rb.Error(o.error);
          rb.Integer(int64_t(o.members.size()));
        });
      });
}

// ---- ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count] ----

// Redis sizes ZRANGESTORE's result up front only for a rank range.
int64_t KnownLength(const RangeQuery& q, const ScoredMembers& members) {
  return q.type == RangeQuery::Type::kRank ? int64_t(members.size()) : -1;
}

void ZRangeStore(ShardCmd& cmd) {
  RangeQuery q;
  std::string error;
  if (!ParseRangeQuery(cmd.args, 2, true, &q, &error)) return cmd.reply.Error(error);
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[2], ValueType::kZSet, Access::kRead, cmd.reply, &e)) return;
  ScoredMembers members;
  if (e != nullptr) members = CopyRange(*e->object<ZSet>(), PlanRange(*e->object<ZSet>(), q));
  // Redis raises the events after its reply.
  cmd.reply.Integer(int64_t(members.size()));
  StoreResult(cmd.shard, cmd.args[1], members, ZSetLimits(cmd.server), true,
              KnownLength(q, members), "zrangestore");
}

// The two keys are on different shards.
void ZRangeStoreCoord(CoordCmd& cmd) {
  // The query keeps views into `owned`, which lives as long as the extract function.
  auto owned = std::make_shared<const std::vector<std::string>>(cmd.args.begin(), cmd.args.end());
  std::vector<std::string_view> views(owned->begin(), owned->end());
  auto q = std::make_shared<RangeQuery>();
  std::string error;
  if (!ParseRangeQuery(ArgList(views.data(), views.size()), 2, true, q.get(), &error)) {
    return cmd.reply.Error(error);
  }
  std::shared_ptr<const RangeQuery> query = std::move(q);
  ReadCombineStore(
      cmd, {views[1], views[2]}, "zrangestore",
      [owned, query](const ZSet& z) { return CopyRange(z, PlanRange(z, *query)); },
      [query](std::vector<SourceRead>& src) {
        ZSetOpOutcome o;
        if (src[0].wrongtype) {
          o.error = std::string(err::kWrongType);
        } else {
          o.members = std::move(src[0].members);
          o.incremental = true;
          o.known_length = KnownLength(*query, o.members);
        }
        return o;
      });
}

// ---- ZUNION / ZINTER / ZDIFF and their STORE forms ----
void SetOpGeneric(CoordCmd& cmd, ZSetOpKind kind, bool store, bool cardinality_only = false) {
  const size_t numkeys_idx = store ? 2 : 1;
  int64_t setnum;
  if (!ParseInt64(cmd.args[numkeys_idx], &setnum)) return cmd.reply.Error(err::kNotInteger);
  if (setnum < 1) {
    return cmd.reply.Error(
        StrCat("ERR at least 1 input key is needed for '", ToLower(cmd.args[0]), "' command"));
  }
  if (setnum > int64_t(cmd.args.size() - (numkeys_idx + 1))) {
    return cmd.reply.Error(err::kSyntax);
  }
  auto op = std::make_shared<ZSetOp>();
  op->kind = kind;
  op->cardinality_only = cardinality_only;
  ParseSetOpOptions(cmd.args, numkeys_idx + 1 + size_t(setnum), size_t(setnum), store, op.get());
  std::vector<std::string_view> keys;
  if (store) keys.push_back(cmd.args[1]);
  for (int64_t i = 0; i < setnum; ++i) keys.push_back(cmd.args[numkeys_idx + 1 + size_t(i)]);
  std::shared_ptr<const ZSetOp> shared_op = std::move(op);
  std::string_view event;
  if (store) {
    event = kind == ZSetOpKind::kUnion   ? "zunionstore"
            : kind == ZSetOpKind::kInter ? "zinterstore"
                                        : "zdiffstore";
  }
  ReadCombineStore(
      cmd, keys, event,
      [](const ZSet& z) {
        return CopyRange(z, RankWalk{0, z.size(), false});
      },
      [shared_op](std::vector<SourceRead>& src) { return RunSetOp(*shared_op, src); });
}

void ZUnionStore(CoordCmd& cmd) { SetOpGeneric(cmd, ZSetOpKind::kUnion, true); }
void ZInterStore(CoordCmd& cmd) { SetOpGeneric(cmd, ZSetOpKind::kInter, true); }
void ZDiffStore(CoordCmd& cmd) { SetOpGeneric(cmd, ZSetOpKind::kDiff, true); }
void ZUnion(CoordCmd& cmd) { SetOpGeneric(cmd, ZSetOpKind::kUnion, false); }
void ZInter(CoordCmd& cmd) { SetOpGeneric(cmd, ZSetOpKind::kInter, false); }
void ZDiff(CoordCmd& cmd) { SetOpGeneric(cmd, ZSetOpKind::kDiff, false); }
void ZInterCard(CoordCmd& cmd) { SetOpGeneric(cmd, ZSetOpKind::kInter, false, true); }

}  // namespace

void RegisterZSetMultiCommands(CommandTable& t) {
  const uint32_t kW = kCmdWrite | kCmdDenyOom;
  CommandTable::Family f = t.StartFamily("@sortedset");
  f.Add({.name = "zrangestore",
         .arity = -5,
         .flags = kW,
         .keys = {1, 2, 1},
         .on_shard = ZRangeStore,
         .on_coord = ZRangeStoreCoord});
  // The sources follow numkeys: COMMAND shows Redis's legacy triple (the STORE forms'
  // destination only) and movablekeys, and the coordinator routes every key itself.
  f.Add({.name = "zunionstore",
         .arity = -4,
         .flags = kW,
         .keys = {1, 1, 1},
         .on_coord = ZUnionStore,
         .numkeys_index = 2});
  f.Add({.name = "zinterstore",
         .arity = -4,
         .flags = kW,
         .keys = {1, 1, 1},
         .on_coord = ZInterStore,
         .numkeys_index = 2});
  f.Add({.name = "zdiffstore",
         .arity = -4,
         .flags = kW,
         .keys = {1, 1, 1},
         .on_coord = ZDiffStore,
         .numkeys_index = 2});
  f.Add({.name = "zunion",
         .arity = -3,
         .flags = kCmdReadOnly,
         .on_coord = ZUnion,
         .numkeys_index = 1});
  f.Add({.name = "zinter",
         .arity = -3,
         .flags = kCmdReadOnly,
         .on_coord = ZInter,
         .numkeys_index = 1});
  f.Add(
      {.name = "zdiff", .arity = -3, .flags = kCmdReadOnly, .on_coord = ZDiff, .numkeys_index = 1});
  f.Add({.name = "zintercard",
         .arity = -3,
         .flags = kCmdReadOnly,
         .on_coord = ZInterCard,
         .numkeys_index = 1});
}

}  // namespace rc
