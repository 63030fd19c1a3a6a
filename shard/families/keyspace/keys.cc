// Keyspace commands: DEL, UNLINK, EXISTS, TOUCH, TYPE, RENAME, RENAMENX, RANDOMKEY and
// the whole-keyspace KEYS, SCAN, DBSIZE, FLUSHDB, FLUSHALL.

#include <cerrno>
#include <cstdlib>
#include <optional>

#include "core/glob.h"
#include "core/strings.h"
#include "shard/command/errors.h"
#include "shard/command/key_groups.h"
#include "shard/command/multi_shard.h"
#include "shard/runtime/fanout.h"
#include "shard/runtime/shard.h"

namespace rc {

namespace {

// ---- DEL, UNLINK, EXISTS, TOUCH: count per shard, sum across shards ----

using KeyCounter = int64_t (*)(Shard&, std::string_view key);

int64_t DeleteOne(Shard& shard, std::string_view key) { return shard.Delete(key) ? 1 : 0; }
int64_t ExistsOne(Shard& shard, std::string_view key) { return shard.Find(key) != nullptr ? 1 : 0; }

template <KeyCounter Count>
void CountKeys(ShardCmd& cmd) {
  int64_t n = 0;
  for (size_t i = 1; i < cmd.args.size(); ++i) n += Count(cmd.shard, cmd.args[i]);
  cmd.reply.Integer(n);
}

template <KeyCounter Count>
void CountKeysCoord(CoordCmd& cmd) {
  auto groups = std::make_shared<const KeyGroups>(GroupKeys(cmd.shards, cmd.args, 1, 1));
  DeferredReply out(cmd);
  LockedFanOut<int64_t>(
      cmd, LockKeys(groups, 1),
      [groups](Shard& shard, size_t gi) {
        int64_t n = 0;
        for (const auto& key : groups->args[gi]) n += Count(shard, key);
        return n;
      },
      [out](std::vector<int64_t>& counts) {
        int64_t total = 0;
        for (int64_t c : counts) total += c;
        out.Send([total](ReplyBuilder& rb) { rb.Integer(total); });
      });
}

void Type(ShardCmd& cmd) {
  const Entry* e = cmd.shard.Find(cmd.args[1]);
  cmd.reply.SimpleString(e == nullptr ? "none" : TypeName(e->type()));
}

// ---- RENAME, RENAMENX ----

void RenameGeneric(ShardCmd& cmd, bool nx) {
  std::string_view src = cmd.args[1], dst = cmd.args[2];
  Entry* e = cmd.shard.Find(src);
  if (e == nullptr) return cmd.reply.Error(err::kNoSuchKey);
  if (src == dst) return nx ? cmd.reply.Integer(0) : cmd.reply.Ok();
  if (nx && cmd.shard.Find(dst) != nullptr) return cmd.reply.Integer(0);
  // The value (of any type) keeps its TTL under the new name, as in Redis.
  cmd.shard.Put(dst, cmd.shard.Take(src));
  nx ? cmd.reply.Integer(1) : cmd.reply.Ok();
}

void Rename(ShardCmd& cmd) { RenameGeneric(cmd, false); }
void RenameNx(ShardCmd& cmd) { RenameGeneric(cmd, true); }

// The two keys live on different shards. With both locked: (RENAMENX: check both,)
// take the value off the source shard, store it on the destination's, release both.
void RenameAcross(CoordCmd& cmd, bool nx) {
  // Group 0 or 1 is the source, whichever shard sorts first.
  auto groups = std::make_shared<const KeyGroups>(GroupKeys(cmd.shards, cmd.args, 1, 1));
  auto locks = LockKeys(groups, 1);
  const size_t src = groups->items[0][0] == 0 ? 0 : 1;
  const size_t dst = 1 - src;
  auto src_key = std::make_shared<const std::string>(cmd.args[1]);
  auto dst_key = std::make_shared<const std::string>(cmd.args[2]);
  DeferredReply out(cmd);
  ShardThread* self = &cmd.self;
  ShardSet* shards = &cmd.shards;
  auto release_all = [self, shards, groups, locks](auto reply) {
    FanOut<bool>(
        *self, *shards, groups->shards,
        [locks](Shard& shard, size_t gi) {
          ReleaseOn(shard, *locks, gi);
          return true;
        },
        [reply](std::vector<bool>&) mutable { reply(); });
  };
  // What each end reports in step 1: the source its entry, taken off its shard (value of
  // any type, TTL included); the destination whether it exists.
  struct End {
    EntryPtr taken;
    bool exists = false;
  };
  AcquireThen(cmd, locks, [=] {
    // RENAMENX must not take the source when the destination exists; with both keys
    // locked nobody sees the source missing in between, and it goes back in step 2.
    FanOut<End>(
        *self, *shards, groups->shards,
        [=](Shard& shard, size_t gi) {
          if (gi != src) return End{nullptr, shard.Find(*dst_key) != nullptr};
          EntryPtr taken = shard.Take(*src_key);
          bool exists = taken != nullptr;
          return End{std::move(taken), exists};
        },
        [=](std::vector<End>& ends) {
          if (!ends[src].exists) {
            return release_all(
                [out] { out.Send([](ReplyBuilder& rb) { rb.Error(err::kNoSuchKey); }); });
          }
          const bool refused = nx && ends[dst].exists;
          // The entry crosses to the thread that stores it; only that thread touches it.
          auto moved = std::make_shared<EntryPtr>(std::move(ends[src].taken));
          // Step 2: store the entry (at the destination, or back at the source), release.
          FanOut<bool>(
              *self, *shards, groups->shards,
              [=](Shard& shard, size_t gi) {
                if (gi == (refused ? src : dst)) {
                  shard.Put(refused ? *src_key : *dst_key, std::move(*moved));
                }
                ReleaseOn(shard, *locks, gi);
                return true;
              },
              [out, nx, refused](std::vector<bool>&) {
                out.Send([nx, refused](ReplyBuilder& rb) {
                  nx ? rb.Integer(refused ? 0 : 1) : rb.Ok();
                });
              });
        });
  });
}

void RenameCoord(CoordCmd& cmd) { RenameAcross(cmd, false); }
void RenameNxCoord(CoordCmd& cmd) { RenameAcross(cmd, true); }

}  // namespace

void RegisterKeyspaceScanCommands(CommandTable& t);

void RegisterKeyspaceCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@keyspace");
  f.Add({.name = "del",
         .arity = -2,
         .flags = kCmdWrite,
         .keys = {1, -1, 1},
         .on_shard = CountKeys<DeleteOne>,
         .on_coord = CountKeysCoord<DeleteOne>});
  f.Add({.name = "unlink",
         .arity = -2,
         .flags = kCmdWrite | kCmdFast,
         .keys = {1, -1, 1},
         .on_shard = CountKeys<DeleteOne>,
         .on_coord = CountKeysCoord<DeleteOne>});
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
         .on_shard = CountKeys<ExistsOne>,
         .on_coord = CountKeysCoord<ExistsOne>});
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
}

}  // namespace rc
