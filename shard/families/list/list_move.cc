// LMOVE and RPOPLPUSH: one shard runs them inline; keys on two shards take the locked
// path (list_ops.h, MoveCoord), so the element is never in both lists or in neither.

#include "core/list.h"
#include "shard/command/errors.h"
#include "shard/families/list/list_ops.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT: both ends are checked first.
bool MoveEnds(ArgList args, ReplyBuilder& reply, List::End* from, List::End* to) {
  if (ParseListEnd(args[3], from) && ParseListEnd(args[4], to)) return true;
  reply.Error(err::kSyntax);
  return false;
}

void LMove(ShardCmd& cmd) {
  List::End from, to;
  if (MoveEnds(cmd.args, cmd.reply, &from, &to)) MoveLocal(cmd, cmd.args[1], cmd.args[2], from, to);
}

void LMoveCoord(CoordCmd& cmd) {
  List::End from, to;
  if (MoveEnds(cmd.args, cmd.reply, &from, &to)) MoveCoord(cmd, cmd.args[1], cmd.args[2], from, to);
}

void RPopLPush(ShardCmd& cmd) {
  MoveLocal(cmd, cmd.args[1], cmd.args[2], List::End::kTail, List::End::kHead);
}

void RPopLPushCoord(CoordCmd& cmd) {
  MoveCoord(cmd, cmd.args[1], cmd.args[2], List::End::kTail, List::End::kHead);
}

}  // namespace

void RegisterListMoveCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@list");
  f.Add({.name = "lmove",
         .arity = 5,
         .flags = kCmdWrite | kCmdDenyOom,
         .keys = {1, 2, 1},
         .on_shard = LMove,
         .on_coord = LMoveCoord});
  f.Add({.name = "rpoplpush",
         .arity = 3,
         .flags = kCmdWrite | kCmdDenyOom,
         .keys = {1, 2, 1},
         .on_shard = RPopLPush,
         .on_coord = RPopLPushCoord});
}

}  // namespace rc
