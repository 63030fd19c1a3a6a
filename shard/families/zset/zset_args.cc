#include "shard/families/zset/zset_args.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/arg_parser.h"
#include "shard/command/errors.h"
#include "shard/runtime/shard.h"
#include "shard/state/server_state.h"

namespace rc {

bool ParseScoreBound(std::string_view s, ScoreBound* out) {
  // Redis reads the argument as a C string, so parsing stops at an embedded NUL.
  out->exclusive = !s.empty() && s[0] == '(';
  std::string buf(out->exclusive ? s.substr(1) : s);
  char* end = nullptr;
  out->value = std::strtod(buf.c_str(), &end);
  return *end == '\0' && !std::isnan(out->value);
}

bool ParseLexBound(std::string_view s, LexBound* out) {
  if (s.empty()) return false;
  switch (s[0]) {
    case '+':
    case '-':
      if (s.size() > 1 && s[1] != '\0') return false;
      out->kind = s[0] == '+' ? LexBound::Kind::kMax : LexBound::Kind::kMin;
      out->value = {};
      return true;
    case '(':
    case '[':
      out->kind = s[0] == '(' ? LexBound::Kind::kExclusive : LexBound::Kind::kInclusive;
      out->value = s.substr(1);
      return true;
    default:
      return false;
  }
}

std::string ListpackScore(double d) {
  constexpr double kLimit = double(INT64_MAX / 2);
  if (d >= -kLimit && d <= kLimit) {
    auto ll = static_cast<int64_t>(d);
    if (double(ll) == d) {
      char buf[kMaxInt64Chars];
      char* end = FormatInt64(ll, buf);
      return std::string(buf, size_t(end - buf));
    }
  }
  return FormatDouble(d);
}

bool ClampRanks(int64_t start, int64_t end, size_t len, size_t* first, size_t* last) {
  const auto n = int64_t(len);
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0) start = 0;
  if (start > end || start >= n) return false;
  if (end >= n) end = n - 1;
  *first = size_t(start);
  *last = size_t(end);
  return true;
}

bool ParseRangeQuery(ArgList args, size_t key_idx, bool store, RangeQuery* q, std::string* error) {
  using Type = RangeQuery::Type;
  bool dir_auto = !q->rev_fixed;
  ArgParser p(args, key_idx + 3);
  while (p.HasNext()) {
    if (!store && p.Flag("WITHSCORES")) {
      q->withscores = true;
    } else if (p.Option("LIMIT", 2)) {
      q->offset = p.Next<int64_t>();
      q->limit = p.Next<int64_t>();
    } else if (dir_auto && p.Flag("REV")) {
      q->rev = true;
      dir_auto = false;
    } else if (q->type == Type::kAuto && p.Flag("BYLEX")) {
      q->type = Type::kLex;
    } else if (q->type == Type::kAuto && p.Flag("BYSCORE")) {
      q->type = Type::kScore;
    } else {
      p.Fail(err::kSyntax);
    }
  }
  if (!p.ok()) {
    *error = p.error();
    return false;
  }
  if (q->type == Type::kAuto) q->type = Type::kRank;
  if (q->limit != -1 && q->type == Type::kRank) {
    *error =
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX";
    return false;
  }
  if (q->withscores && q->type == Type::kLex) {
    *error = "ERR syntax error, WITHSCORES not supported in combination with BYLEX";
    return false;
  }
  size_t min_idx = key_idx + 1, max_idx = key_idx + 2;
  // Reversed score and lex ranges are written max first.
  if (q->rev && q->type != Type::kRank) std::swap(min_idx, max_idx);
  switch (q->type) {
    case Type::kAuto:
    case Type::kRank:
      if (!ParseInt64(args[min_idx], &q->start) || !ParseInt64(args[max_idx], &q->end)) {
        *error = std::string(err::kNotInteger);
        return false;
      }
      break;
    case Type::kScore:
      if (!ParseScoreBound(args[min_idx], &q->smin) || !ParseScoreBound(args[max_idx], &q->smax)) {
        *error = std::string(zerr::kScoreRange);
        return false;
      }
      break;
    case Type::kLex:
      if (!ParseLexBound(args[min_idx], &q->lmin) || !ParseLexBound(args[max_idx], &q->lmax)) {
        *error = std::string(zerr::kLexRange);
        return false;
      }
      break;
  }
  return true;
}

RankWalk PlanRange(const ZSet& z, const RangeQuery& q) {
  RankWalk w;
  w.down = q.rev;
  const size_t len = z.size();
  if (q.type == RangeQuery::Type::kRank || q.type == RangeQuery::Type::kAuto) {
    size_t first, last;
    if (!ClampRanks(q.start, q.end, len, &first, &last)) return w;
    w.count = last - first + 1;
    w.first = q.rev ? len - 1 - first : first;
    return w;
  }
  size_t begin, end;
  if (q.type == RangeQuery::Type::kScore) {
    begin = z.ScoreRank(q.smin);
    end = z.ScoreRankEnd(q.smax);
  } else {
    begin = z.LexRank(q.lmin);
    end = z.LexRankEnd(q.lmax);
  }
  if (end <= begin || q.offset < 0 || uint64_t(q.offset) >= end - begin) return w;
  size_t avail = end - begin - size_t(q.offset);
  w.count = q.limit >= 0 ? std::min(avail, size_t(q.limit)) : avail;
  w.first = q.rev ? end - 1 - size_t(q.offset) : begin + size_t(q.offset);
  return w;
}

ScoredMembers CopyRange(const ZSet& z, const RankWalk& w) {
  ScoredMembers out;
  out.reserve(w.count);
  Walk(z, w, [&](std::string_view m, double s) { out.emplace_back(std::string(m), s); });
  return out;
}

ZSet::Limits ZSetLimits(const ServerState& server) {
  return {size_t(server.config.zset_max_listpack_entries.get()),
          size_t(server.config.zset_max_listpack_value.get())};
}

bool ListpackLike(const ZSet& z, const ZSet::Limits& limits, size_t extra, size_t extra_len) {
  return z.compact() && z.size() + extra <= limits.entries && extra_len <= limits.value;
}

double ScoreToStore(const ZSet& z, const ZSet::Limits& limits, std::string_view member,
                    double score) {
  if (score != 0 || !std::signbit(score)) return score;
  size_t extra = z.Score(member) ? 0 : 1;
  return ListpackLike(z, limits, extra, member.size()) ? 0.0 : score;
}

std::unique_ptr<ZSet> BuildZSet(const ScoredMembers& members, const ZSet::Limits& limits,
                                bool incremental, int64_t known_length) {
  auto z = std::make_unique<ZSet>();
  if (incremental) {
    // Redis creates the set as a skiplist when the range is known to outgrow a listpack.
    const ZSet::Limits skiplist{0, 0};
    const ZSet::Limits& use = known_length > int64_t(limits.entries) ? skiplist : limits;
    for (const auto& [m, s] : members) z->Add(m, ScoreToStore(*z, use, m, s), use);
    return z;
  }
  bool small = members.size() <= limits.entries;
  for (size_t i = 0; small && i < members.size(); ++i) {
    small = members[i].first.size() <= limits.value;
  }
  const ZSet::Limits skiplist{0, 0};
  for (const auto& [m, s] : members) {
    z->Add(m, small && s == 0 ? 0.0 : s, small ? limits : skiplist);
  }
  return z;
}

}  // namespace rc
