// DUMP key / RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME s] [FREQ f]: a key's
// value as Redis's DUMP payload (core/rdb_value.h: the RDB body, RDB version 10 and
// CRC-64), so payloads move between ringcache and redis-server both ways. Both run on the
// key's shard; RESTORE builds the value there, as Redis does in its main thread.
//
// RESTORE checks in Redis 7.0's order (restoreCommand): the options, then BUSYKEY, the
// TTL, the footer, the body; it then raises "new" and "restore" (or, for a TTL already
// past with REPLACE of an existing key, only deletes it: "del").

#include "core/entry.h"
#include "core/numbers.h"
#include "core/rdb_value.h"
#include "core/strings.h"
#include "shard/command/errors.h"
#include "shard/runtime/notify.h"
#include "shard/runtime/shard.h"
#include "shard/state/rdb_settings.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

constexpr std::string_view kBusyKey = "BUSYKEY Target key name already exists.";
constexpr std::string_view kBadTtl = "ERR Invalid TTL value, must be >= 0";
constexpr std::string_view kBadPayload = "ERR DUMP payload version or checksum are wrong";
constexpr std::string_view kBadData = "ERR Bad data format";
constexpr std::string_view kBadIdle = "ERR Invalid IDLETIME value, must be >= 0";
constexpr std::string_view kBadFreq = "ERR Invalid FREQ value, must be >= 0 and <= 255";

void Dump(ShardCmd& cmd) {
  const Entry* e = cmd.shard.FindForRead(cmd.args[1]);
  if (e == nullptr) return cmd.reply.NullBulk();
  cmd.reply.Bulk(RdbDumpPayload(*e, RdbCompression(cmd.server)));
}

struct RestoreOptions {
  bool replace = false;
  bool absttl = false;
  int64_t idle = -1;  // IDLETIME seconds, -1 when not given
  int64_t freq = -1;  // FREQ counter, -1 when not given
};

// Redis's option loop: IDLETIME and FREQ exclude each other (the second is a syntax
// error), a value that is not an integer is refused as such. False (having replied) on
// an error.
bool ParseRestoreOptions(ArgList args, RestoreOptions* o, ReplyBuilder& reply) {
  for (size_t j = 4; j < args.size(); ++j) {
    const bool more = j + 1 < args.size();
    const std::string_view a = args[j];
    int64_t* target = nullptr;
    if (EqualsIgnoreCase(a, "replace")) {
      o->replace = true;
    } else if (EqualsIgnoreCase(a, "absttl")) {
      o->absttl = true;
    } else if (EqualsIgnoreCase(a, "idletime") && more && o->freq == -1) {
      target = &o->idle;
    } else if (EqualsIgnoreCase(a, "freq") && more && o->idle == -1) {
      target = &o->freq;
    } else {
      reply.Error(err::kSyntax);
      return false;
    }
    if (target == nullptr) continue;
    if (!ParseInt64(args[++j], target)) {
      reply.Error(err::kNotInteger);
      return false;
    }
    if (*target < 0 || (target == &o->freq && *target > 255)) {
      reply.Error(target == &o->idle ? kBadIdle : kBadFreq);
      return false;
    }
  }
  return true;
}

// The payload's value as an entry under `key`; false on a payload Redis would refuse
// ("Bad data format"). Bytes between the value and the footer are ignored, as Redis's
// restoreCommand does.
bool DecodePayload(std::string_view key, std::string_view payload, const ServerState& server,
                   EntryPtr* out, bool with_ttl) {
  RdbReader in(payload.substr(0, payload.size() - 10));
  uint8_t type = 0;
  RdbObject obj;
  std::string error;
  if (!in.ReadByte(&type) || !RdbReadObject(type, in, RdbLimitsOf(server), &obj, &error)) {
    return false;
  }
  *out = obj.type == ValueType::kString ? Entry::MakeString(key, obj.str, 0, with_ttl)
                                        : Entry::MakeValue(key, std::move(obj.obj), with_ttl);
  return true;
}

// Redis's objectSetLRUOrLFU, on ringcache's eviction state (2 bits of hits, no clock:
// docs/EVICTION.md): a key restored idle starts cold; FREQ's logarithmic counter (5 for
// a new key) maps onto the hits.
void SetAccessHistory(Entry* e, const RestoreOptions& o) {
  if (o.idle > 0) e->set_hits(0);
  if (o.freq >= 0) e->set_hits(o.freq <= 5 ? 0 : o.freq < 16 ? 1 : o.freq < 64 ? 2 : 3);
}

void Restore(ShardCmd& cmd) {
  RestoreOptions o;
  if (!ParseRestoreOptions(cmd.args, &o, cmd.reply)) return;
  const std::string_view key = cmd.args[1];
  const bool exists = cmd.shard.Find(key) != nullptr;
  if (exists && !o.replace) return cmd.reply.Error(kBusyKey);
  int64_t ttl = 0;
  if (!ParseInt64(cmd.args[2], &ttl)) return cmd.reply.Error(err::kNotInteger);
  if (ttl < 0) return cmd.reply.Error(kBadTtl);
  const std::string_view payload = cmd.args[3];
  uint16_t version = 0;
  if (!VerifyDumpFooter(payload, &version)) return cmd.reply.Error(kBadPayload);
  EntryPtr entry;
  if (!DecodePayload(key, payload, cmd.server, &entry, ttl != 0)) {
    return cmd.reply.Error(kBadData);
  }
  const int64_t now = cmd.shard.NowMs();
  // A relative TTL that overflows wraps negative in Redis's ttl + mstime(): already past.
  const bool overflow = !o.absttl && ttl > INT64_MAX - now;
  const int64_t deadline = o.absttl ? ttl : overflow ? 0 : now + ttl;
  if (ttl != 0 && deadline <= now) {
    if (exists && cmd.shard.Delete(key)) cmd.shard.Notify(kNotifyGeneric, "del", key);
    return cmd.reply.Ok();
  }
  if (ttl != 0) entry->set_deadline(deadline);
  cmd.shard.Put(key, std::move(entry));
  SetAccessHistory(cmd.shard.Find(key), o);
  cmd.shard.Notify(kNotifyGeneric, "restore", key);
  cmd.reply.Ok();
}

}  // namespace

void RegisterMigrateCommands(CommandTable& t);

void RegisterDumpCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@keyspace");
  f.Add({.name = "dump", .arity = 2, .flags = kCmdReadOnly, .keys = {1, 1, 1}, .on_shard = Dump});
  f.Add({.name = "restore",
         .arity = -4,
         .flags = kCmdWrite | kCmdDenyOom,
         .keys = {1, 1, 1},
         .on_shard = Restore,
         .categories = {"@dangerous"}});
  // What a cluster node's MIGRATE sends (Redis's restore-asking: RESTORE allowed on a slot
  // being imported). ringcache moves no slots: it is RESTORE.
  f.Add({.name = "restore-asking",
         .arity = -4,
         .flags = kCmdWrite | kCmdDenyOom | kCmdAsking,
         .keys = {1, 1, 1},
         .on_shard = Restore,
         .categories = {"@dangerous"}});
  RegisterMigrateCommands(t);
}

}  // namespace rc
