// Hash writes: HSET, HMSET, HSETNX, HDEL, HINCRBY, HINCRBYFLOAT. Each validates its
// arguments before it changes anything, creates the hash on its first field, converts it
// as Redis 7.0 does (core/hash.h), reports the change through a ValueUpdate (memory,
// WATCH, a hash left empty is deleted) and notifies Redis's keyspace event.

#include <cmath>
#include <string>

#include "core/hash.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/errors.h"
#include "shard/command/typed_lookup.h"
#include "shard/runtime/notify.h"
#include "shard/runtime/shard.h"
#include "shard/state/server_state.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

Hash::Limits Limits(const ServerState& server) {
  return {size_t(server.config.hash_max_listpack_entries.get()),
          size_t(server.config.hash_max_listpack_value.get())};
}

// The hash at args[1] for a write, created when missing; nullptr after a WRONGTYPE reply.
Entry* HashForWrite(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kHash, Access::kWrite, cmd.reply, &e)) {
    return nullptr;
  }
  return e != nullptr ? e : cmd.shard.Add(cmd.args[1], Value::Make<Hash>());
}

// HSET key field value [field value ...] (HMSET: the same, replying OK).
template <bool kHmset>
void HSet(ShardCmd& cmd) {
  if (cmd.args.size() % 2 != 0) {
    return cmd.reply.Error(
        StrCat("ERR wrong number of arguments for '", kHmset ? "hmset" : "hset", "' command"));
  }
  Entry* e = HashForWrite(cmd);
  if (e == nullptr) return;
  const Hash::Limits limits = Limits(cmd.server);
  int64_t added = 0;
  {
    ValueUpdate update(cmd.shard, e);
    Hash& h = update.get<Hash>();
    size_t longest = 0;
    for (size_t i = 2; i < cmd.args.size(); ++i) longest = std::max(longest, cmd.args[i].size());
    h.FitLength(longest, limits);
    for (size_t i = 2; i < cmd.args.size(); i += 2) {
      added += h.Set(cmd.args[i], cmd.args[i + 1], limits) ? 1 : 0;
    }
  }
  if (kHmset) {
    cmd.reply.Ok();
  } else {
    cmd.reply.Integer(added);
  }
  // After the reply, as Redis raises it (here and in HSETNX, HINCRBY, HINCRBYFLOAT).
  cmd.shard.Notify(kNotifyHash, "hset", cmd.args[1]);
}

void HSetNx(ShardCmd& cmd) {
  Entry* e = HashForWrite(cmd);
  if (e == nullptr) return;
  const Hash::Limits limits = Limits(cmd.server);
  bool added = false;
  {
    ValueUpdate update(cmd.shard, e);
    Hash& h = update.get<Hash>();
    // Redis converts only when it is about to set the field.
    if (!h.Find(cmd.args[2])) {
      h.Set(cmd.args[2], cmd.args[3], limits);
      added = true;
    } else {
      update.NothingChanged();
    }
  }
  cmd.reply.Integer(added ? 1 : 0);
  if (added) cmd.shard.Notify(kNotifyHash, "hset", cmd.args[1]);
}

void HDel(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kHash, Access::kWrite, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.Integer(0);
  int64_t deleted = 0;
  bool exists;
  {
    ValueUpdate update(cmd.shard, e);
    Hash& h = update.get<Hash>();
    for (size_t i = 2; i < cmd.args.size(); ++i) deleted += h.Erase(cmd.args[i]) ? 1 : 0;
    if (deleted == 0) update.NothingChanged();
    exists = update.Finish();
  }
  if (deleted > 0) cmd.shard.NotifyRemoved(kNotifyHash, "hdel", cmd.args[1], !exists);
  cmd.reply.Integer(deleted);
}

void HIncrBy(ShardCmd& cmd) {
  int64_t incr;
  if (!ParseInt64(cmd.args[3], &incr)) return cmd.reply.Error(err::kNotInteger);
  Entry* e = HashForWrite(cmd);
  if (e == nullptr) return;
  ValueUpdate update(cmd.shard, e);
  Hash& h = update.get<Hash>();
  int64_t value = 0;
  std::string_view cur;
  if (h.Find(cmd.args[2], &cur) && !ParseInt64(cur, &value)) {
    update.NothingChanged();
    return cmd.reply.Error("ERR hash value is not an integer");
  }
  if ((incr < 0 && value < 0 && incr < INT64_MIN - value) ||
      (incr > 0 && value > 0 && incr > INT64_MAX - value)) {
    update.NothingChanged();
    return cmd.reply.Error(err::kOverflow);
  }
  value += incr;
  char buf[kMaxInt64Chars];
  h.Set(cmd.args[2], std::string_view(buf, size_t(FormatInt64(value, buf) - buf)),
        Limits(cmd.server));
  update.Finish();
  cmd.reply.Integer(value);
  cmd.shard.Notify(kNotifyHash, "hincrby", cmd.args[1]);
}

void HIncrByFloat(ShardCmd& cmd) {
  long double incr;
  if (!ParseLongDouble(cmd.args[3], &incr)) return cmd.reply.Error(err::kNotFloat);
  if (std::isnan(incr) || std::isinf(incr)) {
    return cmd.reply.Error("ERR value is NaN or Infinity");
  }
  Entry* e = HashForWrite(cmd);
  if (e == nullptr) return;
  ValueUpdate update(cmd.shard, e);
  Hash& h = update.get<Hash>();
  long double value = 0;
  std::string_view cur;
  if (h.Find(cmd.args[2], &cur) && !ParseLongDouble(cur, &value)) {
    update.NothingChanged();
    return cmd.reply.Error("ERR hash value is not a float");
  }
  value += incr;
  if (std::isnan(value) || std::isinf(value)) {
    update.NothingChanged();
    return cmd.reply.Error(err::kNanOrInf);
  }
  const std::string text = FormatLongDouble(value);
  h.Set(cmd.args[2], text, Limits(cmd.server));
  update.Finish();
  cmd.reply.Bulk(text);
  cmd.shard.Notify(kNotifyHash, "hincrbyfloat", cmd.args[1]);
}

}  // namespace

void RegisterHashReadCommands(CommandTable& t);

void RegisterHashCommands(CommandTable& t) {
  const uint32_t kW = kCmdWrite | kCmdDenyOom | kCmdFast;
  CommandTable::Family f = t.StartFamily("@hash");
  f.Add({.name = "hset", .arity = -4, .flags = kW, .keys = {1, 1, 1}, .on_shard = HSet<false>});
  f.Add({.name = "hmset", .arity = -4, .flags = kW, .keys = {1, 1, 1}, .on_shard = HSet<true>});
  f.Add({.name = "hsetnx", .arity = 4, .flags = kW, .keys = {1, 1, 1}, .on_shard = HSetNx});
  f.Add({.name = "hdel",
         .arity = -3,
         .flags = kCmdWrite | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = HDel});
  f.Add({.name = "hincrby", .arity = 4, .flags = kW, .keys = {1, 1, 1}, .on_shard = HIncrBy});
  f.Add({.name = "hincrbyfloat",
         .arity = 4,
         .flags = kW,
         .keys = {1, 1, 1},
         .on_shard = HIncrByFloat});
  RegisterHashReadCommands(t);
}

}  // namespace rc
