// Keyspace commands: DEL, UNLINK, EXISTS, TOUCH, TYPE, RENAME, RENAMENX, RANDOMKEY and
// the whole-keyspace KEYS, SCAN, DBSIZE, FLUSHDB, FLUSHALL.

#include <cerrno>
#include <cstdlib>
#include <optional>

#include "core/strings.h"
#include "core/glob.h"
#include "shard/errors.h"
#include "shard/fanout.h"
#include "shard/key_groups.h"
#include "shard/shard.h"

namespace rc {

namespace {

std::string_view TypeName(const Entry* e) {
  if (e == nullptr) return "none";
  switch (e->type()) {
    case ValueType::kString:
      return "string";
  }
  return "none";
}

// ---- DEL, UNLINK, EXISTS, TOUCH: count per shard, sum across shards ----

using KeyCounter = int64_t (*)(Shard&, std::string_view key);

int64_t DeleteOne(Shard& shard, std::string_view key) { return shard.Delete(key) ? 1 : 0; }
int64_t ExistsOne(Shard& shard, std::string_view key) {
  return shard.Find(key) != nullptr ? 1 : 0;
}

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
  FanOut<int64_t>(
      cmd.self, cmd.shards, groups->shards,
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

void Type(ShardCmd& cmd) { cmd.reply.SimpleString(TypeName(cmd.shard.Find(cmd.args[1]))); }

// ---- RENAME, RENAMENX ----

void RenameGeneric(ShardCmd& cmd, bool nx) {
  std::string_view src = cmd.args[1], dst = cmd.args[2];
  Entry* e = cmd.shard.Find(src);
  if (e == nullptr) return cmd.reply.Error(err::kNoSuchKey);
  if (src == dst) return nx ? cmd.reply.Integer(0) : cmd.reply.Ok();
  if (nx && cmd.shard.Find(dst) != nullptr) return cmd.reply.Integer(0);
  cmd.shard.SetString(dst, e->str());
  cmd.shard.Delete(src);
  nx ? cmd.reply.Integer(1) : cmd.reply.Ok();
}

void Rename(ShardCmd& cmd) { RenameGeneric(cmd, false); }
void RenameNx(ShardCmd& cmd) { RenameGeneric(cmd, true); }

struct RenameKeys {
  std::string src, dst;
  uint32_t src_shard, dst_shard;
};

// Hop 1 takes the value off the source shard, hop 2 stores it on the destination's.
void TakeAndPut(std::shared_ptr<const RenameKeys> keys, DeferredReply out, ShardThread* self,
                ShardSet* shards, bool nx) {
  FanOut<std::optional<std::string>>(
      *self, *shards, {keys->src_shard},
      [keys](Shard& shard, size_t) -> std::optional<std::string> {
        Entry* e = shard.Find(keys->src);
        if (e == nullptr) return std::nullopt;
        std::string value(e->str());
        shard.Delete(keys->src);
        return value;
      },
      [keys, out, self, shards, nx](std::vector<std::optional<std::string>>& taken) {
        if (!taken[0]) return out.Send([](ReplyBuilder& rb) { rb.Error(err::kNoSuchKey); });
        auto value = std::make_shared<const std::string>(std::move(*taken[0]));
        FanOut<bool>(
            *self, *shards, {keys->dst_shard},
            [keys, value](Shard& shard, size_t) {
              shard.SetString(keys->dst, *value);
              return true;
            },
            [out, nx](std::vector<bool>&) {
              out.Send([nx](ReplyBuilder& rb) { nx ? rb.Integer(1) : rb.Ok(); });
            });
      });
}

// The two keys live on different shards. The connection holds later commands until every
// hop is done; other clients can observe the moment between hops (docs/ARCHITECTURE.md).
void RenameAcross(CoordCmd& cmd, bool nx) {
  auto keys = std::make_shared<const RenameKeys>(
      RenameKeys{std::string(cmd.args[1]), std::string(cmd.args[2]),
                 cmd.shards.ShardOf(cmd.args[1]), cmd.shards.ShardOf(cmd.args[2])});
  DeferredReply out(cmd);
  out.Hold();
  ShardThread* self = &cmd.self;
  ShardSet* shards = &cmd.shards;
  if (!nx) return TakeAndPut(keys, out, self, shards, false);
  // RENAMENX: the source must exist and the destination must not, checked first.
  FanOut<bool>(
      cmd.self, cmd.shards, {keys->src_shard, keys->dst_shard},
      [keys](Shard& shard, size_t i) {
        return shard.Find(i == 0 ? keys->src : keys->dst) != nullptr;
      },
      [out, keys, self, shards](std::vector<bool>& exists) {
        if (!exists[0]) return out.Send([](ReplyBuilder& rb) { rb.Error(err::kNoSuchKey); });
        if (exists[1]) return out.Send([](ReplyBuilder& rb) { rb.Integer(0); });
        TakeAndPut(keys, out, self, shards, true);
      });
}

void RenameCoord(CoordCmd& cmd) { RenameAcross(cmd, false); }
void RenameNxCoord(CoordCmd& cmd) { RenameAcross(cmd, true); }

}  // namespace

void RegisterKeyspaceScanCommands(CommandTable& t);

void RegisterKeyspaceCommands(CommandTable& t) {
  auto row = [&t](std::string name, int arity, uint32_t flags, int first, int last, int step,
                  ShardHandler on_shard, CoordHandler on_coord = nullptr) {
    t.Add(CommandSpec{std::move(name), arity, flags, first, last, step, on_shard, on_coord,
                      {"@keyspace"}});
  };
  row("del", -2, kCmdWrite, 1, -1, 1, CountKeys<DeleteOne>, CountKeysCoord<DeleteOne>);
  row("unlink", -2, kCmdWrite | kCmdFast, 1, -1, 1, CountKeys<DeleteOne>,
      CountKeysCoord<DeleteOne>);
  row("exists", -2, kCmdReadOnly | kCmdFast, 1, -1, 1, CountKeys<ExistsOne>,
      CountKeysCoord<ExistsOne>);
  row("touch", -2, kCmdReadOnly | kCmdFast, 1, -1, 1, CountKeys<ExistsOne>,
      CountKeysCoord<ExistsOne>);
  row("type", 2, kCmdReadOnly | kCmdFast, 1, 1, 1, Type);
  row("rename", 3, kCmdWrite, 1, 2, 1, Rename, RenameCoord);
  row("renamenx", 3, kCmdWrite | kCmdFast, 1, 2, 1, RenameNx, RenameNxCoord);
  RegisterKeyspaceScanCommands(t);
}

}  // namespace rc
