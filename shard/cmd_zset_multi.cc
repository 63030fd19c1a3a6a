// Sorted-set commands over several keys, which may live on different shards:
// ZRANGESTORE, ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE, ZUNION, ZINTER, ZDIFF, ZINTERCARD.
//
// They run on the connection's thread (ZRANGESTORE with both keys on one shard runs there
// inline) and are atomic across shards like MSETNX and RENAME (multi_shard.h):
//
//   lock every key, shard by shard ─▶ step 1 on each shard: copy the sources out
//   (a non-STORE command releases here) ─▶ combine on the connection's thread
//   ─▶ step 2 on each shard: the destination's shard stores the result; all release
//   ─▶ reply
//
// Copies are taken because a shard's data never leaves its thread (STYLE.md).

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "shard/errors.h"
#include "shard/fanout.h"
#include "shard/key_groups.h"
#include "shard/multi_shard.h"
#include "shard/shard.h"
#include "shard/zset_args.h"

namespace rc {

namespace {

// One source key as its shard saw it under the locks.
struct SourceRead {
  bool wrongtype = false;
  bool exists = false;
  ScoredMembers members;
};

// What to keep of a source set (runs on the source's shard; must be thread-safe).
using Extract = std::function<ScoredMembers(const ZSet&)>;

// The combined members (the reply or the value to store), or an error reply.
struct Outcome {
  std::string error;
  ScoredMembers members;
  bool withscores = false;
  int64_t cardinality = -1;  // ZINTERCARD: reply this integer instead
  bool incremental = false;  // how to build the stored set (BuildZSet)
  int64_t known_length = -1;
};
using Combine = std::function<Outcome(std::vector<SourceRead>&)>;

// Locks `keys` (keys[0] is the destination when `store`), reads the sources through
// `extract`, combines them on this thread, stores the result under keys[0] when `store`
// (an empty result deletes it) and replies: the count stored, or the members.
void ReadCombineStore(CoordCmd& cmd, const std::vector<std::string_view>& keys, bool store,
                      Extract extract, Combine combine) {
  auto groups = std::make_shared<const KeyGroups>(
      GroupKeys(cmd.shards, ArgList(keys.data(), keys.size()), 0, 1));
  auto locks = LockKeys(groups, 1);
  auto ex = std::make_shared<const Extract>(std::move(extract));
  auto comb = std::make_shared<const Combine>(std::move(combine));
  const size_t first_source = store ? 1 : 0;
  DeferredReply out(cmd);
  ShardThread* self = &cmd.self;
  ShardSet* shards = &cmd.shards;
  AcquireThen(cmd, locks, [=] {
    FanOut<std::vector<SourceRead>>(
        *self, *shards, groups->shards,
        [=](Shard& shard, size_t gi) {
          const auto& items = groups->items[gi];
          std::vector<SourceRead> reads(items.size());
          for (size_t k = 0; k < items.size(); ++k) {
            if (items[k] < first_source) continue;
            Entry* e = shard.FindForRead(groups->args[gi][k]);
            if (e == nullptr) continue;
            if (e->type() != ValueType::kZSet) {
              reads[k].wrongtype = true;
              continue;
            }
            reads[k].exists = true;
            reads[k].members = (*ex)(*e->zset());
          }
          if (!store) ReleaseOn(shard, *locks, gi);
          return reads;
        },
        [=](std::vector<std::vector<SourceRead>>& parts) {
          std::vector<SourceRead> sources(groups->item_count - first_source);
          for (size_t gi = 0; gi < parts.size(); ++gi) {
            for (size_t k = 0; k < parts[gi].size(); ++k) {
              size_t item = groups->items[gi][k];
              if (item >= first_source) sources[item - first_source] = std::move(parts[gi][k]);
            }
          }
          auto outcome = std::make_shared<const Outcome>((*comb)(sources));
          if (!store) {
            return out.Send([&](ReplyBuilder& rb) {
              if (!outcome->error.empty()) return rb.Error(outcome->error);
              if (outcome->cardinality >= 0) return rb.Integer(outcome->cardinality);
              rb.ArrayLen(outcome->members.size() * (outcome->withscores ? 2 : 1));
              for (const auto& [m, s] : outcome->members) {
                rb.Bulk(m);
                if (outcome->withscores) ReplyScore(rb, s);
              }
            });
          }
          FanOut<bool>(
              *self, *shards, groups->shards,
              [=](Shard& shard, size_t gi) {
                // Items are in argument order within a group: item 0 leads its group.
                if (outcome->error.empty() && groups->items[gi][0] == 0) {
                  shard.StoreZSet(groups->args[gi][0],
                                  BuildZSet(outcome->members, outcome->incremental,
                                            outcome->known_length));
                }
                ReleaseOn(shard, *locks, gi);
                return true;
              },
              [out, outcome](std::vector<bool>&) {
                out.Send([&](ReplyBuilder& rb) {
                  if (!outcome->error.empty()) return rb.Error(outcome->error);
                  rb.Integer(int64_t(outcome->members.size()));
                });
              });
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
  if (!FindZSet(cmd.shard, cmd.args[2], cmd.reply, &e, true)) return;
  ScoredMembers members;
  if (e != nullptr) members = CopyRange(*e->zset(), PlanRange(*e->zset(), q));
  cmd.shard.StoreZSet(cmd.args[1], BuildZSet(members, true, KnownLength(q, members)));
  cmd.reply.Integer(int64_t(members.size()));
}

// The two keys are on different shards.
void ZRangeStoreCoord(CoordCmd& cmd) {
  // The query keeps views into `owned`, which lives as long as the extract function.
  auto owned = std::make_shared<const std::vector<std::string>>(cmd.args.begin(),
                                                                cmd.args.end());
  std::vector<std::string_view> views(owned->begin(), owned->end());
  auto q = std::make_shared<RangeQuery>();
  std::string error;
  if (!ParseRangeQuery(ArgList(views.data(), views.size()), 2, true, q.get(), &error)) {
    return cmd.reply.Error(error);
  }
  std::shared_ptr<const RangeQuery> query = std::move(q);
  ReadCombineStore(
      cmd, {views[1], views[2]}, true,
      [owned, query](const ZSet& z) { return CopyRange(z, PlanRange(z, *query)); },
      [query](std::vector<SourceRead>& src) {
        Outcome o;
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

enum class SetOpKind { kUnion, kInter, kDiff };
enum class Aggregate { kSum, kMin, kMax };

struct SetOp {
  SetOpKind kind = SetOpKind::kUnion;
  std::vector<double> weights;
  Aggregate aggregate = Aggregate::kSum;
  bool withscores = false;
  bool cardinality_only = false;  // ZINTERCARD
  int64_t limit = 0;              // ZINTERCARD's LIMIT; 0: none
  std::string option_error;  // reported after the sources' type check, as Redis does
};

// Redis zunionInterAggregate: a NaN sum (inf + -inf) becomes 0.
void AggregateInto(double* target, double val, Aggregate agg) {
  switch (agg) {
    case Aggregate::kSum:
      *target += val;
      if (std::isnan(*target)) *target = 0.0;
      break;
    case Aggregate::kMin:
      *target = val < *target ? val : *target;
      break;
    case Aggregate::kMax:
      *target = val > *target ? val : *target;
      break;
  }
}

void SortByScore(ScoredMembers* m) {
  std::sort(m->begin(), m->end(), [](const auto& a, const auto& b) {
    return a.second < b.second || (a.second == b.second && a.first < b.first);
  });
}

Outcome RunSetOp(const SetOp& op, std::vector<SourceRead>& src) {
  Outcome o;
  o.withscores = op.withscores;
  for (const auto& s : src) {
    if (s.wrongtype) {
      o.error = std::string(err::kWrongType);
      return o;
    }
  }
  if (!op.option_error.empty()) {
    o.error = op.option_error;
    return o;
  }
  const size_t n = src.size();
  // Redis visits the inputs smallest first (qsort over sizes; glibc's is a stable merge
  // sort), which decides the order scores are summed in. ZDIFF keeps the first one first.
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (op.kind != SetOpKind::kDiff) {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return src[a].members.size() < src[b].members.size();
    });
  }
  auto weight = [&](size_t i) { return op.weights.empty() ? 1.0 : op.weights[i]; };
  using Index = absl::flat_hash_map<std::string_view, double>;
  auto index_of = [](const SourceRead& s) {
    Index idx;
    idx.reserve(s.members.size());
    for (const auto& [m, sc] : s.members) idx.emplace(m, sc);
    return idx;
  };
  if (op.kind == SetOpKind::kUnion) {
    Index acc;
    std::vector<std::string_view> first_seen;
    for (size_t i : order) {
      const double w = weight(i);
      for (const auto& [m, s] : src[i].members) {
        double score = w * s;
        if (std::isnan(score)) score = 0;
        auto [it, fresh] = acc.try_emplace(m, score);
        if (fresh) {
          first_seen.push_back(m);
        } else {
          AggregateInto(&it->second, score, op.aggregate);
        }
      }
    }
    o.members.reserve(first_seen.size());
    for (std::string_view m : first_seen) o.members.emplace_back(std::string(m), acc[m]);
  } else if (op.kind == SetOpKind::kInter) {
    const SourceRead& base = src[order[0]];
    std::vector<Index> others;
    if (!base.members.empty()) {
      for (size_t j = 1; j < n; ++j) others.push_back(index_of(src[order[j]]));
    }
    const double w0 = weight(order[0]);
    for (const auto& [m, s] : base.members) {
      double score = w0 * s;
      if (std::isnan(score)) score = 0;
      bool all = true;
      for (size_t j = 1; j < n && all; ++j) {
        auto it = others[j - 1].find(m);
        if (it == others[j - 1].end()) {
          all = false;
        } else {
          AggregateInto(&score, it->second * weight(order[j]), op.aggregate);
        }
      }
      if (!all) continue;
      o.members.emplace_back(m, score);
      if (op.cardinality_only && op.limit > 0 && int64_t(o.members.size()) >= op.limit) break;
    }
    if (op.cardinality_only) {
      o.cardinality = int64_t(o.members.size());
      o.members.clear();
      return o;
    }
  } else {
    std::vector<Index> others;
    for (size_t j = 1; j < n; ++j) others.push_back(index_of(src[j]));
    for (const auto& [m, s] : src[0].members) {
      bool found = false;
      for (const auto& idx : others) found = found || idx.contains(m);
      if (!found) o.members.emplace_back(m, s);
    }
  }
  SortByScore(&o.members);
  return o;
}

// Redis zunionInterDiffGenericCommand's option loop.
void ParseSetOpOptions(ArgList args, size_t j, size_t setnum, bool store, SetOp* op) {
  while (j < args.size()) {
    const size_t remaining = args.size() - j;
    std::string_view opt = args[j];
    const bool card = op->cardinality_only;
    if (op->kind != SetOpKind::kDiff && !card && remaining >= setnum + 1 &&
        EqualsIgnoreCase(opt, "weights")) {
      ++j;
      op->weights.assign(setnum, 1.0);
      for (size_t i = 0; i < setnum; ++i, ++j) {
        if (!ParseDouble(args[j], &op->weights[i])) {
          op->option_error = "ERR weight value is not a float";
          return;
        }
      }
    } else if (op->kind != SetOpKind::kDiff && !card && remaining >= 2 &&
               EqualsIgnoreCase(opt, "aggregate")) {
      std::string_view a = args[j + 1];
      if (EqualsIgnoreCase(a, "sum")) {
        op->aggregate = Aggregate::kSum;
      } else if (EqualsIgnoreCase(a, "min")) {
        op->aggregate = Aggregate::kMin;
      } else if (EqualsIgnoreCase(a, "max")) {
        op->aggregate = Aggregate::kMax;
      } else {
        op->option_error = std::string(err::kSyntax);
        return;
      }
      j += 2;
    } else if (!store && !card && EqualsIgnoreCase(opt, "withscores")) {
      op->withscores = true;
      ++j;
    } else if (card && remaining >= 2 && EqualsIgnoreCase(opt, "limit")) {
      if (!ParseInt64(args[j + 1], &op->limit) || op->limit < 0) {
        op->option_error = "ERR LIMIT can't be negative";
        return;
      }
      j += 2;
    } else {
      op->option_error = std::string(err::kSyntax);
      return;
    }
  }
}

void SetOpGeneric(CoordCmd& cmd, SetOpKind kind, bool store, bool cardinality_only = false) {
  const size_t numkeys_idx = store ? 2 : 1;
  int64_t setnum;
  if (!ParseInt64(cmd.args[numkeys_idx], &setnum)) return cmd.reply.Error(err::kNotInteger);
  if (setnum < 1) {
    return cmd.reply.Error(StrCat("ERR at least 1 input key is needed for '",
                                  ToLower(cmd.args[0]), "' command"));
  }
  if (setnum > int64_t(cmd.args.size() - (numkeys_idx + 1))) {
    return cmd.reply.Error(err::kSyntax);
  }
  auto op = std::make_shared<SetOp>();
  op->kind = kind;
  op->cardinality_only = cardinality_only;
  ParseSetOpOptions(cmd.args, numkeys_idx + 1 + size_t(setnum), size_t(setnum), store, op.get());
  std::vector<std::string_view> keys;
  if (store) keys.push_back(cmd.args[1]);
  for (int64_t i = 0; i < setnum; ++i) keys.push_back(cmd.args[numkeys_idx + 1 + size_t(i)]);
  std::shared_ptr<const SetOp> shared_op = std::move(op);
  ReadCombineStore(
      cmd, keys, store,
      [](const ZSet& z) { return CopyRange(z, RankWalk{0, z.size(), false}); },
      [shared_op](std::vector<SourceRead>& src) { return RunSetOp(*shared_op, src); });
}

void ZUnionStore(CoordCmd& cmd) { SetOpGeneric(cmd, SetOpKind::kUnion, true); }
void ZInterStore(CoordCmd& cmd) { SetOpGeneric(cmd, SetOpKind::kInter, true); }
void ZDiffStore(CoordCmd& cmd) { SetOpGeneric(cmd, SetOpKind::kDiff, true); }
void ZUnion(CoordCmd& cmd) { SetOpGeneric(cmd, SetOpKind::kUnion, false); }
void ZInter(CoordCmd& cmd) { SetOpGeneric(cmd, SetOpKind::kInter, false); }
void ZDiff(CoordCmd& cmd) { SetOpGeneric(cmd, SetOpKind::kDiff, false); }
void ZInterCard(CoordCmd& cmd) { SetOpGeneric(cmd, SetOpKind::kInter, false, true); }

}  // namespace

void RegisterZSetMultiCommands(CommandTable& t) {
  auto row = [&t](std::string name, int arity, uint32_t flags, int first, int last,
                  ShardHandler on_shard, CoordHandler on_coord) {
    t.Add(CommandSpec{std::move(name), arity, flags, first, last, first > 0 ? 1 : 0, on_shard,
                      on_coord, {"@sortedset"}});
  };
  const uint32_t kW = kCmdWrite | kCmdDenyOom;
  row("zrangestore", -5, kW, 1, 2, ZRangeStore, ZRangeStoreCoord);
  // The STORE forms' sources follow numkeys: COMMAND shows Redis's legacy triple (the
  // destination only), and the coordinator routes every key itself.
  row("zunionstore", -4, kW, 1, 1, nullptr, ZUnionStore);
  row("zinterstore", -4, kW, 1, 1, nullptr, ZInterStore);
  row("zdiffstore", -4, kW, 1, 1, nullptr, ZDiffStore);
  row("zunion", -3, kCmdReadOnly, 0, 0, nullptr, ZUnion);
  row("zinter", -3, kCmdReadOnly, 0, 0, nullptr, ZInter);
  row("zdiff", -3, kCmdReadOnly, 0, 0, nullptr, ZDiff);
  row("zintercard", -3, kCmdReadOnly, 0, 0, nullptr, ZInterCard);
}

}  // namespace rc
