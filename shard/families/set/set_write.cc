// Set writes on one key: SADD, SREM, SPOP. Each reports its change through a ValueUpdate
// (memory, WATCH, a set left empty is deleted) and notifies Redis's keyspace events.

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "core/member_set.h"
#include "core/numbers.h"
#include "shard/command/errors.h"
#include "shard/command/typed_lookup.h"
#include "shard/families/set/set_limits.h"
#include "shard/runtime/notify.h"
#include "shard/runtime/shard.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

void SAdd(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kSet, Access::kWrite, cmd.reply, &e)) return;
  // Redis's setTypeCreate: an intset when the first member given is an integer.
  if (e == nullptr)
    e = cmd.shard.Add(cmd.args[1],
                      Value(std::unique_ptr<MemberSet>(MemberSet::ForMember(cmd.args[2]))));
  const MemberSet::Limits limits = SetLimits(cmd.server);
  int64_t added = 0;
  {
    ValueUpdate update(cmd.shard, e);
    MemberSet& s = update.get<MemberSet>();
    for (size_t i = 2; i < cmd.args.size(); ++i) added += s.Add(cmd.args[i], limits) ? 1 : 0;
    if (added == 0) update.NothingChanged();
  }
  if (added > 0) cmd.shard.Notify(kNotifySet, "sadd", cmd.args[1]);
  cmd.reply.Integer(added);
}

void SRem(ShardCmd& cmd) {
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kSet, Access::kWrite, cmd.reply, &e)) return;
  if (e == nullptr) return cmd.reply.Integer(0);
  int64_t removed = 0;
  bool exists;
  {
    ValueUpdate update(cmd.shard, e);
    MemberSet& s = update.get<MemberSet>();
    for (size_t i = 2; i < cmd.args.size(); ++i) removed += s.Remove(cmd.args[i]) ? 1 : 0;
    if (removed == 0) update.NothingChanged();
    exists = update.Finish();
  }
  if (removed > 0) cmd.shard.NotifyRemoved(kNotifySet, "srem", cmd.args[1], !exists);
  cmd.reply.Integer(removed);
}

// SPOP key [count], as Redis 7.0's spopCommand and spopWithCountCommand.
void SPop(ShardCmd& cmd) {
  if (cmd.args.size() > 3) return cmd.reply.Error(err::kSyntax);
  const bool with_count = cmd.args.size() == 3;
  int64_t count = 1;
  if (with_count && (!ParseInt64(cmd.args[2], &count) || count < 0)) {
    return cmd.reply.Error("ERR value is out of range, must be positive");
  }
  Entry* e;
  if (!FindTyped(cmd.shard, cmd.args[1], ValueType::kSet, Access::kWrite, cmd.reply, &e)) return;
  if (e == nullptr) return with_count ? cmd.reply.SetLen(0) : cmd.reply.NullBulk();
  if (count == 0) return cmd.reply.SetLen(0);
  std::vector<std::string> popped;
  bool exists;
  {
    ValueUpdate update(cmd.shard, e);
    MemberSet& s = update.get<MemberSet>();
    const size_t n = std::min(size_t(count), s.size());
    if (n == s.size()) {
      // Everything goes: the members in the set's order, as Redis replies then.
      popped.reserve(n);
      s.ForEach([&](std::string_view m) { popped.emplace_back(m); });
      for (const auto& m : popped) s.Remove(m);
    } else {
      popped.reserve(n);
      while (popped.size() < n) {
        popped.push_back(s.Random(cmd.shard.rng()));
        s.Remove(popped.back());
      }
    }
    exists = update.Finish();
  }
  // Redis raises "spop" before its reply and "del" after it.
  cmd.shard.Notify(kNotifySet, "spop", cmd.args[1]);
  if (!with_count) {
    cmd.reply.Bulk(popped[0]);
  } else {
    cmd.reply.SetLen(popped.size());
    for (const auto& m : popped) cmd.reply.Bulk(m);
  }
  if (!exists) cmd.shard.Notify(kNotifyGeneric, "del", cmd.args[1]);
}

}  // namespace

void RegisterSetReadCommands(CommandTable& t);
void RegisterSetMultiCommands(CommandTable& t);

void RegisterSetCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@set");
  f.Add({.name = "sadd",
         .arity = -3,
         .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = SAdd});
  f.Add({.name = "srem",
         .arity = -3,
         .flags = kCmdWrite | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = SRem});
  f.Add({.name = "spop",
         .arity = -2,
         .flags = kCmdWrite | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = SPop});
  RegisterSetReadCommands(t);
  RegisterSetMultiCommands(t);
}

}  // namespace rc
