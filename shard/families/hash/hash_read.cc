// Hash reads: HGET, HMGET, HGETALL, HKEYS, HVALS, HEXISTS, HLEN, HSTRLEN, HRANDFIELD,
// HSCAN. A missing key reads as an empty hash; another type is WRONGTYPE. A compact hash
// answers in insertion order, as Redis's listpack does.

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "core/hash.h"
#include "core/numbers.h"
#include "shard/command/arg_parser.h"
#include "shard/command/errors.h"
#include "shard/command/value_scan.h"
#include "shard/command/typed_lookup.h"
#include "shard/runtime/shard.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

void HGet(ShardCmd& cmd) {
  bool ok;
  const Hash* h = ReadObject<Hash>(cmd, &ok);
  if (!ok) return;
  std::string_view v;
  if (h == nullptr || !h->Find(cmd.args[2], &v)) return cmd.reply.NullBulk();
  cmd.reply.Bulk(v);
}

void HMGet(ShardCmd& cmd) {
  bool ok;
  const Hash* h = ReadObject<Hash>(cmd, &ok);
  if (!ok) return;
  cmd.reply.ArrayLen(cmd.args.size() - 2);
  for (size_t i = 2; i < cmd.args.size(); ++i) {
    std::string_view v;
    if (h != nullptr && h->Find(cmd.args[i], &v)) {
      cmd.reply.Bulk(v);
    } else {
      cmd.reply.NullBulk();
    }
  }
}

enum class Part { kFields, kValues, kBoth };

template <Part kPart>
void HGetAll(ShardCmd& cmd) {
  bool ok;
  const Hash* h = ReadObject<Hash>(cmd, &ok);
  if (!ok) return;
  const size_t n = h == nullptr ? 0 : h->size();
  if (kPart == Part::kBoth) {
    cmd.reply.MapLen(n);
  } else {
    cmd.reply.ArrayLen(n);
  }
  if (h == nullptr) return;
  h->ForEach([&](std::string_view f, std::string_view v) {
    if (kPart != Part::kValues) cmd.reply.Bulk(f);
    if (kPart != Part::kFields) cmd.reply.Bulk(v);
  });
}

void HExists(ShardCmd& cmd) {
  bool ok;
  const Hash* h = ReadObject<Hash>(cmd, &ok);
  if (!ok) return;
  cmd.reply.Integer(h != nullptr && h->Find(cmd.args[2]) ? 1 : 0);
}

void HLen(ShardCmd& cmd) {
  bool ok;
  const Hash* h = ReadObject<Hash>(cmd, &ok);
  if (!ok) return;
  cmd.reply.Integer(h == nullptr ? 0 : int64_t(h->size()));
}

void HStrLen(ShardCmd& cmd) {
  bool ok;
  const Hash* h = ReadObject<Hash>(cmd, &ok);
  if (!ok) return;
  std::string_view v;
  cmd.reply.Integer(h != nullptr && h->Find(cmd.args[2], &v) ? int64_t(v.size()) : 0);
}

// One field (and its value) of HRANDFIELD's reply; RESP3 pairs them.
void ReplyPair(ReplyBuilder& reply, std::string_view f, std::string_view v, bool withvalues) {
  if (withvalues && reply.resp3()) reply.ArrayLen(2);
  reply.Bulk(f);
  if (withvalues) reply.Bulk(v);
}

void PairsLen(ReplyBuilder& reply, size_t n, bool withvalues) {
  reply.ArrayLen(withvalues && !reply.resp3() ? 2 * n : n);
}

// HRANDFIELD key [count [WITHVALUES]], as Redis 7.0's hrandfieldCommand.
void HRandField(ShardCmd& cmd) {
  auto& rng = cmd.shard.rng();
  if (cmd.args.size() == 2) {
    bool ok;
    const Hash* h = ReadObject<Hash>(cmd, &ok);
    if (!ok) return;
    if (h == nullptr) return cmd.reply.NullBulk();
    std::string f;
    h->Random(rng, &f);
    return cmd.reply.Bulk(f);
  }
  ArgParser p(cmd.args, 2);
  const int64_t l = p.NextInRange(-INT64_MAX, INT64_MAX);
  const bool withvalues = p.Flag("WITHVALUES");
  if (!p.Finish()) return cmd.reply.Error(p.error());
  if (withvalues && (l < -(INT64_MAX / 2) || l > INT64_MAX / 2)) {
    return cmd.reply.Error("ERR value is out of range");
  }
  bool ok;
  const Hash* h = ReadObject<Hash>(cmd, &ok);
  if (!ok) return;
  if (h == nullptr || l == 0) return cmd.reply.ArrayLen(0);
  const size_t size = h->size();
  const uint64_t count = l > 0 ? uint64_t(l) : uint64_t(-l);
  if (l < 0) {
    // Repeats allowed: independent draws.
    PairsLen(cmd.reply, count, withvalues);
    std::string f, v;
    for (uint64_t i = 0; i < count; ++i) {
      h->Random(rng, &f, &v);
      ReplyPair(cmd.reply, f, v, withvalues);
    }
    return;
  }
  if (count >= size) {
    // The whole hash, in its order, as Redis sends it.
    PairsLen(cmd.reply, size, withvalues);
    h->ForEach(
        [&](std::string_view f, std::string_view v) { ReplyPair(cmd.reply, f, v, withvalues); });
    return;
  }
  std::vector<std::pair<std::string, std::string>> picked;
  if (count * 3 > size) {
    // Near the hash's size: a partial Fisher-Yates shuffle over every field.
    picked.reserve(size);
    h->ForEach([&](std::string_view f, std::string_view v) { picked.emplace_back(f, v); });
    for (size_t i = 0; i < count; ++i) {
      std::swap(picked[i], picked[absl::Uniform<size_t>(rng, i, size)]);
    }
    picked.resize(count);
  } else {
    // Few of many: random draws, deduplicated.
    absl::flat_hash_set<std::string> seen;
    std::string f, v;
    while (picked.size() < count) {
      h->Random(rng, &f, &v);
      if (seen.insert(f).second) picked.emplace_back(f, v);
    }
  }
  PairsLen(cmd.reply, count, withvalues);
  for (const auto& [f, v] : picked) ReplyPair(cmd.reply, f, v, withvalues);
}

void HScan(ShardCmd& cmd) {
  ScanValue<Hash>(cmd, [](const Hash& h, uint64_t cursor, size_t count, ScanPage& page) {
    return h.Scan(cursor, count,
                  [&](std::string_view f, std::string_view v) { page.Add(f, std::string(v)); });
  });
}

}  // namespace

void RegisterHashReadCommands(CommandTable& t) {
  const uint32_t kR = kCmdReadOnly;
  const uint32_t kRF = kCmdReadOnly | kCmdFast;
  CommandTable::Family f = t.StartFamily("@hash");
  f.Add({.name = "hget", .arity = 3, .flags = kRF, .keys = {1, 1, 1}, .on_shard = HGet});
  f.Add({.name = "hmget", .arity = -3, .flags = kRF, .keys = {1, 1, 1}, .on_shard = HMGet});
  f.Add({.name = "hgetall",
         .arity = 2,
         .flags = kR,
         .keys = {1, 1, 1},
         .on_shard = HGetAll<Part::kBoth>});
  f.Add({.name = "hkeys",
         .arity = 2,
         .flags = kR,
         .keys = {1, 1, 1},
         .on_shard = HGetAll<Part::kFields>});
  f.Add({.name = "hvals",
         .arity = 2,
         .flags = kR,
         .keys = {1, 1, 1},
         .on_shard = HGetAll<Part::kValues>});
  f.Add({.name = "hexists", .arity = 3, .flags = kRF, .keys = {1, 1, 1}, .on_shard = HExists});
  f.Add({.name = "hlen", .arity = 2, .flags = kRF, .keys = {1, 1, 1}, .on_shard = HLen});
  f.Add({.name = "hstrlen", .arity = 3, .flags = kRF, .keys = {1, 1, 1}, .on_shard = HStrLen});
  f.Add(
      {.name = "hrandfield", .arity = -2, .flags = kR, .keys = {1, 1, 1}, .on_shard = HRandField});
  f.Add({.name = "hscan", .arity = -3, .flags = kR, .keys = {1, 1, 1}, .on_shard = HScan});
}

}  // namespace rc
