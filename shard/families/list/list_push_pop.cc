// List commands at the ends: LPUSH, RPUSH, LPUSHX, RPUSHX, LPOP, RPOP, LLEN, LMPOP, with
// Redis 7.0's replies (pushGenericCommand, popGenericCommand, lmpopGenericCommand). The
// changes themselves are list_ops.h's, shared with the blocking commands.

#include <algorithm>

#include "core/entry.h"
#include "core/list.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/errors.h"
#include "shard/command/typed_lookup.h"
#include "shard/families/list/list_ops.h"
#include "shard/runtime/shard.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

template <List::End kEnd, bool kOnlyExisting>
void Push(ShardCmd& cmd) {
  Entry* e;
  if (!FindListForWrite(cmd.shard, cmd.args[1], &e)) return cmd.reply.Error(err::kWrongType);
  if (kOnlyExisting && e == nullptr) return cmd.reply.Integer(0);
  cmd.reply.Integer(
      int64_t(PushList(cmd.shard, cmd.server, cmd.args[1], e, kEnd, cmd.args.subspan(2))));
}

// LPOP / RPOP key [count]
template <List::End kEnd>
void Pop(ShardCmd& cmd) {
  if (cmd.args.size() > 3) {
    return cmd.reply.Error(StrCat("ERR wrong number of arguments for '",
                                  kEnd == List::End::kHead ? "lpop" : "rpop", "' command"));
  }
  const bool has_count = cmd.args.size() == 3;
  int64_t count = 1;
  if (has_count && (!ParseInt64(cmd.args[2], &count) || count < 0)) {
    return cmd.reply.Error("ERR value is out of range, must be positive");
  }
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kList, Access::kWrite, cmd.reply, &e)) return;
  if (e == nullptr) return has_count ? cmd.reply.NullArray() : cmd.reply.NullBulk();
  if (has_count) cmd.reply.ArrayLen(std::min(size_t(count), e->object<List>()->size()));
  if (count == 0) return;
  PopList(cmd.shard, cmd.args[1], e, kEnd, size_t(count),
          [&](std::string_view v) { cmd.reply.Bulk(v); });
}

void LLen(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kList, Access::kRead, cmd.reply, &e)) return;
  cmd.reply.Integer(e == nullptr ? 0 : int64_t(e->object<List>()->size()));
}

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]
void LMPop(CoordCmd& cmd) {
  int64_t numkeys;
  if (!ParseInt64(cmd.args[1], &numkeys) || numkeys < 1) {
    return cmd.reply.Error("ERR numkeys should be greater than 0");
  }
  if (numkeys > int64_t(cmd.args.size()) - 3) return cmd.reply.Error(err::kSyntax);
  const size_t where = 2 + size_t(numkeys);
  List::End end;
  if (!ParseListEnd(cmd.args[where], &end)) return cmd.reply.Error(err::kSyntax);
  int64_t count = -1;
  for (size_t j = where + 1; j < cmd.args.size(); ++j) {
    if (count == -1 && EqualsIgnoreCase(cmd.args[j], "count") && j + 1 < cmd.args.size()) {
      if (!ParseInt64(cmd.args[++j], &count) || count < 1) {
        return cmd.reply.Error("ERR count should be greater than 0");
      }
    } else {
      return cmd.reply.Error(err::kSyntax);
    }
  }
  MPopCoord(cmd, std::vector<std::string_view>(cmd.args.begin() + 2, cmd.args.begin() + where), end,
            count == -1 ? 1 : size_t(count));
}

}  // namespace

void RegisterListReadCommands(CommandTable& t);
void RegisterListEditCommands(CommandTable& t);
void RegisterListMoveCommands(CommandTable& t);

void RegisterListCommands(CommandTable& t) {
  const uint32_t kPush = kCmdWrite | kCmdDenyOom | kCmdFast;
  CommandTable::Family f = t.StartFamily("@list");
  f.Add({.name = "lpush",
         .arity = -3,
         .flags = kPush,
         .keys = {1, 1, 1},
         .on_shard = Push<List::End::kHead, false>});
  f.Add({.name = "rpush",
         .arity = -3,
         .flags = kPush,
         .keys = {1, 1, 1},
         .on_shard = Push<List::End::kTail, false>});
  f.Add({.name = "lpushx",
         .arity = -3,
         .flags = kPush,
         .keys = {1, 1, 1},
         .on_shard = Push<List::End::kHead, true>});
  f.Add({.name = "rpushx",
         .arity = -3,
         .flags = kPush,
         .keys = {1, 1, 1},
         .on_shard = Push<List::End::kTail, true>});
  f.Add({.name = "lpop",
         .arity = -2,
         .flags = kCmdWrite | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = Pop<List::End::kHead>});
  f.Add({.name = "rpop",
         .arity = -2,
         .flags = kCmdWrite | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = Pop<List::End::kTail>});
  f.Add({.name = "llen",
         .arity = 2,
         .flags = kCmdReadOnly | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = LLen});
  f.Add({.name = "lmpop", .arity = -4, .flags = kCmdWrite, .on_coord = LMPop, .numkeys_index = 1});
  RegisterListReadCommands(t);
  RegisterListEditCommands(t);
  RegisterListMoveCommands(t);
}

}  // namespace rc
