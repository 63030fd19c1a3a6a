// Keyspace commands: DEL, UNLINK, EXISTS, TOUCH, TYPE, RENAME, RENAMENX, RANDOMKEY and
// the whole-keyspace KEYS, SCAN, DBSIZE, FLUSHDB, FLUSHALL (COPY is in copy.cc).

#include <cerrno>
#include <cstdlib>
#include <optional>

#include "core/glob.h"
#include "core/strings.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/errors.h"
#include "shard/command/key_groups.h"
#include "shard/command/multi_shard.h"
#include "shard/runtime/fanout.h"
#include "shard/runtime/shard.h"
#include "shard/state/notify_flags.h"

namespace rc {

namespace {

// ---- DEL, UNLINK, EXISTS, TOUCH: count per shard, sum across shards ----

using KeyCounter = int64_t (*)(Shard&, std::string_view key);

// DEL frees a large value as lazyfree-lazy-user-del says; UNLINK always off this thread.
template <Shard::FreeCause kCause>
int64_t DeleteOne(Shard& shard, std::string_view key) {
  if (!shard.Delete(key, kCause)) return 0;
  shard.Notify(kNotifyGeneric, "del", key);
  return 1;
}
// Reads as Redis's EXISTS and TOUCH do: counted as hits and misses, TOUCH updating the
// access time.
int64_t ExistsOne(Shard& shard, std::string_view key) {
  return shard.FindForRead(key, /*touch=*/false) != nullptr ? 1 : 0;
}
int64_t TouchOne(Shard& shard, std::string_view key) {
  return shard.FindForRead(key) != nullptr ? 1 : 0;
}

template <KeyCounter Count>
void CountKeys(ShardCmd& cmd) {
  int64_t n = 0;
  for (size_t i = 1; i < cmd.args.size(); ++i) n += Count(cmd.shard, cmd.args[i]);
  cmd.reply.Integer(n);
}

template <KeyCounter Count>
void CountKeysCoord(CoordCmd& cmd) {
  auto groups = std::make_shared<const KeyGroups>(cmd.shards, cmd.args, 1, 1);
  DeferredReply out(cmd);
  LockedFanOut<int64_t>(
      cmd, LockKeys(groups),
      [groups](Shard& shard, size_t gi) {
        int64_t n = 0;
        for (const auto& key : groups->Args(gi)) n += Count(shard, key);
        return n;
      },
      [out](std::vector<int64_t>& counts) {
        int64_t total = 0;
        for (int64_t c : counts) total += c;
        out.Send([total](ReplyBuilder& rb) { rb.Integer(total); });
      });
}

void Type(ShardCmd& cmd) {
  const Entry* e = cmd.shard.FindForRead(cmd.args[1], /*touch=*/false);
  cmd.reply.SimpleString(e == nullptr ? "none" : TypeName(e->type()));
}

// ---- RENAME, RENAMENX ----

// Redis's events of a rename, each raised on the shard of its key (the source's and the
// destination's may differ): "rename_from" for the source, then "rename_to".
void NotifyRenamed(Shard& shard, std::string_view src, std::string_view dst) {
  if (!src.empty()) shard.Notify(kNotifyGeneric, "rename_from", src);
  if (!dst.empty()) shard.Notify(kNotifyGeneric, "rename_to", dst);
}

void RenameGeneric(ShardCmd& cmd, bool nx) {
  std::string_view src = cmd.args[1], dst = cmd.args[2];
  Entry* e = cmd.shard.Find(src);
  if (e == nullptr) return cmd.reply.Error(err::kNoSuchKey);
  if (src == dst) return nx ? cmd.reply.Integer(0) : cmd.reply.Ok();
  if (nx && cmd.shard.Find(dst) != nullptr) return cmd.reply.Integer(0);
  // The value (of any type) keeps its TTL under the new name, as in Redis.
  cmd.shard.Put(dst, cmd.shard.Take(src));
  NotifyRenamed(cmd.shard, src, dst);
  nx ? cmd.reply.Integer(1) : cmd.reply.Ok();
}

void Rename(ShardCmd& cmd) { RenameGeneric(cmd, false); }
void RenameNx(ShardCmd& cmd) { RenameGeneric(cmd, true); }

// The two keys live on different shards. With both locked: (RENAMENX: check both,)
// take the value off the source shard, store it on the destination's, release both.
void RenameAcross(CoordCmd& cmd, bool nx) {
  // Group 0 or 1 is the source, whichever shard sorts first.
  auto groups = std::make_shared<const KeyGroups>(cmd.shards, cmd.args, 1, 1);
  const size_t src = groups->Items(0)[0] == 0 ? 0 : 1;
  const size_t dst = 1 - src;
  auto src_key = std::make_shared<const std::string>(cmd.args[1]);
  auto dst_key = std::make_shared<const std::string>(cmd.args[2]);
  // What each end reports: the source its entry, taken off its shard (value of any type,
  // TTL included); the destination whether it exists.
  struct End {
    EntryPtr taken;
    bool exists = false;
  };
  // Where the entry goes: nowhere (no source), back to the source (RENAMENX refused), or
  // to the destination. Only the receiving shard's write step touches `entry`.
  struct Move {
    enum { kNoSource, kRefused, kRenamed } outcome;
    EntryPtr entry;
  };
  DeferredReply out(cmd);
  LockedReadThenWrite(
      cmd, LockKeys(groups),
      // RENAMENX must not take the source when the destination exists; with both keys
      // locked nobody sees the source missing in between, and it goes back when refused.
      [=](Shard& shard, size_t gi) {
        if (gi != src) return End{nullptr, shard.Find(*dst_key) != nullptr};
        EntryPtr taken = shard.Take(*src_key);
        bool exists = taken != nullptr;
        return End{std::move(taken), exists};
      },
      [=](std::vector<End>& ends) {
        if (!ends[src].exists) return Move{Move::kNoSource, nullptr};
        return Move{nx && ends[dst].exists ? Move::kRefused : Move::kRenamed,
                    std::move(ends[src].taken)};
      },
      [=](Shard& shard, size_t gi, Move& move) {
        if (move.outcome == Move::kRefused && gi == src) {
          shard.Put(*src_key, std::move(move.entry), /*is_new=*/false);
        }
        if (move.outcome != Move::kRenamed) return;
        if (gi == src) return NotifyRenamed(shard, *src_key, {});
        shard.Put(*dst_key, std::move(move.entry));
        NotifyRenamed(shard, {}, *dst_key);
      },
      [out, nx](Move& move) {
        out.Send([nx, outcome = move.outcome](ReplyBuilder& rb) {
          if (outcome == Move::kNoSource) return rb.Error(err::kNoSuchKey);
          nx ? rb.Integer(outcome == Move::kRefused ? 0 : 1) : rb.Ok();
        });
      });
}

void RenameCoord(CoordCmd& cmd) { RenameAcross(cmd, false); }
void RenameNxCoord(CoordCmd& cmd) { RenameAcross(cmd, true); }

}  // namespace

void RegisterKeyspaceScanCommands(CommandTable& t);
void RegisterKeyspaceCopyCommands(CommandTable& t);

void RegisterKeyspaceCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@keyspace");
  f.Add({.name = "del",
         .arity = -2,
         .flags = kCmdWrite,
         .keys = {1, -1, 1},
         .on_shard = CountKeys<DeleteOne<Shard::FreeCause::kUserDel>>,
         .on_coord = CountKeysCoord<DeleteOne<Shard::FreeCause::kUserDel>>});
  f.Add({.name = "unlink",
         .arity = -2,
         .flags = kCmdWrite | kCmdFast,
         .keys = {1, -1, 1},
         .on_shard = CountKeys<DeleteOne<Shard::FreeCause::kUnlink>>,
         .on_coord = CountKeysCoord<DeleteOne<Shard::FreeCause::kUnlink>>});
  f.Add({.name = "exists",
         .arity = -2,
         .flags = kCmdReadOnly | kCmdFast,
         .keys = {1, -1, 1},
         .on_shard = CountKeys<ExistsOne>,
         .on_coord = CountKeysCoord<ExistsOne>});
  f.Add({.name = "touch",
         .arity = -2,
         .flags = kCmdReadOnly | kCmdFast,
         .keys = {1, -1, 1},
         .on_shard = CountKeys<TouchOne>,
         .on_coord = CountKeysCoord<TouchOne>});
  f.Add({.name = "type",
         .arity = 2,
         .flags = kCmdReadOnly | kCmdFast,
         .keys = {1, 1, 1},
         .on_shard = Type});
  f.Add({.name = "rename",
         .arity = 3,
         .flags = kCmdWrite,
         .keys = {1, 2, 1},
         .on_shard = Rename,
         .on_coord = RenameCoord});
  f.Add({.name = "renamenx",
         .arity = 3,
         .flags = kCmdWrite | kCmdFast,
         .keys = {1, 2, 1},
         .on_shard = RenameNx,
         .on_coord = RenameNxCoord});
  RegisterKeyspaceScanCommands(t);
  RegisterKeyspaceCopyCommands(t);
}

}  // namespace rc
