// List pops that may wait: BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH. Each is an op over
// the list primitives (shard/families/list/list_ops.h) handed to the blocking machinery
// (shard/command/blocking_call.h), which finds the key, waits and serves; BLMOVE with its
// destination on another shard moves under both keys' locks (BlockingMoveOp).

#include <memory>
#include <string>
#include <vector>

#include "core/entry.h"
#include "core/list.h"
#include "shard/command/blocking_call.h"
#include "shard/command/errors.h"
#include "shard/families/blocking/blocking_args.h"
#include "shard/families/list/list_ops.h"
#include "shard/runtime/shard.h"
#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"
#include "timers/clock.h"

namespace rc {

namespace {

KeyProbe ProbeList(Shard& shard, std::string_view key) {
  const Entry* e = shard.Find(key);
  if (e == nullptr) return KeyProbe::kMissing;
  return e->type() == ValueType::kList ? KeyProbe::kReady : KeyProbe::kWrongType;
}

// Pops from one end: BLPOP/BRPOP answer [key, element], BLMPOP [key, [elements...]].
class ListPopOp final : public BlockingOp {
 public:
  ListPopOp(List::End end, int64_t count, bool nested)
      : end_(end), count_(count), nested_(nested) {}

  KeyProbe Probe(Shard& shard, std::string_view key) const override {
    return ProbeList(shard, key);
  }
  void Pop(Shard& shard, std::string_view key, ReplyBuilder& reply) const override {
    std::vector<std::string> elems;
    PopList(shard, key, shard.Find(key), end_, nested_ ? size_t(count_) : 1,
            [&](std::string_view v) { elems.emplace_back(v); });
    if (nested_) return ReplyKeyAndElements(reply, key, elems);
    reply.ArrayLen(2);
    reply.Bulk(key);
    reply.Bulk(elems[0]);
  }
  void Record(AofRecorder& aof, std::string_view key) const override {
    const std::string_view name = end_ == List::End::kHead ? "LPOP" : "RPOP";
    if (!nested_) return aof.Command({name, key});
    const std::string count = std::to_string(count_);
    aof.Command({name, key, count});
  }

 private:
  const List::End end_;
  const int64_t count_;
  const bool nested_;
};

std::string_view Side(List::End end) { return end == List::End::kHead ? "LEFT" : "RIGHT"; }

// BLMOVE / BRPOPLPUSH: pops from the source, pushes onto the destination, answers the
// element. On one shard Pop does both (LMOVE's MoveLocal, a WRONGTYPE destination
// included); across shards the machinery calls Peek, DestinationOk, Take and Give.
class ListMoveOp final : public BlockingMoveOp {
 public:
  ListMoveOp(std::string src, std::string dst, List::End from, List::End to, bool across,
             const ServerState& server)
      : BlockingMoveOp(std::move(src), std::move(dst), across),
        from_(from),
        to_(to),
        server_(server) {}

  KeyProbe Probe(Shard& shard, std::string_view key) const override {
    return ProbeList(shard, key);
  }
  void Pop(Shard& shard, std::string_view key, ReplyBuilder& reply) const override {
    ShardCmd cmd{shard, ArgList(), reply, server_};
    MoveLocal(cmd, key, destination(), from_, to_);
  }
  // Inside MULTI a null bulk, as LMOVE; on timeout a null array, as every blocking pop.
  void ReplyNothing(ReplyBuilder& reply, bool in_multi) const override {
    in_multi ? reply.NullBulk() : reply.NullArray();
  }
  std::string Peek(Shard& shard) const override {
    const List& l = *shard.Find(source())->object<List>();
    char buf[List::kBufBytes];
    return std::string(l.At(from_ == List::End::kHead ? 0 : l.size() - 1, buf));
  }
  void Record(AofRecorder& aof, std::string_view) const override {
    aof.Command({"LMOVE", source(), destination(), Side(from_), Side(to_)});
  }
  void RecordTake(AofRecorder& aof) const override {
    aof.Command({from_ == List::End::kHead ? "LPOP" : "RPOP", source()});
  }
  void RecordGive(AofRecorder& aof, std::string_view elem) const override {
    aof.Command({to_ == List::End::kHead ? "LPUSH" : "RPUSH", destination(), elem});
  }
  bool DestinationOk(Shard& shard) const override {
    Entry* e;
    return FindListForWrite(shard, destination(), &e);
  }
  void Take(Shard& shard) const override {
    PopList(shard, source(), shard.Find(source()), from_, 1, [](std::string_view) {});
  }
  void Give(Shard& shard, std::string_view elem) const override {
    const std::string_view one[] = {elem};
    PushList(shard, server_, destination(), shard.Find(destination()), to_, one);
  }

 private:
  const List::End from_;
  const List::End to_;
  const ServerState& server_;
};

template <List::End kEnd>
const std::shared_ptr<const BlockingOp>& SingleOp() {
  static const std::shared_ptr<const BlockingOp> op =
      std::make_shared<const ListPopOp>(kEnd, 1, /*nested=*/false);
  return op;
}

int64_t NowMs(const CoordCmd& cmd) { return cmd.server.clock->NowUnixMillis(); }

// BLPOP / BRPOP key [key ...] timeout; inside EXEC on one shard, the form that never waits.
template <List::End kEnd>
void BPopNow(ShardCmd& cmd) {
  int64_t deadline = 0;
  if (!ParseTimeoutArg(cmd.args, cmd.args.size() - 1, cmd.shard.NowMs(), cmd.reply, &deadline))
    return;
  PopOrNothing(cmd, *SingleOp<kEnd>(), KeysBeforeTimeout(cmd.args));
}

template <List::End kEnd>
void BPop(CoordCmd& cmd) {
  int64_t deadline = 0;
  if (!ParseTimeoutArg(cmd.args, cmd.args.size() - 1, NowMs(cmd), cmd.reply, &deadline)) return;
  BlockOn(cmd, SingleOp<kEnd>(), KeysBeforeTimeout(cmd.args), deadline, /*may_block=*/true);
}

// BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]; the timeout is checked
// last, as Redis does.
void BLMPop(CoordCmd& cmd) {
  MPopArgs a;
  std::string error;
  if (!ParseMPop(cmd.args, 2, "LEFT", "RIGHT", &a, &error)) return cmd.reply.Error(error);
  int64_t deadline = 0;
  if (!ParseTimeoutArg(cmd.args, 1, NowMs(cmd), cmd.reply, &deadline)) return;
  const List::End end = a.second ? List::End::kTail : List::End::kHead;
  BlockOn(cmd, std::make_shared<const ListPopOp>(end, a.count, /*nested=*/true), a.keys, deadline,
          /*may_block=*/true);
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout and BRPOPLPUSH source
// destination timeout: the ends first, then the timeout.
template <bool kBrpoplpush>
bool MoveArgs(ArgList args, List::End* from, List::End* to, ReplyBuilder& reply) {
  if constexpr (kBrpoplpush) {
    *from = List::End::kTail;
    *to = List::End::kHead;
    return true;
  } else {
    if (ParseListEnd(args[3], from) && ParseListEnd(args[4], to)) return true;
    reply.Error(err::kSyntax);
    return false;
  }
}

std::shared_ptr<const ListMoveOp> MoveOp(ArgList args, List::End from, List::End to, bool across,
                                         const ServerState& server) {
  return std::make_shared<const ListMoveOp>(std::string(args[1]), std::string(args[2]), from, to,
                                            across, server);
}

template <bool kBrpoplpush>
void BMoveNow(ShardCmd& cmd) {
  List::End from, to;
  int64_t deadline = 0;
  if (!MoveArgs<kBrpoplpush>(cmd.args, &from, &to, cmd.reply) ||
      !ParseTimeoutArg(cmd.args, cmd.args.size() - 1, cmd.shard.NowMs(), cmd.reply, &deadline)) {
    return;
  }
  auto op = MoveOp(cmd.args, from, to, /*across=*/false, cmd.server);
  PopOrNothing(cmd, *op, cmd.args.subspan(1, 1));
}

template <bool kBrpoplpush>
void BMove(CoordCmd& cmd) {
  List::End from, to;
  int64_t deadline = 0;
  if (!MoveArgs<kBrpoplpush>(cmd.args, &from, &to, cmd.reply) ||
      !ParseTimeoutArg(cmd.args, cmd.args.size() - 1, NowMs(cmd), cmd.reply, &deadline)) {
    return;
  }
  const bool across = cmd.shards.ShardOf(cmd.args[1]) != cmd.shards.ShardOf(cmd.args[2]);
  BlockOn(cmd, MoveOp(cmd.args, from, to, across, cmd.server), cmd.args.subspan(1, 1), deadline,
          /*may_block=*/true);
}

}  // namespace

void RegisterListBlockingCommands(CommandTable& t) {
  const uint32_t kPop = kCmdWrite | kCmdNoScript | kCmdBlocking;
  const uint32_t kMove = kCmdWrite | kCmdDenyOom | kCmdNoScript | kCmdBlocking;
  CommandTable::Family f = t.StartFamily("@list");
  f.Add({.name = "blpop",
         .arity = -3,
         .flags = kPop,
         .keys = {1, -2, 1},
         .on_shard = BPopNow<List::End::kHead>,
         .on_coord = BPop<List::End::kHead>,
         .categories = {"@blocking"}});
  f.Add({.name = "brpop",
         .arity = -3,
         .flags = kPop,
         .keys = {1, -2, 1},
         .on_shard = BPopNow<List::End::kTail>,
         .on_coord = BPop<List::End::kTail>,
         .categories = {"@blocking"}});
  f.Add({.name = "blmpop",
         .arity = -5,
         .flags = kCmdWrite | kCmdBlocking,
         .on_coord = BLMPop,
         .numkeys_index = 2,
         .categories = {"@blocking"}});
  f.Add({.name = "blmove",
         .arity = 6,
         .flags = kMove,
         .keys = {1, 2, 1},
         .on_shard = BMoveNow<false>,
         .on_coord = BMove<false>,
         .categories = {"@blocking"}});
  f.Add({.name = "brpoplpush",
         .arity = 4,
         .flags = kMove,
         .keys = {1, 2, 1},
         .on_shard = BMoveNow<true>,
         .on_coord = BMove<true>,
         .categories = {"@blocking"}});
}

}  // namespace rc
