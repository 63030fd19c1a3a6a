// List reads: LRANGE, LINDEX, LPOS, with Redis 7.0's replies and argument checks
// (lrangeCommand, lindexCommand, lposCommand).

#include <algorithm>

#include "core/entry.h"
#include "core/list.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/errors.h"
#include "shard/command/typed_lookup.h"
#include "shard/runtime/shard.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

// Redis's addListRangeReply: [start, end] with negative indexes from the end, clamped.
void ReplyRange(ReplyBuilder& rb, const List& l, int64_t start, int64_t end) {
  const int64_t len = int64_t(l.size());
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (start > end || start >= len) return rb.ArrayLen(0);
  if (end >= len) end = len - 1;
  size_t left = size_t(end - start + 1);
  rb.ArrayLen(left);
  l.Walk(size_t(start), false, [&](std::string_view v) {
    rb.Bulk(v);
    return --left > 0;
  });
}

void LRange(ShardCmd& cmd) {
  int64_t start, end;
  if (!ParseInt64(cmd.args[2], &start) || !ParseInt64(cmd.args[3], &end)) {
    return cmd.reply.Error(err::kNotInteger);
  }
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kList, Access::kRead, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.ArrayLen(0);
  ReplyRange(cmd.reply, *e->object<List>(), start, end);
}

void LIndex(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kList, Access::kRead, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.NullBulk();
  int64_t index;
  if (!ParseInt64(cmd.args[2], &index)) return cmd.reply.Error(err::kNotInteger);
  const List& l = *e->object<List>();
  if (index < 0) index += int64_t(l.size());
  if (index < 0 || index >= int64_t(l.size())) return cmd.reply.NullBulk();
  char buf[List::kBufBytes];
  cmd.reply.Bulk(l.At(size_t(index), buf));
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
void LPos(ShardCmd& cmd) {
  int64_t rank = 1, count = -1, maxlen = 0;  // count -1: not given
  for (size_t j = 3; j < cmd.args.size(); ++j) {
    const std::string_view opt = cmd.args[j];
    const bool more = j + 1 < cmd.args.size();
    if (EqualsIgnoreCase(opt, "rank") && more) {
      if (!ParseInt64(cmd.args[++j], &rank)) return cmd.reply.Error(err::kNotInteger);
      if (rank == 0) {
        return cmd.reply.Error(
            "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second "
            "... or use negative to start from the end of the list");
      }
    } else if (EqualsIgnoreCase(opt, "count") && more) {
      if (!ParseInt64(cmd.args[++j], &count) || count < 0) {
        return cmd.reply.Error("ERR COUNT can't be negative");
      }
    } else if (EqualsIgnoreCase(opt, "maxlen") && more) {
      if (!ParseInt64(cmd.args[++j], &maxlen) || maxlen < 0) {
        return cmd.reply.Error("ERR MAXLEN can't be negative");
      }
    } else {
      return cmd.reply.Error(err::kSyntax);
    }
  }
  const bool reverse = rank < 0;
  // Redis 7.0 negates LONG_MIN into itself: every match from the tail qualifies, and its
  // wrapped COUNT arithmetic never stops early.
  if (rank == INT64_MIN) {
    rank = 1;
    if (count > 0) count = 0;
  } else if (reverse) {
    rank = -rank;
  }
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kList, Access::kRead, cmd.reply, &e)) return;
  if (e == nullptr) return count != -1 ? cmd.reply.ArrayLen(0) : cmd.reply.NullBulk();
  const List& l = *e->object<List>();
  const int64_t len = int64_t(l.size());
  std::vector<int64_t> found;
  int64_t index = 0, matches = 0;
  const std::string_view target = cmd.args[2];
  l.Walk(reverse ? l.size() - 1 : 0, reverse, [&](std::string_view v) {
    if (maxlen != 0 && index >= maxlen) return false;
    if (v == target && ++matches >= rank) {
      found.push_back(reverse ? len - index - 1 : index);
      if (count == -1 || (count != 0 && matches - rank + 1 >= count)) return false;
    }
    ++index;
    return true;
  });
  if (count == -1) return found.empty() ? cmd.reply.NullBulk() : cmd.reply.Integer(found[0]);
  cmd.reply.ArrayLen(found.size());
  for (int64_t i : found) cmd.reply.Integer(i);
}

}  // namespace

void RegisterListReadCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@list");
  f.Add(
      {.name = "lrange", .arity = 4, .flags = kCmdReadOnly, .keys = {1, 1, 1}, .on_shard = LRange});
  f.Add(
      {.name = "lindex", .arity = 3, .flags = kCmdReadOnly, .keys = {1, 1, 1}, .on_shard = LIndex});
  f.Add({.name = "lpos", .arity = -3, .flags = kCmdReadOnly, .keys = {1, 1, 1}, .on_shard = LPos});
}

}  // namespace rc
