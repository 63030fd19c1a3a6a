#pragma once
// ZUNION / ZINTER / ZDIFF / ZINTERCARD arithmetic over sorted sets already copied off
// their shards (zset_multi.cc does the locking and copying): Redis 7.0's option
// grammar, input order, weights, aggregation and NaN rules. Runs on the connection's thread.

#include <cstdint>
#include <string>
#include <vector>

#include "shard/families/zset/zset_args.h"
#include "shard/wire/command.h"

namespace rc {

// One source key as its shard saw it under the locks.
struct SourceRead {
  bool wrongtype = false;
  bool exists = false;
  ScoredMembers members;
};

// The combined members (the reply or the value to store), or an error reply.
struct ZSetOpOutcome {
  std::string error;
  ScoredMembers members;
  bool withscores = false;
  int64_t cardinality = -1;  // ZINTERCARD: reply this integer instead
  bool incremental = false;  // how to build the stored set (BuildZSet)
  int64_t known_length = -1;
};

enum class ZSetOpKind { kUnion, kInter, kDiff };
enum class Aggregate { kSum, kMin, kMax };

struct ZSetOp {
  ZSetOpKind kind = ZSetOpKind::kUnion;
  std::vector<double> weights;
  Aggregate aggregate = Aggregate::kSum;
  bool withscores = false;
  bool cardinality_only = false;  // ZINTERCARD
  int64_t limit = 0;              // ZINTERCARD's LIMIT; 0: none
  std::string option_error;       // reported after the sources' type check, as Redis does
};

// Redis zunionInterDiffGenericCommand's option loop over args[j..]; the first error goes
// to op->option_error.
void ParseSetOpOptions(ArgList args, size_t j, size_t setnum, bool store, ZSetOp* op);
// The operation over `src` (one entry per input key, in argument order): WRONGTYPE if any
// input holds another type, else op.option_error, else the members sorted by (score,
// member) or, for ZINTERCARD, the cardinality.
ZSetOpOutcome RunSetOp(const ZSetOp& op, std::vector<SourceRead>& src);

}  // namespace rc
