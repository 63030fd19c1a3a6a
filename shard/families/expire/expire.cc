// TTL commands: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT (NX XX GT LT), TTL, PTTL,
// EXPIRETIME, PEXPIRETIME, PERSIST, SETEX, PSETEX, GETEX. Deadlines are absolute Unix
// milliseconds; a deadline already past deletes the key, as Redis does.

#include <algorithm>

#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/arg_parser.h"
#include "shard/command/errors.h"
#include "shard/command/typed_lookup.h"
#include "shard/families/string/set_options.h"
#include "shard/runtime/shard.h"
#include "shard/state/notify_flags.h"

namespace rc {

namespace {

enum ExpireFlag { kNx = 1, kXx = 2, kGt = 4, kLt = 8 };

// EXPIRE's options, with Redis's errors: any of them in any number, checked for
// combinations after the whole list.
bool ParseExpireFlags(ArgList args, size_t start, int* flags, ReplyBuilder& reply) {
  *flags = 0;
  ArgParser p(args, start);
  while (p.HasNext()) {
    if (auto f = p.Choice<int>({{"NX", kNx}, {"XX", kXx}, {"GT", kGt}, {"LT", kLt}})) {
      *flags |= *f;
    } else {
      p.Fail(StrCat("ERR Unsupported option ", p.Peek()));
    }
  }
  if (!p.ok()) {
    reply.Error(p.error());
    return false;
  }
  if ((*flags & kNx) && (*flags & (kXx | kGt | kLt))) {
    reply.Error("ERR NX and XX, GT or LT options at the same time are not compatible");
    return false;
  }
  if ((*flags & kGt) && (*flags & kLt)) {
    reply.Error("ERR GT and LT options at the same time are not compatible");
    return false;
  }
  return true;
}

// seconds: the argument is in seconds; relative: it counts from now.
void ExpireGeneric(ShardCmd& cmd, bool seconds, bool relative) {
  int flags;
  if (!ParseExpireFlags(cmd.args, 3, &flags, cmd.reply)) return;
  int64_t when;
  if (!ParseInt64(cmd.args[2], &when)) return cmd.reply.Error(err::kNotInteger);
  const std::string_view name = cmd.args[0];
  auto invalid = [&] {
    cmd.reply.Error(StrCat("ERR invalid expire time in '", ToLower(name), "' command"));
  };
  // Negative values are allowed (they delete the key); only overflow is an error.
  if (seconds) {
    if (when > INT64_MAX / 1000 || when < INT64_MIN / 1000) return invalid();
    when *= 1000;
  }
  int64_t now = cmd.shard.NowMs();
  if (relative) {
    if (when > INT64_MAX - now) return invalid();
    when += now;
  }
  Entry* e = cmd.shard.Find(cmd.args[1]);
  if (e == nullptr) return cmd.reply.Integer(0);
  const bool has = e->has_ttl();
  const int64_t current = has ? e->deadline() : 0;
  if ((flags & kNx) && has) return cmd.reply.Integer(0);
  if ((flags & kXx) && !has) return cmd.reply.Integer(0);
  // No TTL counts as an infinite one: GT never beats it, LT always does.
  if ((flags & kGt) && (!has || when <= current)) return cmd.reply.Integer(0);
  if ((flags & kLt) && has && when >= current) return cmd.reply.Integer(0);
  // Redis raises "del" before its reply and "expire" after it.
  if (when <= now) {
    cmd.shard.Delete(cmd.args[1]);
    cmd.shard.Notify(kNotifyGeneric, "del", cmd.args[1]);
    return cmd.reply.Integer(1);
  }
  cmd.shard.SetDeadline(e, when);
  cmd.reply.Integer(1);
  cmd.shard.Notify(kNotifyGeneric, "expire", cmd.args[1]);
}

void Expire(ShardCmd& cmd) { ExpireGeneric(cmd, true, true); }
void PExpire(ShardCmd& cmd) { ExpireGeneric(cmd, false, true); }
void ExpireAt(ShardCmd& cmd) { ExpireGeneric(cmd, true, false); }
void PExpireAt(ShardCmd& cmd) { ExpireGeneric(cmd, false, false); }

// -2: no such key, -1: no TTL; else what `present` makes of the deadline.
template <typename Present>
void ReplyTtl(ShardCmd& cmd, Present present) {
  Entry* e = cmd.shard.FindForRead(cmd.args[1]);
  if (e == nullptr) return cmd.reply.Integer(-2);
  if (!e->has_ttl()) return cmd.reply.Integer(-1);
  cmd.reply.Integer(present(e->deadline(), cmd.shard.NowMs()));
}

void Ttl(ShardCmd& cmd) {
  ReplyTtl(cmd,
           [](int64_t at, int64_t now) { return (std::max<int64_t>(at - now, 0) + 500) / 1000; });
}
void PTtl(ShardCmd& cmd) {
  ReplyTtl(cmd, [](int64_t at, int64_t now) { return std::max<int64_t>(at - now, 0); });
}
void ExpireTime(ShardCmd& cmd) {
  // Rounded to the nearest second, as Redis does.
  ReplyTtl(cmd, [](int64_t at, int64_t) { return (at + 500) / 1000; });
}
void PExpireTime(ShardCmd& cmd) {
  ReplyTtl(cmd, [](int64_t at, int64_t) { return at; });
}

void Persist(ShardCmd& cmd) {
  Entry* e = cmd.shard.Find(cmd.args[1]);
  if (e == nullptr || !e->has_ttl()) return cmd.reply.Integer(0);
  cmd.shard.Persist(e);
  cmd.shard.Notify(kNotifyGeneric, "persist", cmd.args[1]);
  cmd.reply.Integer(1);
}

// SETEX key seconds value, PSETEX key milliseconds value.
void SetExGeneric(ShardCmd& cmd, bool seconds) {
  int64_t at;
  std::string error;
  if (!ParseExpireArg(cmd.args[2], seconds, /*relative=*/true, cmd.shard.NowMs(),
                      ToLower(cmd.args[0]), &at, &error)) {
    return cmd.reply.Error(error);
  }
  cmd.shard.SetString(cmd.args[1], cmd.args[3], TtlMode::kSet, at);
  cmd.shard.Notify(kNotifyString, "set", cmd.args[1]);
  cmd.shard.Notify(kNotifyGeneric, "expire", cmd.args[1]);
  cmd.reply.Ok();
}

void SetEx(ShardCmd& cmd) { SetExGeneric(cmd, true); }
void PSetEx(ShardCmd& cmd) { SetExGeneric(cmd, false); }

// GETEX key [EX s | PX ms | EXAT unix-s | PXAT unix-ms | PERSIST]. Redis's order of checks:
// option syntax, then the key (nil, WRONGTYPE), then the expire value.
void GetEx(ShardCmd& cmd) {
  ArgParser p(cmd.args, 2);
  SetOptions opts;
  ParseSetOptions(p, SetCommand::kGetEx, &opts);
  if (!p.ok()) return cmd.reply.Error(p.error());
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kString, Access::kRead, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.NullBulk();
  int64_t now = cmd.shard.NowMs();
  int64_t at = 0;
  std::string error;
  if (!opts.Deadline(now, "getex", &at, &error)) return cmd.reply.Error(error);
  cmd.reply.Bulk(e->str());
  // Events after the reply, as Redis raises them; PERSIST of a key without a TTL is none.
  if (opts.unit == ExpireUnit::kPersist) {
    if (!e->has_ttl()) return;
    cmd.shard.Persist(e);
    cmd.shard.Notify(kNotifyGeneric, "persist", cmd.args[1]);
  } else if (opts.has_expire()) {
    if (at <= now) {
      cmd.shard.Delete(cmd.args[1]);
      cmd.shard.Notify(kNotifyGeneric, "del", cmd.args[1]);
    } else {
      cmd.shard.SetDeadline(e, at);
      cmd.shard.Notify(kNotifyGeneric, "expire", cmd.args[1]);
    }
  }
}

}  // namespace

void RegisterExpireCommands(CommandTable& t) {
  const uint32_t kW = kCmdWrite | kCmdFast;
  const uint32_t kR = kCmdReadOnly | kCmdFast;
  CommandTable::Family k = t.StartFamily("@keyspace");
  k.Add({.name = "expire", .arity = -3, .flags = kW, .keys = {1, 1, 1}, .on_shard = Expire});
  k.Add({.name = "pexpire", .arity = -3, .flags = kW, .keys = {1, 1, 1}, .on_shard = PExpire});
  k.Add({.name = "expireat", .arity = -3, .flags = kW, .keys = {1, 1, 1}, .on_shard = ExpireAt});
  k.Add({.name = "pexpireat", .arity = -3, .flags = kW, .keys = {1, 1, 1}, .on_shard = PExpireAt});
  k.Add({.name = "ttl", .arity = 2, .flags = kR, .keys = {1, 1, 1}, .on_shard = Ttl});
  k.Add({.name = "pttl", .arity = 2, .flags = kR, .keys = {1, 1, 1}, .on_shard = PTtl});
  k.Add({.name = "expiretime", .arity = 2, .flags = kR, .keys = {1, 1, 1}, .on_shard = ExpireTime});
  k.Add(
      {.name = "pexpiretime", .arity = 2, .flags = kR, .keys = {1, 1, 1}, .on_shard = PExpireTime});
  k.Add({.name = "persist", .arity = 2, .flags = kW, .keys = {1, 1, 1}, .on_shard = Persist});
  // The string commands that set a TTL are Redis's @string.
  CommandTable::Family s = t.StartFamily("@string");
  s.Add({.name = "setex",
         .arity = 4,
         .flags = kCmdWrite | kCmdDenyOom,
         .keys = {1, 1, 1},
         .on_shard = SetEx});
  s.Add({.name = "psetex",
         .arity = 4,
         .flags = kCmdWrite | kCmdDenyOom,
         .keys = {1, 1, 1},
         .on_shard = PSetEx});
  s.Add({.name = "getex", .arity = -2, .flags = kW, .keys = {1, 1, 1}, .on_shard = GetEx});
}

}  // namespace rc
