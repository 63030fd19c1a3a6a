// Sorted-set writes on one key: ZADD (NX XX GT LT CH INCR), ZINCRBY, ZREM,
// ZREMRANGEBYRANK/SCORE/LEX, ZPOPMIN, ZPOPMAX. Each validates every argument before it
// changes anything (Redis zaddGenericCommand), and reports the change to the shard
// (ValueUpdate), which accounts the memory and deletes a set left empty.

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/arg_parser.h"
#include "shard/command/errors.h"
#include "shard/command/typed_lookup.h"
#include "shard/families/zset/zset_args.h"
#include "shard/runtime/shard.h"

namespace rc {

namespace {

struct ZAddFlags {
  bool nx = false, xx = false, gt = false, lt = false, ch = false, incr = false;
};

// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...], and ZINCRBY key
// increment member (ZADD INCR with the options loop starting at the increment, as Redis).
void ZAddGeneric(ShardCmd& cmd, bool incr) {
  ZAddFlags f;
  f.incr = incr;
  // The flags run up to the first argument that is none of them; their combinations are
  // checked after the element count, as Redis does.
  ArgParser p(cmd.args, 2);
  using Field = bool ZAddFlags::*;
  while (std::optional<Field> flag = p.Choice<Field>({{"NX", &ZAddFlags::nx},
                                                      {"XX", &ZAddFlags::xx},
                                                      {"CH", &ZAddFlags::ch},
                                                      {"INCR", &ZAddFlags::incr},
                                                      {"GT", &ZAddFlags::gt},
                                                      {"LT", &ZAddFlags::lt}})) {
    f.*(*flag) = true;
  }
  const size_t idx = p.pos();
  size_t elements = p.Remaining();
  if (elements == 0 || elements % 2 != 0) return cmd.reply.Error(err::kSyntax);
  elements /= 2;
  if (f.nx && f.xx) {
    return cmd.reply.Error("ERR XX and NX options at the same time are not compatible");
  }
  if ((f.gt && f.nx) || (f.lt && f.nx) || (f.gt && f.lt)) {
    return cmd.reply.Error("ERR GT, LT, and/or NX options at the same time are not compatible");
  }
  if (f.incr && elements > 1) {
    return cmd.reply.Error("ERR INCR option supports a single increment-element pair");
  }
  std::vector<double> scores(elements);
  for (size_t j = 0; j < elements; ++j) {
    if (!ParseDouble(cmd.args[idx + 2 * j], &scores[j])) return cmd.reply.Error(err::kNotFloat);
  }
  Shard& shard = cmd.shard;
  Entry* e;
  if (!FindTyped(shard, cmd.args[1], ValueType::kZSet, Access::kWrite, cmd.reply, &e)) return;
  int64_t added = 0, updated = 0, processed = 0;
  double newscore = 0;
  if (e == nullptr && !f.xx) e = shard.Add(cmd.args[1], Value::Make<ZSet>());
  if (e != nullptr) {
    const ZSet::Limits limits = ZSetLimits(cmd.server);
    ValueUpdate update(shard, e);
    ZSet* z = &update.get<ZSet>();
    bool nan = false;
    for (size_t j = 0; j < elements && !nan; ++j) {
      double score = scores[j];
      std::string_view member = cmd.args[idx + 2 * j + 1];
      std::optional<double> cur = z->Score(member);
      if (cur) {
        if (f.nx) continue;
        if (f.incr) {
          score += *cur;
          if (std::isnan(score)) {
            nan = true;
            break;
          }
        }
        if ((f.lt && score >= *cur) || (f.gt && score <= *cur)) continue;
        newscore = score;
        if (score != *cur) {
          z->Add(member, ScoreToStore(*z, limits, member, score), limits);
          ++updated;
        }
        ++processed;
      } else if (!f.xx) {
        z->Add(member, ScoreToStore(*z, limits, member, score), limits);
        newscore = score;
        ++added;
        ++processed;
      }
    }
    // Like Redis, a ZADD that changed nothing is no write (WATCH does not fire).
    if (added + updated == 0) update.NothingChanged();
    if (nan) return cmd.reply.Error(zerr::kNanScore);
  }
  if (!f.incr) {
    cmd.reply.Integer(f.ch ? added + updated : added);
  } else if (processed > 0) {
    ReplyScore(cmd.reply, newscore);
  } else {
    cmd.reply.NullBulk();
  }
  // After the reply, as Redis raises it.
  if (added + updated > 0) shard.Notify(kNotifyZset, f.incr ? "zincr" : "zadd", cmd.args[1]);
}

void ZAdd(ShardCmd& cmd) { ZAddGeneric(cmd, false); }
void ZIncrBy(ShardCmd& cmd) { ZAddGeneric(cmd, true); }

void ZRem(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kZSet, Access::kWrite, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.Integer(0);
  int64_t removed = 0;
  bool exists;
  {
    ValueUpdate update(cmd.shard, e);
    ZSet& z = update.get<ZSet>();
    for (size_t i = 2; i < cmd.args.size(); ++i) removed += z.Remove(cmd.args[i]) ? 1 : 0;
    if (removed == 0) update.NothingChanged();
    exists = update.Finish();
  }
  if (removed > 0) cmd.shard.NotifyRemoved(kNotifyZset, "zrem", cmd.args[1], !exists);
  cmd.reply.Integer(removed);
}

enum class RemBy { kRank, kScore, kLex };

// Removes the members of a rank walk (copied first: removal invalidates iterators), with
// Redis's events; returns how many.
template <RemBy kBy>
int64_t RemoveWalk(Shard& shard, std::string_view key, Entry* e, const RankWalk& w) {
  std::vector<std::string> doomed;
  bool exists;
  {
    ValueUpdate update(shard, e);
    ZSet& z = update.get<ZSet>();
    doomed.reserve(w.count);
    Walk(z, w, [&](std::string_view m, double) { doomed.emplace_back(m); });
    for (const auto& m : doomed) z.Remove(m);
    exists = update.Finish();
  }
  constexpr std::string_view kEvent = kBy == RemBy::kRank    ? "zremrangebyrank"
                                      : kBy == RemBy::kScore ? "zremrangebyscore"
                                                             : "zremrangebylex";
  shard.NotifyRemoved(kNotifyZset, kEvent, key, !exists);
  return int64_t(doomed.size());
}

template <RemBy kBy>
void ZRemRange(ShardCmd& cmd) {
  int64_t start = 0, end = 0;
  ScoreBound smin, smax;
  LexBound lmin, lmax;
  if constexpr (kBy == RemBy::kRank) {
    if (!ParseInt64(cmd.args[2], &start) || !ParseInt64(cmd.args[3], &end)) {
      return cmd.reply.Error(err::kNotInteger);
    }
  } else if constexpr (kBy == RemBy::kScore) {
    if (!ParseScoreBound(cmd.args[2], &smin) || !ParseScoreBound(cmd.args[3], &smax)) {
      return cmd.reply.Error(zerr::kScoreRange);
    }
  } else {
    if (!ParseLexBound(cmd.args[2], &lmin) || !ParseLexBound(cmd.args[3], &lmax)) {
      return cmd.reply.Error(zerr::kLexRange);
    }
  }
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kZSet, Access::kWrite, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.Integer(0);
  const ZSet& z = *e->object<ZSet>();
  RankWalk w;
  if constexpr (kBy == RemBy::kRank) {
    size_t first, last;
    if (!ClampRanks(start, end, z.size(), &first, &last)) return cmd.reply.Integer(0);
    w.first = first;
    w.count = last - first + 1;
  } else {
    size_t b = kBy == RemBy::kScore ? z.ScoreRank(smin) : z.LexRank(lmin);
    size_t en = kBy == RemBy::kScore ? z.ScoreRankEnd(smax) : z.LexRankEnd(lmax);
    if (en <= b) return cmd.reply.Integer(0);
    w.first = b;
    w.count = en - b;
  }
  cmd.reply.Integer(RemoveWalk<kBy>(cmd.shard, cmd.args[1], e, w));
}

// Replies with the `count` lowest (highest: `max`) members of `z` and removes them.
void PopInto(ShardCmd& cmd, ZSet& z, size_t count, bool max) {
  const size_t n = std::min(count, z.size());
  // RESP3 pairs member and score when a count was given, as Redis 7.0 does.
  const bool pairs = cmd.args.size() == 3;
  if (pairs) {
    ScoredLen(cmd.reply, n, true);
  } else {
    cmd.reply.ArrayLen(2 * n);
  }
  for (size_t i = 0; i < n; ++i) {
    ZSet::Iterator it = z.AtRank(max ? z.size() - 1 : 0);
    std::string member(it.member());
    double score = it.score();
    if (pairs) {
      ReplyScored(cmd.reply, member, score, true);
    } else {
      cmd.reply.Bulk(member);
      ReplyScore(cmd.reply, score);
    }
    z.Remove(member);
  }
}

// ZPOPMIN / ZPOPMAX key [count]: a flat [member, score, ...] array in RESP2.
template <bool kMax>
void ZPop(ShardCmd& cmd) {
  if (cmd.args.size() > 3) return cmd.reply.Error(err::kSyntax);
  int64_t count = 1;
  if (cmd.args.size() == 3 && (!ParseInt64(cmd.args[2], &count) || count < 0)) {
    return cmd.reply.Error(zerr::kPositive);
  }
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kZSet, Access::kWrite, cmd.reply, &e)) return;
  if (e == nullptr || count == 0) return cmd.reply.ArrayLen(0);
  bool exists;
  {
    ValueUpdate update(cmd.shard, e);
    PopInto(cmd, update.get<ZSet>(), size_t(count), kMax);
    exists = update.Finish();
  }
  // After the whole reply: Redis 7.0 raises the event in the middle of its array.
  cmd.shard.NotifyRemoved(kNotifyZset, kMax ? "zpopmax" : "zpopmin", cmd.args[1], !exists);
}

}  // namespace

void RegisterZSetReadCommands(CommandTable& t);
void RegisterZSetRangeCommands(CommandTable& t);
void RegisterZSetMultiCommands(CommandTable& t);

void RegisterZSetCommands(CommandTable& t) {
  const uint32_t kW = kCmdWrite;
  CommandTable::Family f = t.StartFamily("@sortedset");
  f.Add({.name = "zadd",
         .arity = -4,
         .flags = kW | kCmdDenyOom | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = ZAdd});
  f.Add({.name = "zincrby",
         .arity = 4,
         .flags = kW | kCmdDenyOom | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = ZIncrBy});
  f.Add({.name = "zrem", .arity = -3, .flags = kW | kCmdFast, .keys = {1, 1, 1}, .on_shard = ZRem});
  f.Add({.name = "zremrangebyrank",
         .arity = 4,
         .flags = kW,
         .keys = {1, 1, 1},
         .on_shard = ZRemRange<RemBy::kRank>});
  f.Add({.name = "zremrangebyscore",
         .arity = 4,
         .flags = kW,
         .keys = {1, 1, 1},
         .on_shard = ZRemRange<RemBy::kScore>});
  f.Add({.name = "zremrangebylex",
         .arity = 4,
         .flags = kW,
         .keys = {1, 1, 1},
         .on_shard = ZRemRange<RemBy::kLex>});
  f.Add({.name = "zpopmin",
         .arity = -2,
         .flags = kW | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = ZPop<false>});
  f.Add({.name = "zpopmax",
         .arity = -2,
         .flags = kW | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = ZPop<true>});
  RegisterZSetReadCommands(t);
  RegisterZSetRangeCommands(t);
  RegisterZSetMultiCommands(t);
}

}  // namespace rc
