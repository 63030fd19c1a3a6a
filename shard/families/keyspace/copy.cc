// COPY source destination [DB destination-db] [REPLACE]: the source's value, of any type,
// and its TTL under a second name. The copy is deep (Entry::Copy clones the object through
// the value layer), so the two keys change independently afterwards.
//
// Both keys on one shard: one step there. On two shards: atomic as RENAME is
// (multi_shard.h): with both keys locked, the source's shard copies the entry out, the
// destination's checks its key, and the copy is stored there (or dropped when refused).
//
// ringcache has one database, as a cluster-mode Redis: DB 0 is accepted, any other index
// is refused with the error SELECT gives.

#include <memory>
#include <string>

#include "shard/command/arg_parser.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/errors.h"
#include "shard/command/key_groups.h"
#include "shard/command/multi_shard.h"
#include "shard/runtime/notify.h"
#include "shard/runtime/shard.h"

namespace rc {

namespace {

constexpr std::string_view kSameObjectErr = "ERR source and destination objects are the same";

// Reads the options; false (having replied) on Redis's errors, in its order.
bool ParseCopy(ArgList args, bool* replace, ReplyBuilder& reply) {
  ArgParser p(args, 3);
  while (p.HasNext()) {
    if (p.Flag("REPLACE")) {
      *replace = true;
    } else if (p.Option("DB")) {
      const int64_t db = p.NextInRange(INT32_MIN, INT32_MAX);
      if (p.ok() && db != 0) p.Fail(err::kDbIndexRange);
    } else {
      p.Fail(err::kSyntax);
    }
  }
  if (!p.Finish()) {
    reply.Error(p.error());
    return false;
  }
  if (args[1] == args[2]) {
    reply.Error(kSameObjectErr);
    return false;
  }
  return true;
}

// Stores the copy under `dst`, as Redis's copyCommand ends: WATCH hears it, "copy_to".
void StoreCopy(Shard& shard, std::string_view dst, EntryPtr copy) {
  shard.Put(dst, std::move(copy));
  shard.Notify(kNotifyGeneric, "copy_to", dst);
}

void Copy(ShardCmd& cmd) {
  bool replace = false;
  if (!ParseCopy(cmd.args, &replace, cmd.reply)) return;
  const Entry* src = cmd.shard.FindForRead(cmd.args[1]);
  if (src == nullptr) return cmd.reply.Integer(0);
  // Looking the destination up may delete it (expired), never the source's entry.
  if (!replace && cmd.shard.Find(cmd.args[2]) != nullptr) return cmd.reply.Integer(0);
  StoreCopy(cmd.shard, cmd.args[2], Entry::Copy(*src, cmd.args[2]));
  cmd.reply.Integer(1);
}

// The two keys live on different shards.
void CopyCoord(CoordCmd& cmd) {
  bool replace = false;
  if (!ParseCopy(cmd.args, &replace, cmd.reply)) return;
  // Items: the source (item 0) and the destination (item 1), one per group.
  auto groups = std::make_shared<const KeyGroups>(cmd.shards, cmd.args.subspan(0, 3), 1, 1);
  const size_t src = groups->Items(0)[0] == 0 ? 0 : 1;
  const size_t dst = 1 - src;
  // The source's end: a copy of its entry (value and TTL); the destination's: whether its
  // key exists.
  struct End {
    EntryPtr copy;
    bool exists = false;
  };
  DeferredReply out(cmd);
  LockedReadThenWrite(
      cmd, LockKeys(groups),
      [groups, src](Shard& shard, size_t gi) {
        const std::string_view key = groups->Args(gi)[0];
        if (gi != src) return End{nullptr, shard.Find(key) != nullptr};
        const Entry* e = shard.FindForRead(key);
        return End{e != nullptr ? Entry::Copy(*e, key) : nullptr, e != nullptr};
      },
      [src, dst, replace](std::vector<End>& ends) {
        // Only the copy to store survives; one refused is freed here.
        if (!ends[src].exists || (ends[dst].exists && !replace)) return std::shared_ptr<End>();
        return std::make_shared<End>(std::move(ends[src]));
      },
      [groups, dst](Shard& shard, size_t gi, std::shared_ptr<End>& copy) {
        if (gi == dst && copy != nullptr)
          StoreCopy(shard, groups->Args(gi)[0], std::move(copy->copy));
      },
      [out](std::shared_ptr<End>& copy) {
        out.Send([copied = copy != nullptr](ReplyBuilder& rb) { rb.Integer(copied ? 1 : 0); });
      });
}

}  // namespace

void RegisterKeyspaceCopyCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@keyspace");
  f.Add({.name = "copy",
         .arity = -3,
         .flags = kCmdWrite | kCmdDenyOom,
         .keys = {1, 2, 1},
         .on_shard = Copy,
         .on_coord = CopyCoord});
}

}  // namespace rc
