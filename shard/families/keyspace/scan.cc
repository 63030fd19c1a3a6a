// Commands over the whole keyspace, which every shard answers for its part: KEYS, SCAN,
// DBSIZE, RANDOMKEY, FLUSHDB, FLUSHALL.

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <optional>

#include "core/glob.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/arg_parser.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/errors.h"
#include "shard/command/key_groups.h"
#include "shard/command/multi_shard.h"
#include "shard/command/scan_options.h"
#include "shard/runtime/fanout.h"
#include "shard/runtime/shard.h"

namespace rc {

namespace {

void Keys(CoordCmd& cmd) {
  auto pattern = std::make_shared<const std::string>(cmd.args[1]);
  DeferredReply out(cmd);
  LockedFanOut<std::vector<std::string>>(
      cmd, LockNodeShards(cmd),
      [pattern](Shard& shard, size_t) {
        std::vector<std::string> keys;
        bool all = *pattern == "*";
        int64_t now = shard.NowMs();
        shard.table().ForEach([&](const Entry* e) {
          // Expired keys not yet reclaimed do not exist for clients.
          if (shard.IsExpired(e, now)) return;
          if (all || GlobMatch(*pattern, e->key())) keys.emplace_back(e->key());
        });
        return keys;
      },
      [out](std::vector<std::vector<std::string>>& parts) {
        size_t n = 0;
        for (const auto& p : parts) n += p.size();
        out.Send([&](ReplyBuilder& rb) {
          rb.ArrayLen(n);
          for (const auto& p : parts) {
            for (const auto& k : p) rb.Bulk(k);
          }
        });
      });
}

// The cursor names a shard and a position in its table: cursor = position * shards +
// shard. Shards are walked in order; each shard's part is Redis's reverse-binary
// cursor, so a key present for the whole scan is returned at least once.
void Scan(CoordCmd& cmd) {
  uint64_t cursor;
  if (!ParseScanCursor(cmd.args[1], &cursor)) return cmd.reply.Error(err::kInvalidCursor);
  ArgParser p(cmd.args, 2);
  ScanOptions parsed;
  ParseScanOptions(p, /*keyspace=*/true, &parsed);
  if (!p.ok()) return cmd.reply.Error(p.error());
  // The shard reads its own copy: the arguments do not outlive this call.
  struct Options {
    std::string pattern;
    std::string type;
    bool use_pattern;
    bool use_type;
    int64_t count;
  } opts{std::string(parsed.pattern), std::string(parsed.type), parsed.use_pattern, parsed.use_type,
         parsed.count};
  const uint64_t nshards = cmd.shards.size();
  // A per-thread cluster node scans its own shard only, with the same cursor encoding.
  const int32_t node_shard = cmd.client.node_shard;
  const uint32_t shard_id = node_shard >= 0 ? uint32_t(node_shard) : uint32_t(cursor % nshards);
  const uint64_t position = cursor / nshards;
  auto shared = std::make_shared<const Options>(std::move(opts));
  DeferredReply out(cmd);
  struct Batch {
    uint64_t next_position = 0;
    std::vector<std::string> keys;
  };
  FanOut<Batch>(
      cmd.self, cmd.shards, {shard_id},
      [shared, position](Shard& shard, size_t) {
        Batch b;
        uint64_t pos = position;
        int64_t now = shard.NowMs();
        std::vector<const Entry*> found;
        // Bounded like Redis: at most 10×COUNT table steps per call (saturating: COUNT
        // may be as large as INT64_MAX).
        int64_t budget = shared->count > INT64_MAX / 10 ? INT64_MAX : shared->count * 10;
        do {
          pos = shard.table().Scan(pos, [&](const Entry* e) { found.push_back(e); });
        } while (pos != 0 && --budget > 0 && int64_t(found.size()) < shared->count);
        for (const Entry* e : found) {
          if (shard.IsExpired(e, now)) continue;
          if (shared->use_pattern && !GlobMatch(shared->pattern, e->key())) continue;
          if (shared->use_type && !EqualsIgnoreCase(shared->type, TypeName(e->type()))) {
            continue;
          }
          b.keys.emplace_back(e->key());
        }
        b.next_position = pos;
        return b;
      },
      [out, shard_id, nshards, node_shard](std::vector<Batch>& batches) {
        Batch& b = batches[0];
        uint64_t next;
        if (b.next_position != 0) {
          next = b.next_position * nshards + shard_id;
        } else {
          next = node_shard < 0 && shard_id + 1 < nshards ? shard_id + 1 : 0;
        }
        out.Send([&](ReplyBuilder& rb) {
          rb.ArrayLen(2);
          rb.Bulk(std::to_string(next));
          rb.ArrayLen(b.keys.size());
          for (const auto& k : b.keys) rb.Bulk(k);
        });
      });
}

void DbSize(CoordCmd& cmd) {
  DeferredReply out(cmd);
  LockedFanOut<int64_t>(
      cmd, LockNodeShards(cmd), [](Shard& shard, size_t) { return int64_t(shard.size()); },
      [out](std::vector<int64_t>& sizes) {
        int64_t total = 0;
        for (int64_t s : sizes) total += s;
        out.Send([total](ReplyBuilder& rb) { rb.Integer(total); });
      });
}

void RandomKey(CoordCmd& cmd) {
  struct Pick {
    size_t size = 0;
    std::string key;
    bool found = false;
  };
  DeferredReply out(cmd);
  ShardThread* self = &cmd.self;
  FanOut<Pick>(
      cmd.self, cmd.shards, NodeShards(cmd.shards, cmd.client),
      [](Shard& shard, size_t) {
        Pick p;
        p.size = shard.size();
        // Like Redis, RANDOMKEY reclaims the expired keys it draws and draws again. Redis
        // does so without bound; here, after a run of expired draws, the shard reclaims
        // its due keys in deadline order (cheaper than drawing them one by one), for at
        // most kBudget keys so a mass expiry cannot stall this thread.
        constexpr size_t kDrawsPerRound = 64, kReclaimPerRound = 16384, kBudget = 65536;
        int64_t now = shard.NowMs();
        for (size_t reclaimed = 0; !p.found && reclaimed < kBudget;) {
          for (size_t draw = 0; draw < kDrawsPerRound; ++draw) {
            const Entry* e = shard.table().Random(shard.rng());
            if (e == nullptr) break;
            if (!shard.IsExpired(e, now)) {
              p.key = std::string(e->key());
              p.found = true;
              break;
            }
            shard.Find(std::string(e->key()));
            ++reclaimed;
          }
          if (p.found || shard.NextDeadline() > now) break;
          reclaimed += shard.ExpireDue(now, kReclaimPerRound);
        }
        // A shard whose sampled keys were all expired offers none.
        p.size = p.found ? shard.size() : 0;
        return p;
      },
      [out, self](std::vector<Pick>& picks) {
        // Each shard offered one key; weigh them by shard size so every key is as likely.
        size_t total = 0;
        for (const auto& p : picks) total += p.size;
        if (total == 0) return out.Send([](ReplyBuilder& rb) { rb.NullBulk(); });
        size_t r = absl::Uniform<size_t>(self->shard().rng(), 0, total);
        for (const auto& p : picks) {
          if (r < p.size) return out.Send([&](ReplyBuilder& rb) { rb.Bulk(p.key); });
          r -= p.size;
        }
      });
}

void Flush(CoordCmd& cmd) {
  // ASYNC hands each shard's table to the lazyfree pool whole; SYNC frees inline; without
  // either, lazyfree-lazy-user-flush chooses (no by default, as in Redis). The flush
  // reaches each shard ahead of anything this connection sends later, so its next
  // command already sees an empty keyspace.
  ArgParser p(cmd.args, 1);
  const bool async = p.Choice<bool>({{"ASYNC", true}, {"SYNC", false}})
                         .value_or(cmd.server.config.lazyfree_lazy_user_flush.get());
  if (!p.Finish()) return cmd.reply.Error(p.error());
  DeferredReply out(cmd);
  LockedFanOut<bool>(
      cmd, LockNodeShards(cmd),
      [async](Shard& shard, size_t) {
        shard.Flush(async);
        return true;
      },
      [out](std::vector<bool>&) { out.Send([](ReplyBuilder& rb) { rb.Ok(); }); });
}

}  // namespace

void RegisterKeyspaceScanCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@keyspace");
  // As Redis: whole-keyspace commands that can stall or wipe a server are @dangerous.
  f.Add({.name = "keys",
         .arity = 2,
         .flags = kCmdReadOnly,
         .on_coord = Keys,
         .categories = {"@dangerous"}});
  f.Add({.name = "scan", .arity = -2, .flags = kCmdReadOnly, .on_coord = Scan});
  f.Add({.name = "dbsize", .arity = 1, .flags = kCmdReadOnly | kCmdFast, .on_coord = DbSize});
  f.Add({.name = "randomkey", .arity = 1, .flags = kCmdReadOnly, .on_coord = RandomKey});
  f.Add({.name = "flushdb",
         .arity = -1,
         .flags = kCmdWrite,
         .on_coord = Flush,
         .categories = {"@dangerous"}});
  f.Add({.name = "flushall",
         .arity = -1,
         .flags = kCmdWrite,
         .on_coord = Flush,
         .categories = {"@dangerous"}});
}

}  // namespace rc
