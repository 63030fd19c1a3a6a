// String commands: GET/SET and friends, counters, ranges, and the multi-key MGET, MSET
// and MSETNX (which fan out when their keys live on several shards).

#include <cstring>
#include <optional>

#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/arg_parser.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/errors.h"
#include "shard/command/key_groups.h"
#include "shard/command/multi_shard.h"
#include "shard/command/typed_lookup.h"
#include "shard/families/string/set_options.h"
#include "shard/families/string/string_space.h"
#include "shard/runtime/fanout.h"
#include "shard/runtime/shard.h"
#include "shard/state/notify_flags.h"
#include "shard/state/server_state.h"

namespace rc {

namespace {

// A plain write of a string (SET, MSET, GETSET, ...): "set", as Redis raises it.
void SetNotify(Shard& shard, std::string_view key, std::string_view value) {
  shard.SetString(key, value);
  shard.Notify(kNotifyString, "set", key);
}

void Get(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kString, Access::kRead, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.NullBulk();
  cmd.reply.Bulk(e->str());
}

void Set(ShardCmd& cmd) {
  ArgParser p(cmd.args, 3);
  SetOptions opts;
  ParseSetOptions(p, SetCommand::kSet, &opts);
  if (!p.ok()) return cmd.reply.Error(p.error());
  int64_t at = 0;
  std::string error;
  if (!opts.Deadline(cmd.shard.NowMs(), "set", &at, &error)) return cmd.reply.Error(error);
  Shard& shard = cmd.shard;
  std::string_view key = cmd.args[1];
  // With GET, a read as GET's (a hit or a miss).
  Entry* old = opts.get ? shard.FindForRead(key) : shard.Find(key);
  if (opts.get && old != nullptr && old->type() != ValueType::kString) {
    return cmd.reply.Error(err::kWrongType);
  }
  bool blocked = (opts.nx && old != nullptr) || (opts.xx && old == nullptr);
  if (opts.get) {
    // Reply with the old value whether or not the condition let the write happen.
    if (old == nullptr) {
      cmd.reply.NullBulk();
    } else {
      cmd.reply.Bulk(old->str());
    }
  }
  if (blocked) {
    if (!opts.get) cmd.reply.NullBulk();
    return;
  }
  // The reply above may still point into `old`: it has been copied out already.
  TtlMode ttl = opts.has_expire() ? TtlMode::kSet
                : opts.keep_ttl   ? TtlMode::kKeep
                                  : TtlMode::kClear;
  shard.SetString(key, cmd.args[2], ttl, at);
  // Before the reply, or after it with GET, as in Redis.
  shard.Notify(kNotifyString, "set", key);
  if (opts.has_expire()) shard.Notify(kNotifyGeneric, "expire", key);
  if (!opts.get) cmd.reply.Ok();
}

void SetNx(ShardCmd& cmd) {
  if (cmd.shard.Find(cmd.args[1]) != nullptr) return cmd.reply.Integer(0);
  SetNotify(cmd.shard, cmd.args[1], cmd.args[2]);
  cmd.reply.Integer(1);
}

void GetSet(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kString, Access::kRead, cmd.reply, &e)) return;
  if (e == nullptr) {
    cmd.reply.NullBulk();
  } else {
    cmd.reply.Bulk(e->str());
  }
  SetNotify(cmd.shard, cmd.args[1], cmd.args[2]);
}

void GetDel(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kString, Access::kRead, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.NullBulk();
  cmd.reply.Bulk(e->str());
  cmd.shard.Delete(cmd.args[1]);
  cmd.shard.Notify(kNotifyGeneric, "del", cmd.args[1]);
}

void Strlen(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kString, Access::kRead, cmd.reply, &e)) return;
  cmd.reply.Integer(e == nullptr ? 0 : int64_t(e->str().size()));
}

void IncrByGeneric(ShardCmd& cmd, int64_t delta) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kString, Access::kWrite, cmd.reply, &e)) return;
  int64_t cur = 0;
  if (e != nullptr && !ParseInt64(e->str(), &cur)) return cmd.reply.Error(err::kNotInteger);
  if ((delta < 0 && cur < 0 && delta < INT64_MIN - cur) ||
      (delta > 0 && cur > 0 && delta > INT64_MAX - cur)) {
    return cmd.reply.Error(err::kOverflow);
  }
  int64_t next = cur + delta;
  char buf[24];
  char* end = FormatInt64(next, buf);
  cmd.shard.SetString(cmd.args[1], std::string_view(buf, end - buf), TtlMode::kKeep);
  cmd.shard.Notify(kNotifyString, "incrby", cmd.args[1]);  // INCR and DECR* too
  cmd.reply.Integer(next);
}

void Incr(ShardCmd& cmd) { IncrByGeneric(cmd, 1); }
void Decr(ShardCmd& cmd) { IncrByGeneric(cmd, -1); }

void IncrBy(ShardCmd& cmd) {
  int64_t delta;
  if (!ParseInt64(cmd.args[2], &delta)) return cmd.reply.Error(err::kNotInteger);
  IncrByGeneric(cmd, delta);
}

void DecrBy(ShardCmd& cmd) {
  int64_t delta;
  if (!ParseInt64(cmd.args[2], &delta)) return cmd.reply.Error(err::kNotInteger);
  // Redis refuses to negate the one value that has no positive twin.
  if (delta == INT64_MIN) return cmd.reply.Error("ERR decrement would overflow");
  IncrByGeneric(cmd, -delta);
}

void IncrByFloat(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kString, Access::kWrite, cmd.reply, &e)) return;
  long double cur = 0, incr;
  if (e != nullptr && !ParseLongDouble(e->str(), &cur)) return cmd.reply.Error(err::kNotFloat);
  if (!ParseLongDouble(cmd.args[2], &incr)) return cmd.reply.Error(err::kNotFloat);
  long double next = cur + incr;
  if (std::isnan(next) || std::isinf(next)) return cmd.reply.Error(err::kNanOrInf);
  std::string text = FormatLongDouble(next);
  cmd.shard.SetString(cmd.args[1], text, TtlMode::kKeep);
  cmd.shard.Notify(kNotifyString, "incrbyfloat", cmd.args[1]);
  cmd.reply.Bulk(text);
}

bool CheckStringLength(const ServerState& server, uint64_t len, ReplyBuilder& reply) {
  if (len > uint64_t(server.config.proto_max_bulk_len)) {
    reply.Error(err::kStringTooLong);
    return false;
  }
  return true;
}

void Append(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kString, Access::kWrite, cmd.reply, &e)) return;
  std::string_view tail = cmd.args[2];
  if (e == nullptr) {
    cmd.shard.SetString(cmd.args[1], tail);
    cmd.shard.Notify(kNotifyString, "append", cmd.args[1]);
    return cmd.reply.Integer(int64_t(tail.size()));
  }
  size_t old_len = e->str().size();
  if (!CheckStringLength(cmd.server, old_len + tail.size(), cmd.reply)) return;
  e = EnsureCapacity(cmd.shard, e, old_len + tail.size());
  std::memcpy(e->MutableStr() + old_len, tail.data(), tail.size());
  e->SetStrLen(old_len + tail.size());
  cmd.shard.KeyModified(cmd.args[1]);
  cmd.shard.Notify(kNotifyString, "append", cmd.args[1]);
  cmd.reply.Integer(int64_t(old_len + tail.size()));
}

void GetRange(ShardCmd& cmd) {
  int64_t start, end;
  if (!ParseInt64(cmd.args[2], &start) || !ParseInt64(cmd.args[3], &end)) {
    return cmd.reply.Error(err::kNotInteger);
  }
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kString, Access::kRead, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.Bulk("");
  std::string_view s = e->str();
  int64_t len = int64_t(s.size());
  if (start < 0 && end < 0 && start > end) return cmd.reply.Bulk("");
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= len) end = len - 1;
  if (start > end || len == 0) return cmd.reply.Bulk("");
  cmd.reply.Bulk(s.substr(size_t(start), size_t(end - start + 1)));
}

void SetRange(ShardCmd& cmd) {
  int64_t offset;
  if (!ParseInt64(cmd.args[2], &offset)) return cmd.reply.Error(err::kNotInteger);
  if (offset < 0) return cmd.reply.Error(err::kOffsetRange);
  std::string_view value = cmd.args[3];
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kString, Access::kWrite, cmd.reply, &e)) return;
  if (e == nullptr) {
    // An empty write to a missing key creates nothing.
    if (value.empty()) return cmd.reply.Integer(0);
    if (!CheckStringLength(cmd.server, uint64_t(offset) + value.size(), cmd.reply)) return;
    std::string buf(size_t(offset), '\0');
    buf.append(value);
    cmd.shard.SetString(cmd.args[1], buf);
    cmd.shard.Notify(kNotifyString, "setrange", cmd.args[1]);
    return cmd.reply.Integer(int64_t(buf.size()));
  }
  size_t old_len = e->str().size();
  if (value.empty()) return cmd.reply.Integer(int64_t(old_len));
  if (!CheckStringLength(cmd.server, uint64_t(offset) + value.size(), cmd.reply)) return;
  size_t new_len = std::max(old_len, size_t(offset) + value.size());
  e = EnsureCapacity(cmd.shard, e, new_len);
  char* p = e->MutableStr();
  if (size_t(offset) > old_len) std::memset(p + old_len, 0, size_t(offset) - old_len);
  std::memcpy(p + offset, value.data(), value.size());
  e->SetStrLen(new_len);
  cmd.shard.KeyModified(cmd.args[1]);
  cmd.shard.Notify(kNotifyString, "setrange", cmd.args[1]);
  cmd.reply.Integer(int64_t(new_len));
}

// ---- multi-key ----

using MaybeString = std::optional<std::string>;

void ReplyMGet(ReplyBuilder& reply, const std::vector<MaybeString>& values) {
  reply.ArrayLen(values.size());
  for (const auto& v : values) {
    if (v) {
      reply.Bulk(*v);
    } else {
      reply.NullBulk();
    }
  }
}

// Non-string values read as nil, as in Redis.
MaybeString ReadForMGet(Shard& shard, std::string_view key) {
  Entry* e = shard.FindForRead(key);
  if (e == nullptr || e->type() != ValueType::kString) return std::nullopt;
  return std::string(e->str());
}

void MGet(ShardCmd& cmd) {
  cmd.reply.ArrayLen(cmd.args.size() - 1);
  for (size_t i = 1; i < cmd.args.size(); ++i) {
    Entry* e = cmd.shard.FindForRead(cmd.args[i]);
    if (e == nullptr || e->type() != ValueType::kString) {
      cmd.reply.NullBulk();
    } else {
      cmd.reply.Bulk(e->str());
    }
  }
}

void MGetCoord(CoordCmd& cmd) {
  auto groups = std::make_shared<const KeyGroups>(cmd.shards, cmd.args, 1, 1);
  DeferredReply out(cmd);
  LockedFanOut<std::vector<MaybeString>>(
      cmd, LockKeys(groups),
      [groups](Shard& shard, size_t gi) {
        std::vector<MaybeString> values;
        for (const auto& key : groups->Args(gi)) values.push_back(ReadForMGet(shard, key));
        return values;
      },
      [groups, out](std::vector<std::vector<MaybeString>>& parts) {
        std::vector<MaybeString> values(groups->item_count());
        for (size_t gi = 0; gi < parts.size(); ++gi) {
          for (size_t k = 0; k < parts[gi].size(); ++k) {
            values[groups->Items(gi)[k]] = std::move(parts[gi][k]);
          }
        }
        out.Send([&](ReplyBuilder& rb) { ReplyMGet(rb, values); });
      });
}

bool PairsOk(ArgList args, std::string_view name, ReplyBuilder& reply) {
  if (args.size() % 2 == 1) return true;
  reply.Error(StrCat("ERR wrong number of arguments for '", name, "' command"));
  return false;
}

void MSet(ShardCmd& cmd) {
  if (!PairsOk(cmd.args, "mset", cmd.reply)) return;
  for (size_t i = 1; i + 1 < cmd.args.size(); i += 2) {
    SetNotify(cmd.shard, cmd.args[i], cmd.args[i + 1]);
  }
  cmd.reply.Ok();
}

void MSetCoord(CoordCmd& cmd) {
  if (!PairsOk(cmd.args, "mset", cmd.reply)) return;
  auto groups = std::make_shared<const KeyGroups>(cmd.shards, cmd.args, 1, 2);
  DeferredReply out(cmd);
  LockedFanOut<bool>(
      cmd, LockKeys(groups),
      [groups](Shard& shard, size_t gi) {
        const auto& kv = groups->Args(gi);
        for (size_t i = 0; i + 1 < kv.size(); i += 2) SetNotify(shard, kv[i], kv[i + 1]);
        return true;
      },
      [out](std::vector<bool>&) { out.Send([](ReplyBuilder& rb) { rb.Ok(); }); });
}

void MSetNx(ShardCmd& cmd) {
  if (!PairsOk(cmd.args, "msetnx", cmd.reply)) return;
  for (size_t i = 1; i < cmd.args.size(); i += 2) {
    if (cmd.shard.Find(cmd.args[i]) != nullptr) return cmd.reply.Integer(0);
  }
  for (size_t i = 1; i + 1 < cmd.args.size(); i += 2) {
    SetNotify(cmd.shard, cmd.args[i], cmd.args[i + 1]);
  }
  cmd.reply.Integer(1);
}

// Keys on several shards: with every key locked, check every shard, then write (if
// none existed) and release.
void MSetNxCoord(CoordCmd& cmd) {
  if (!PairsOk(cmd.args, "msetnx", cmd.reply)) return;
  auto groups = std::make_shared<const KeyGroups>(cmd.shards, cmd.args, 1, 2);
  DeferredReply out(cmd);
  LockedReadThenWrite(
      cmd, LockKeys(groups),
      [groups](Shard& shard, size_t gi) {
        const auto& kv = groups->Args(gi);
        for (size_t i = 0; i < kv.size(); i += 2) {
          if (shard.Find(kv[i]) != nullptr) return true;
        }
        return false;
      },
      [](std::vector<bool>& exists) {
        bool write = true;
        for (bool any : exists) write &= !any;
        return write;
      },
      [groups](Shard& shard, size_t gi, bool write) {
        const auto& kv = groups->Args(gi);
        for (size_t i = 0; write && i + 1 < kv.size(); i += 2) SetNotify(shard, kv[i], kv[i + 1]);
      },
      [out](bool write) { out.Send([write](ReplyBuilder& rb) { rb.Integer(write ? 1 : 0); }); });
}

}  // namespace

void RegisterLcsCommands(CommandTable& t);

void RegisterStringCommands(CommandTable& t) {
  const uint32_t kW = kCmdWrite | kCmdDenyOom;
  const uint32_t kR = kCmdReadOnly;
  CommandTable::Family f = t.StartFamily("@string");
  f.Add({.name = "get", .arity = 2, .flags = kR | kCmdFast, .keys = {1, 1, 1}, .on_shard = Get});
  f.Add({.name = "set", .arity = -3, .flags = kW, .keys = {1, 1, 1}, .on_shard = Set});
  f.Add(
      {.name = "setnx", .arity = 3, .flags = kW | kCmdFast, .keys = {1, 1, 1}, .on_shard = SetNx});
  f.Add({.name = "getset",
         .arity = 3,
         .flags = kW | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = GetSet});
  f.Add({.name = "getdel",
         .arity = 2,
         .flags = kCmdWrite | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = GetDel});
  f.Add({.name = "strlen",
         .arity = 2,
         .flags = kR | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = Strlen});
  f.Add({.name = "incr", .arity = 2, .flags = kW | kCmdFast, .keys = {1, 1, 1}, .on_shard = Incr});
  f.Add({.name = "decr", .arity = 2, .flags = kW | kCmdFast, .keys = {1, 1, 1}, .on_shard = Decr});
  f.Add({.name = "incrby",
         .arity = 3,
         .flags = kW | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = IncrBy});
  f.Add({.name = "decrby",
         .arity = 3,
         .flags = kW | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = DecrBy});
  f.Add({.name = "incrbyfloat",
         .arity = 3,
         .flags = kW | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = IncrByFloat});
  f.Add({.name = "append",
         .arity = 3,
         .flags = kW | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = Append});
  f.Add({.name = "getrange", .arity = 4, .flags = kR, .keys = {1, 1, 1}, .on_shard = GetRange});
  // SUBSTR is GETRANGE's old name, still served by Redis 7.0.
  f.Add({.name = "substr", .arity = 4, .flags = kR, .keys = {1, 1, 1}, .on_shard = GetRange});
  f.Add({.name = "setrange", .arity = 4, .flags = kW, .keys = {1, 1, 1}, .on_shard = SetRange});
  f.Add({.name = "mget",
         .arity = -2,
         .flags = kR | kCmdFast,
         .keys = {1, -1, 1},
         .on_shard = MGet,
         .on_coord = MGetCoord});
  f.Add({.name = "mset",
         .arity = -3,
         .flags = kW,
         .keys = {1, -1, 2},
         .on_shard = MSet,
         .on_coord = MSetCoord});
  f.Add({.name = "msetnx",
         .arity = -3,
         .flags = kW,
         .keys = {1, -1, 2},
         .on_shard = MSetNx,
         .on_coord = MSetNxCoord});
  RegisterLcsCommands(t);
}

}  // namespace rc
