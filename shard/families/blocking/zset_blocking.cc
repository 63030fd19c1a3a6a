// Sorted-set pops that may wait: BZPOPMIN, BZPOPMAX, BZMPOP, and ZMPOP, their
// non-blocking sibling. Each is a ZPopOp (what to pop from a key) handed to the blocking
// machinery (shard/command/blocking_call.h), which finds the key, waits and serves.

#include <algorithm>
#include <memory>
#include <string>

#include "shard/command/blocking_call.h"
#include "shard/families/blocking/blocking_args.h"
#include "shard/families/zset/zset_args.h"
#include "shard/runtime/notify.h"
#include "shard/runtime/shard.h"
#include "shard/state/server_state.h"
#include "timers/clock.h"

namespace rc {

namespace {

// Pops the lowest (or highest) members of a sorted set, as Redis's genericZpopCommand
// with emitkey: BZPOPMIN/BZPOPMAX answer [key, member, score], BZMPOP and ZMPOP
// [key, [[member, score], ...]].
class ZPopOp final : public BlockingOp {
 public:
  ZPopOp(bool max, int64_t count, bool nested) : max_(max), count_(count), nested_(nested) {}

  KeyProbe Probe(Shard& shard, std::string_view key) const override {
    const Entry* e = shard.Find(key);
    if (e == nullptr) return KeyProbe::kMissing;
    return e->type() == ValueType::kZSet ? KeyProbe::kReady : KeyProbe::kWrongType;
  }

  void Pop(Shard& shard, std::string_view key, ReplyBuilder& reply) const override {
    ValueUpdate update(shard, shard.Find(key));
    ZSet& z = update.get<ZSet>();
    const size_t n = nested_ ? std::min(size_t(count_), z.size()) : 1;
    reply.ArrayLen(nested_ ? 2 : 3);
    reply.Bulk(key);
    if (nested_) reply.ArrayLen(n);
    for (size_t i = 0; i < n; ++i) {
      ZSet::Iterator it = z.AtRank(max_ ? z.size() - 1 : 0);
      const std::string member(it.member());
      const double score = it.score();
      if (nested_) reply.ArrayLen(2);
      reply.Bulk(member);
      ReplyScore(reply, score);
      z.Remove(member);
    }
    const bool exists = update.Finish();
    shard.Notify(kNotifyZset, max_ ? "zpopmax" : "zpopmin", key);
    if (!exists) shard.Notify(kNotifyGeneric, "del", key);
  }
  void Record(AofRecorder& aof, std::string_view key) const override {
    const std::string_view name = max_ ? "ZPOPMAX" : "ZPOPMIN";
    if (!nested_) return aof.Command({name, key});
    const std::string count = std::to_string(count_);
    aof.Command({name, key, count});
  }

 private:
  const bool max_;
  const int64_t count_;
  const bool nested_;
};

// BZPOPMIN / BZPOPMAX key [key ...] timeout.
template <bool kMax>
const std::shared_ptr<const BlockingOp>& SingleOp() {
  static const std::shared_ptr<const BlockingOp> op =
      std::make_shared<const ZPopOp>(kMax, 1, /*nested=*/false);
  return op;
}

// Inside EXEC, all keys on one shard: the timeout is still checked, nothing waits.
template <bool kMax>
void BZPopNow(ShardCmd& cmd) {
  int64_t deadline = 0;
  if (!ParseTimeoutArg(cmd.args, cmd.args.size() - 1, cmd.shard.NowMs(), cmd.reply, &deadline)) {
    return;
  }
  PopOrNothing(cmd, *SingleOp<kMax>(), KeysBeforeTimeout(cmd.args));
}

template <bool kMax>
void BZPop(CoordCmd& cmd) {
  int64_t deadline = 0;
  const int64_t now = cmd.server.clock->NowUnixMillis();
  if (!ParseTimeoutArg(cmd.args, cmd.args.size() - 1, now, cmd.reply, &deadline)) return;
  BlockOn(cmd, SingleOp<kMax>(), KeysBeforeTimeout(cmd.args), deadline, /*may_block=*/true);
}

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count] and BZMPOP timeout numkeys ...; the
// timeout is checked last, as Redis does.
template <bool kBlock>
void ZMPop(CoordCmd& cmd) {
  MPopArgs a;
  std::string error;
  if (!ParseMPop(cmd.args, kBlock ? 2 : 1, "MIN", "MAX", &a, &error)) {
    return cmd.reply.Error(error);
  }
  int64_t deadline = 0;
  if (kBlock &&
      !ParseTimeoutArg(cmd.args, 1, cmd.server.clock->NowUnixMillis(), cmd.reply, &deadline)) {
    return;
  }
  BlockOn(cmd, std::make_shared<const ZPopOp>(a.second, a.count, /*nested=*/true), a.keys, deadline,
          /*may_block=*/kBlock);
}

}  // namespace

void RegisterZSetBlockingCommands(CommandTable& t) {
  const uint32_t kBlockingPop = kCmdWrite | kCmdNoScript | kCmdBlocking | kCmdFast;
  CommandTable::Family f = t.StartFamily("@sortedset");
  f.Add({.name = "bzpopmin",
         .arity = -3,
         .flags = kBlockingPop,
         .keys = {1, -2, 1},
         .on_shard = BZPopNow<false>,
         .on_coord = BZPop<false>,
         .categories = {"@blocking"}});
  f.Add({.name = "bzpopmax",
         .arity = -3,
         .flags = kBlockingPop,
         .keys = {1, -2, 1},
         .on_shard = BZPopNow<true>,
         .on_coord = BZPop<true>,
         .categories = {"@blocking"}});
  f.Add({.name = "bzmpop",
         .arity = -5,
         .flags = kCmdWrite | kCmdBlocking,
         .on_coord = ZMPop<true>,
         .numkeys_index = 2,
         .categories = {"@blocking"}});
  f.Add({.name = "zmpop",
         .arity = -4,
         .flags = kCmdWrite,
         .on_coord = ZMPop<false>,
         .numkeys_index = 1});
}

}  // namespace rc
