// List edits inside the list: LSET, LINSERT, LREM, LTRIM, with Redis 7.0's replies,
// argument checks and keyspace events (lsetCommand, linsertCommand, lremCommand,
// ltrimCommand). Each change goes through a ValueUpdate (memory, WATCH, an emptied list
// is deleted).

#include "core/entry.h"
#include "core/list.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/errors.h"
#include "shard/command/typed_lookup.h"
#include "shard/families/list/list_ops.h"
#include "shard/runtime/notify.h"
#include "shard/runtime/shard.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

void LSet(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kList, Access::kWrite, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.Error(err::kNoSuchKey);
  int64_t index;
  if (!ParseInt64(cmd.args[2], &index)) return cmd.reply.Error(err::kNotInteger);
  {
    ValueUpdate update(cmd.shard, e);
    List& l = update.get<List>();
    if (index < 0) index += int64_t(l.size());
    if (index < 0 || index >= int64_t(l.size())) {
      update.NothingChanged();
      return cmd.reply.Error("ERR index out of range");
    }
    l.Set(size_t(index), cmd.args[3], ListLimits(cmd.server));
  }
  cmd.shard.Notify(kNotifyList, "lset", cmd.args[1]);
  cmd.reply.Ok();
}

// LINSERT key BEFORE|AFTER pivot element
void LInsert(ShardCmd& cmd) {
  bool after;
  if (EqualsIgnoreCase(cmd.args[2], "after")) {
    after = true;
  } else if (EqualsIgnoreCase(cmd.args[2], "before")) {
    after = false;
  } else {
    return cmd.reply.Error(err::kSyntax);
  }
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kList, Access::kWrite, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.Integer(0);
  int64_t len = -1;
  {
    ValueUpdate update(cmd.shard, e);
    List& l = update.get<List>();
    if (l.Insert(cmd.args[3], cmd.args[4], after, ListLimits(cmd.server))) {
      len = int64_t(l.size());
    } else {
      update.NothingChanged();
    }
  }
  if (len >= 0) cmd.shard.Notify(kNotifyList, "linsert", cmd.args[1]);
  cmd.reply.Integer(len);
}

// LREM key count element
void LRem(ShardCmd& cmd) {
  int64_t count;
  if (!ParseInt64(cmd.args[2], &count)) return cmd.reply.Error(err::kNotInteger);
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kList, Access::kWrite, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.Integer(0);
  size_t removed;
  bool exists;
  {
    ValueUpdate update(cmd.shard, e);
    // Redis negates LONG_MIN into itself, which no count of removals reaches: all go.
    removed = update.get<List>().Remove(cmd.args[3], count == INT64_MIN ? 0 : count);
    if (removed == 0) update.NothingChanged();
    exists = update.Finish();
  }
  if (removed > 0) cmd.shard.Notify(kNotifyList, "lrem", cmd.args[1]);
  if (!exists) cmd.shard.Notify(kNotifyGeneric, "del", cmd.args[1]);
  cmd.reply.Integer(int64_t(removed));
}

// LTRIM key start stop: as Redis, an event and a WATCH signal even when nothing goes.
void LTrim(ShardCmd& cmd) {
  int64_t start, end;
  if (!ParseInt64(cmd.args[2], &start) || !ParseInt64(cmd.args[3], &end)) {
    return cmd.reply.Error(err::kNotInteger);
  }
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kList, Access::kWrite, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.Ok();
  bool exists;
  {
    ValueUpdate update(cmd.shard, e);
    List& l = update.get<List>();
    const int64_t len = int64_t(l.size());
    if (start < 0) start += len;
    if (end < 0) end += len;
    if (start < 0) start = 0;
    int64_t ltrim, rtrim;
    if (start > end || start >= len) {
      ltrim = len;
      rtrim = 0;
    } else {
      if (end >= len) end = len - 1;
      ltrim = start;
      rtrim = len - end - 1;
    }
    l.Erase(size_t(len - rtrim), size_t(rtrim));
    l.Erase(0, size_t(ltrim));
    exists = update.Finish();
  }
  cmd.shard.Notify(kNotifyList, "ltrim", cmd.args[1]);
  if (!exists) cmd.shard.Notify(kNotifyGeneric, "del", cmd.args[1]);
  cmd.reply.Ok();
}

}  // namespace

void RegisterListEditCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@list");
  f.Add({.name = "lset",
         .arity = 4,
         .flags = kCmdWrite | kCmdDenyOom,
         .keys = {1, 1, 1},
         .on_shard = LSet});
  f.Add({.name = "linsert",
         .arity = 5,
         .flags = kCmdWrite | kCmdDenyOom,
         .keys = {1, 1, 1},
         .on_shard = LInsert});
  f.Add({.name = "lrem", .arity = 4, .flags = kCmdWrite, .keys = {1, 1, 1}, .on_shard = LRem});
  f.Add({.name = "ltrim", .arity = 4, .flags = kCmdWrite, .keys = {1, 1, 1}, .on_shard = LTrim});
}

}  // namespace rc
