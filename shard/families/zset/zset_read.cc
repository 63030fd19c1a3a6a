// Sorted-set reads on one key: ZSCORE, ZMSCORE, ZCARD, ZCOUNT, ZLEXCOUNT, ZRANK, ZREVRANK,
// ZRANDMEMBER and ZSCAN. Argument errors come before the key lookup where Redis 7.0 puts
// them there (ranges, ZRANDMEMBER's count), after it where Redis does (ZSCAN's options).

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/random/distributions.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/arg_parser.h"
#include "shard/command/errors.h"
#include "shard/command/value_scan.h"
#include "shard/command/typed_lookup.h"
#include "shard/families/zset/zset_args.h"
#include "shard/runtime/shard.h"

namespace rc {

namespace {

void ZScore(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kZSet, Access::kRead, cmd.reply, &e)) return;
  std::optional<double> s;
  if (e != nullptr) s = e->object<ZSet>()->Score(cmd.args[2]);
  if (!s) return cmd.reply.NullBulk();
  ReplyScore(cmd.reply, *s);
}

void ZMScore(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kZSet, Access::kRead, cmd.reply, &e)) return;
  cmd.reply.ArrayLen(cmd.args.size() - 2);
  for (size_t i = 2; i < cmd.args.size(); ++i) {
    std::optional<double> s;
    if (e != nullptr) s = e->object<ZSet>()->Score(cmd.args[i]);
    if (s) {
      ReplyScore(cmd.reply, *s);
    } else {
      cmd.reply.NullBulk();
    }
  }
}

void ZCard(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kZSet, Access::kRead, cmd.reply, &e)) return;
  cmd.reply.Integer(e == nullptr ? 0 : int64_t(e->object<ZSet>()->size()));
}

void ZCount(ShardCmd& cmd) {
  ScoreBound lo, hi;
  if (!ParseScoreBound(cmd.args[2], &lo) || !ParseScoreBound(cmd.args[3], &hi)) {
    return cmd.reply.Error(zerr::kScoreRange);
  }
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kZSet, Access::kRead, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.Integer(0);
  size_t b = e->object<ZSet>()->ScoreRank(lo), en = e->object<ZSet>()->ScoreRankEnd(hi);
  cmd.reply.Integer(en > b ? int64_t(en - b) : 0);
}

void ZLexCount(ShardCmd& cmd) {
  LexBound lo, hi;
  if (!ParseLexBound(cmd.args[2], &lo) || !ParseLexBound(cmd.args[3], &hi)) {
    return cmd.reply.Error(zerr::kLexRange);
  }
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kZSet, Access::kRead, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.Integer(0);
  size_t b = e->object<ZSet>()->LexRank(lo), en = e->object<ZSet>()->LexRankEnd(hi);
  cmd.reply.Integer(en > b ? int64_t(en - b) : 0);
}

// ZRANK / ZREVRANK key member (Redis 7.0: no WITHSCORE).
template <bool kRev>
void ZRank(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kZSet, Access::kRead, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.NullBulk();
  std::optional<size_t> r = e->object<ZSet>()->Rank(cmd.args[2]);
  if (!r) return cmd.reply.NullBulk();
  cmd.reply.Integer(int64_t(kRev ? e->object<ZSet>()->size() - 1 - *r : *r));
}

void ReplyMember(ReplyBuilder& reply, const ZSet& z, size_t rank, bool withscores) {
  ZSet::Iterator it = z.AtRank(rank);
  ReplyScored(reply, it.member(), it.score(), withscores);
}

// ZRANDMEMBER key [count [WITHSCORES]]: a negative count may repeat members; a positive
// one returns distinct members, the whole set (descending) when count >= size.
void ZRandMember(ShardCmd& cmd) {
  const size_t argc = cmd.args.size();
  if (argc == 2) {
    Entry* e;
    if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kZSet, Access::kRead, cmd.reply, &e)) return;
    if (e == nullptr) return cmd.reply.NullBulk();
    const ZSet& z = *e->object<ZSet>();
    return ReplyMember(cmd.reply, z, absl::Uniform<size_t>(cmd.shard.rng(), 0, z.size()), false);
  }
  ArgParser p(cmd.args, 2);
  const int64_t l = p.NextInRange(-INT64_MAX, INT64_MAX);
  const bool withscores = p.Flag("WITHSCORES");
  if (!p.Finish()) return cmd.reply.Error(p.error());
  if (withscores && (l < -(INT64_MAX / 2) || l > INT64_MAX / 2)) {
    return cmd.reply.Error("ERR value is out of range");
  }
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kZSet, Access::kRead, cmd.reply, &e)) return;
  if (e == nullptr || l == 0) return cmd.reply.ArrayLen(0);
  const ZSet& z = *e->object<ZSet>();
  const size_t size = z.size();
  const bool uniq = l > 0;
  const uint64_t count = uniq ? uint64_t(l) : uint64_t(-l);
  auto& rng = cmd.shard.rng();
  if (!uniq || count == 1) {
    ScoredLen(cmd.reply, count, withscores);
    for (uint64_t i = 0; i < count; ++i) {
      ReplyMember(cmd.reply, z, absl::Uniform<size_t>(rng, 0, size), withscores);
    }
    return;
  }
  if (count >= size) {
    // The whole set, highest rank first, as Redis 7.0 sends it.
    ScoredLen(cmd.reply, size, withscores);
    Walk(z, RankWalk{size - 1, size, true},
         [&](std::string_view m, double s) { ReplyScored(cmd.reply, m, s, withscores); });
    return;
  }
  // Distinct ranks. Near the set's size, a partial Fisher-Yates shuffle over every rank;
  // else random draws deduplicated, so a few members of a huge set cost O(count).
  std::vector<size_t> ranks;
  if (count * 3 > size) {
    ranks.resize(size);
    for (size_t i = 0; i < size; ++i) ranks[i] = i;
    for (size_t i = 0; i < count; ++i) {
      std::swap(ranks[i], ranks[absl::Uniform<size_t>(rng, i, size)]);
    }
    ranks.resize(count);
  } else {
    absl::flat_hash_set<size_t> picked;
    while (ranks.size() < count) {
      size_t r = absl::Uniform<size_t>(rng, 0, size);
      if (picked.insert(r).second) ranks.push_back(r);
    }
  }
  ScoredLen(cmd.reply, count, withscores);
  for (size_t i = 0; i < count; ++i) ReplyMember(cmd.reply, z, ranks[i], withscores);
}

void ZScan(ShardCmd& cmd) {
  ScanValue<ZSet>(cmd, [](const ZSet& z, uint64_t cursor, size_t count, ScanPage& page) {
    // Redis returns a listpack whole, in order, with cursor 0.
    if (z.compact()) {
      Walk(z, RankWalk{0, z.size(), false},
           [&](std::string_view m, double s) { page.Add(m, ListpackScore(s)); });
      return uint64_t{0};
    }
    return z.Scan(cursor, count, [&](std::string_view m, double s) { page.Add(m, FormatDouble(s)); });
  });
}

}  // namespace

void RegisterZSetReadCommands(CommandTable& t) {
  const uint32_t kR = kCmdReadOnly;
  CommandTable::Family f = t.StartFamily("@sortedset");
  f.Add({.name = "zscore",
         .arity = 3,
         .flags = kR | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = ZScore});
  f.Add({.name = "zmscore",
         .arity = -3,
         .flags = kR | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = ZMScore});
  f.Add(
      {.name = "zcard", .arity = 2, .flags = kR | kCmdFast, .keys = {1, 1, 1}, .on_shard = ZCard});
  f.Add({.name = "zcount",
         .arity = 4,
         .flags = kR | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = ZCount});
  f.Add({.name = "zlexcount",
         .arity = 4,
         .flags = kR | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = ZLexCount});
  f.Add({.name = "zrank",
         .arity = 3,
         .flags = kR | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = ZRank<false>});
  f.Add({.name = "zrevrank",
         .arity = 3,
         .flags = kR | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = ZRank<true>});
  f.Add({.name = "zrandmember",
         .arity = -2,
         .flags = kR,
         .keys = {1, 1, 1},
         .on_shard = ZRandMember});
  f.Add({.name = "zscan", .arity = -3, .flags = kR, .keys = {1, 1, 1}, .on_shard = ZScan});
}

}  // namespace rc
