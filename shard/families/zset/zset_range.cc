// ZRANGE and its older spellings: ZREVRANGE, ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX,
// ZREVRANGEBYLEX. All go through Redis 7.0's zrangeGenericCommand grammar
// (ParseRangeQuery): the fixed spellings refuse REV / BYSCORE / BYLEX as syntax errors.
// ZRANGESTORE, which may span two shards, is in zset_multi.cc.

#include <string>

#include "shard/command/typed_lookup.h"
#include "shard/families/zset/zset_args.h"
#include "shard/runtime/shard.h"

namespace rc {

namespace {

void ZRangeGeneric(ShardCmd& cmd, RangeQuery::Type type, bool rev, bool fixed_dir) {
  RangeQuery q;
  q.type = type;
  q.rev = rev;
  q.rev_fixed = fixed_dir;
  std::string error;
  if (!ParseRangeQuery(cmd.args, 1, false, &q, &error)) return cmd.reply.Error(error);
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kZSet, Access::kRead, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.ArrayLen(0);
  const ZSet& z = *e->object<ZSet>();
  RankWalk w = PlanRange(z, q);
  ScoredLen(cmd.reply, w.count, q.withscores);
  Walk(z, w, [&](std::string_view m, double s) { ReplyScored(cmd.reply, m, s, q.withscores); });
}

void ZRange(ShardCmd& cmd) { ZRangeGeneric(cmd, RangeQuery::Type::kAuto, false, false); }
void ZRevRange(ShardCmd& cmd) { ZRangeGeneric(cmd, RangeQuery::Type::kRank, true, true); }
void ZRangeByScore(ShardCmd& cmd) { ZRangeGeneric(cmd, RangeQuery::Type::kScore, false, true); }
void ZRevRangeByScore(ShardCmd& cmd) { ZRangeGeneric(cmd, RangeQuery::Type::kScore, true, true); }
void ZRangeByLex(ShardCmd& cmd) { ZRangeGeneric(cmd, RangeQuery::Type::kLex, false, true); }
void ZRevRangeByLex(ShardCmd& cmd) { ZRangeGeneric(cmd, RangeQuery::Type::kLex, true, true); }

}  // namespace

void RegisterZSetRangeCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@sortedset");
  f.Add({.name = "zrange",
         .arity = -4,
         .flags = kCmdReadOnly,
         .keys = {1, 1, 1},
         .on_shard = ZRange});
  f.Add({.name = "zrevrange",
         .arity = -4,
         .flags = kCmdReadOnly,
         .keys = {1, 1, 1},
         .on_shard = ZRevRange});
  f.Add({.name = "zrangebyscore",
         .arity = -4,
         .flags = kCmdReadOnly,
         .keys = {1, 1, 1},
         .on_shard = ZRangeByScore});
  f.Add({.name = "zrevrangebyscore",
         .arity = -4,
         .flags = kCmdReadOnly,
         .keys = {1, 1, 1},
         .on_shard = ZRevRangeByScore});
  f.Add({.name = "zrangebylex",
         .arity = -4,
         .flags = kCmdReadOnly,
         .keys = {1, 1, 1},
         .on_shard = ZRangeByLex});
  f.Add({.name = "zrevrangebylex",
         .arity = -4,
         .flags = kCmdReadOnly,
         .keys = {1, 1, 1},
         .on_shard = ZRevRangeByLex});
}

}  // namespace rc
