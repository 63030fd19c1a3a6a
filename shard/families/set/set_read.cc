// Set reads on one key: SISMEMBER, SMISMEMBER, SMEMBERS, SCARD, SRANDMEMBER, SSCAN. A
// missing key reads as an empty set; another type is WRONGTYPE. An intset answers in
// ascending order, as Redis's does.

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "core/member_set.h"
#include "core/numbers.h"
#include "shard/command/arg_parser.h"
#include "shard/command/errors.h"
#include "shard/command/value_scan.h"
#include "shard/command/typed_lookup.h"
#include "shard/runtime/shard.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

void SIsMember(ShardCmd& cmd) {
  bool ok;
  const MemberSet* s = ReadObject<MemberSet>(cmd, &ok);
  if (!ok) return;
  cmd.reply.Integer(s != nullptr && s->Contains(cmd.args[2]) ? 1 : 0);
}

void SMIsMember(ShardCmd& cmd) {
  bool ok;
  const MemberSet* s = ReadObject<MemberSet>(cmd, &ok);
  if (!ok) return;
  cmd.reply.ArrayLen(cmd.args.size() - 2);
  for (size_t i = 2; i < cmd.args.size(); ++i) {
    cmd.reply.Integer(s != nullptr && s->Contains(cmd.args[i]) ? 1 : 0);
  }
}

void SMembers(ShardCmd& cmd) {
  bool ok;
  const MemberSet* s = ReadObject<MemberSet>(cmd, &ok);
  if (!ok) return;
  cmd.reply.SetLen(s == nullptr ? 0 : s->size());
  if (s != nullptr) s->ForEach([&](std::string_view m) { cmd.reply.Bulk(m); });
}

void SCard(ShardCmd& cmd) {
  bool ok;
  const MemberSet* s = ReadObject<MemberSet>(cmd, &ok);
  if (!ok) return;
  cmd.reply.Integer(s == nullptr ? 0 : int64_t(s->size()));
}

// SRANDMEMBER key [count], as Redis 7.0's srandmemberCommand.
void SRandMember(ShardCmd& cmd) {
  auto& rng = cmd.shard.rng();
  if (cmd.args.size() > 3) return cmd.reply.Error(err::kSyntax);
  if (cmd.args.size() == 2) {
    bool ok;
    const MemberSet* s = ReadObject<MemberSet>(cmd, &ok);
    if (!ok) return;
    if (s == nullptr) return cmd.reply.NullBulk();
    return cmd.reply.Bulk(s->Random(rng));
  }
  ArgParser p(cmd.args, 2);
  const int64_t l = p.NextInRange(-INT64_MAX, INT64_MAX);
  if (!p.ok()) return cmd.reply.Error(p.error());
  bool ok;
  const MemberSet* s = ReadObject<MemberSet>(cmd, &ok);
  if (!ok) return;
  if (s == nullptr || l == 0) return cmd.reply.ArrayLen(0);
  const size_t size = s->size();
  const uint64_t count = l > 0 ? uint64_t(l) : uint64_t(-l);
  if (l < 0) {
    cmd.reply.ArrayLen(count);
    for (uint64_t i = 0; i < count; ++i) cmd.reply.Bulk(s->Random(rng));
    return;
  }
  if (count >= size) {
    // The whole set, as SMEMBERS sends it (Redis runs its SUNION here).
    cmd.reply.SetLen(size);
    s->ForEach([&](std::string_view m) { cmd.reply.Bulk(m); });
    return;
  }
  std::vector<std::string> picked;
  if (count * 3 > size) {
    picked.reserve(size);
    s->ForEach([&](std::string_view m) { picked.emplace_back(m); });
    for (size_t i = 0; i < count; ++i) {
      std::swap(picked[i], picked[absl::Uniform<size_t>(rng, i, size)]);
    }
    picked.resize(count);
  } else {
    absl::flat_hash_set<std::string> seen;
    while (picked.size() < count) {
      std::string m = s->Random(rng);
      if (seen.insert(m).second) picked.push_back(std::move(m));
    }
  }
  cmd.reply.ArrayLen(count);
  for (const auto& m : picked) cmd.reply.Bulk(m);
}

void SScan(ShardCmd& cmd) {
  ScanValue<MemberSet>(cmd, [](const MemberSet& s, uint64_t cursor, size_t count, ScanPage& page) {
    return s.Scan(cursor, count, [&](std::string_view m) { page.Add(m); });
  });
}

}  // namespace

void RegisterSetReadCommands(CommandTable& t) {
  const uint32_t kR = kCmdReadOnly;
  const uint32_t kRF = kCmdReadOnly | kCmdFast;
  CommandTable::Family f = t.StartFamily("@set");
  f.Add({.name = "sismember", .arity = 3, .flags = kRF, .keys = {1, 1, 1}, .on_shard = SIsMember});
  f.Add(
      {.name = "smismember", .arity = -3, .flags = kRF, .keys = {1, 1, 1}, .on_shard = SMIsMember});
  f.Add({.name = "smembers", .arity = 2, .flags = kR, .keys = {1, 1, 1}, .on_shard = SMembers});
  f.Add({.name = "scard", .arity = 2, .flags = kRF, .keys = {1, 1, 1}, .on_shard = SCard});
  f.Add({.name = "srandmember",
         .arity = -2,
         .flags = kR,
         .keys = {1, 1, 1},
         .on_shard = SRandMember});
  f.Add({.name = "sscan", .arity = -3, .flags = kR, .keys = {1, 1, 1}, .on_shard = SScan});
}

}  // namespace rc
