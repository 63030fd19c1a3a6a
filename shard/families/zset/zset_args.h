#pragma once
// What the sorted-set command families share: Redis 7.0's range parsing (score bounds with
// `(`, lex bounds with `[`/`(`/`-`/`+`), score formatting, the ZRANGE option grammar and
// its evaluation to a walk over ranks. Everything here runs on the thread that calls it
// and touches no shard except through the `Shard&` it is given.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/reply_builder.h"
#include "core/zset.h"
#include "shard/wire/command.h"

namespace rc {

class Entry;

namespace zerr {
inline constexpr std::string_view kScoreRange = "ERR min or max is not a float";
inline constexpr std::string_view kLexRange = "ERR min or max not valid string range item";
inline constexpr std::string_view kNanScore = "ERR resulting score is not a number (NaN)";
inline constexpr std::string_view kPositive = "ERR value is out of range, must be positive";
}  // namespace zerr

// Redis zslParseRange: strtod over the C string (leading spaces, "", "(" accepted as in
// Redis), `(` makes the bound exclusive, NaN is refused.
bool ParseScoreBound(std::string_view s, ScoreBound* out);
// Redis zslParseLexRangeItem: `-`, `+`, `[value`, `(value`; `value` views into `s`.
bool ParseLexBound(std::string_view s, LexBound* out);

// Redis 7.0 keeps a set in a listpack while it has at most zset-max-listpack-entries
// members of at most zset-max-listpack-value bytes, else in a skiplist; ZSet's compact
// encoding follows the same rule, conversion for good included. The difference shows in
// two places: a listpack stores an integral score as an integer, so -0 reads back as 0,
// and ZSCAN returns a listpack whole. The server's limits, read at every write:
ZSet::Limits ZSetLimits(const ServerState& server);
// Whether `z` stays compact (a Redis listpack) after adding `extra` new members, the
// longest of them `extra_len` bytes. O(1).
bool ListpackLike(const ZSet& z, const ZSet::Limits& limits, size_t extra = 0,
                  size_t extra_len = 0);
// The score to store for `member` (about to be added to or updated in `z`): -0 becomes 0
// where Redis would write it into a listpack.
double ScoreToStore(const ZSet& z, const ZSet::Limits& limits, std::string_view member,
                    double score);
// addReplyDouble of Redis 7.0 ("%.17g", inf, -inf): a bulk string, or a RESP3 double.
inline void ReplyScore(ReplyBuilder& reply, double d) { reply.Double(d); }
// Member lists with optional scores: RESP2 flattens them [m1, s1, m2, s2, ...], RESP3
// pairs them [[m1, s1], [m2, s2], ...]. ScoredLen opens the list of `members`, then
// ReplyScored writes each.
inline void ScoredLen(ReplyBuilder& reply, size_t members, bool withscores) {
  reply.ArrayLen(withscores && !reply.resp3() ? 2 * members : members);
}
inline void ReplyScored(ReplyBuilder& reply, std::string_view member, double score,
                        bool withscores) {
  if (withscores && reply.resp3()) reply.ArrayLen(2);
  reply.Bulk(member);
  if (withscores) reply.Double(score);
}
// How ZSCAN prints a small set's score: the listpack's integer when the score is
// integral (|d| <= LLONG_MAX/2), else "%.17g".
std::string ListpackScore(double d);

// Redis's index clamping for rank ranges (ZRANGE, ZREMRANGEBYRANK): false when empty,
// else the inclusive [*first, *last] within [0, len).
bool ClampRanks(int64_t start, int64_t end, size_t len, size_t* first, size_t* last);

// One ZRANGE-family query, parsed (zrangeGenericCommand's steps 1 and 2).
struct RangeQuery {
  enum class Type { kAuto, kRank, kScore, kLex };
  Type type = Type::kAuto;
  bool rev = false;
  bool rev_fixed = false;  // ZREVRANGE*, ZRANGEBY*: REV is not an option
  bool withscores = false;
  int64_t offset = 0;
  int64_t limit = -1;
  int64_t start = 0, end = 0;  // kRank
  ScoreBound smin, smax;       // kScore
  LexBound lmin, lmax;         // kLex
};

// Parses args[key_idx+1 ..]: the two range arguments and the options. `store` is
// ZRANGESTORE (no WITHSCORES). `q` arrives with the command's fixed type / direction.
// On failure returns false with Redis's error text in *error.
bool ParseRangeQuery(ArgList args, size_t key_idx, bool store, RangeQuery* q, std::string* error);

// The members a query selects, as a walk: `count` members from rank `first`, downwards
// when `down`.
struct RankWalk {
  size_t first = 0;
  size_t count = 0;
  bool down = false;
};
RankWalk PlanRange(const ZSet& z, const RangeQuery& q);
// Visits the walk's members in reply order.
template <typename Fn>
void Walk(const ZSet& z, const RankWalk& w, Fn&& fn) {
  if (w.count == 0) return;
  ZSet::Iterator it = z.AtRank(w.first);
  for (size_t i = 0; i < w.count && it.Valid(); ++i) {
    fn(it.member(), it.score());
    if (w.down) {
      it.Prev();
    } else {
      it.Next();
    }
  }
}

using ScoredMembers = std::vector<std::pair<std::string, double>>;
// The walk's members copied out (ZRANGESTORE, cross-shard reads).
ScoredMembers CopyRange(const ZSet& z, const RankWalk& w);
// A sorted set holding `members`, a STORE result; empty input gives an empty set. -0 becomes
// 0 where Redis would have the member in a listpack. ZUNIONSTORE & co. build a skiplist and
// convert a small result at the end (`incremental` false); ZRANGESTORE adds `members` in
// order to a listpack that converts when it outgrows it, or starts as a skiplist when a
// rank range is known to be larger (`incremental`, `known_length`, -1 if unknown).
std::unique_ptr<ZSet> BuildZSet(const ScoredMembers& members, const ZSet::Limits& limits,
                                bool incremental = false, int64_t known_length = -1);

}  // namespace rc
