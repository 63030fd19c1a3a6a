#include "shard/families/zset/zset_setops.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/arg_parser.h"
#include "shard/command/errors.h"

namespace rc {

namespace {

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

}  // namespace

ZSetOpOutcome RunSetOp(const ZSetOp& op, std::vector<SourceRead>& src) {
  ZSetOpOutcome o;
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
  if (op.kind != ZSetOpKind::kDiff) {
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
  if (op.kind == ZSetOpKind::kUnion) {
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
  } else if (op.kind == ZSetOpKind::kInter) {
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
void ParseSetOpOptions(ArgList args, size_t j, size_t setnum, bool store, ZSetOp* op) {
  // ZDIFF takes none of WEIGHTS and AGGREGATE, ZINTERCARD only LIMIT.
  const bool card = op->cardinality_only;
  const bool weighted = op->kind != ZSetOpKind::kDiff && !card;
  ArgParser p(args, j);
  while (p.HasNext()) {
    if (weighted && p.Option("WEIGHTS", setnum)) {
      op->weights.resize(setnum);
      for (double& w : op->weights) w = p.Next<double>("ERR weight value is not a float");
    } else if (weighted && p.Option("AGGREGATE")) {
      op->aggregate = p.NextOneOf<Aggregate>(
          {{"SUM", Aggregate::kSum}, {"MIN", Aggregate::kMin}, {"MAX", Aggregate::kMax}});
    } else if (!store && !card && p.Flag("WITHSCORES")) {
      op->withscores = true;
    } else if (card && p.Option("LIMIT")) {
      op->limit = p.NextInRange(0, INT64_MAX, "ERR LIMIT can't be negative");
    } else {
      p.Fail(err::kSyntax);
    }
  }
  op->option_error = p.error();
}

}  // namespace rc
