// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password]
// [AUTH2 username password] [KEYS key ...]: moves keys to another server (ringcache or
// redis-server) with RESTORE, as Redis 7.0's migrateCommand, replies and errors included.
//
// Redis blocks its one thread on the target for the whole exchange. Here no reactor ever
// waits on the network: the exchange runs on ServerState::network_io's thread (a blocking
// socket with poll timeouts there is simpler than a non-blocking client on the reactor,
// and MIGRATE is rare and serial in Redis too), while the keys stay locked (KeyLocks), so
// no client sees a key both here and there or neither:
//
//   client's thread: lock the keys ─▶ each shard: DUMP payload + TTL of its keys
//   ─▶ network thread: [AUTH] [SELECT] RESTORE ... ; read the replies
//   ─▶ client's thread ─▶ each shard: delete the keys the target acknowledged (not with
//      COPY), "del", release the locks ─▶ client's thread: the reply
//
// The client's later commands on those keys wait behind the locks; other clients' too.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "core/entry.h"
#include "core/numbers.h"
#include "core/rdb_value.h"
#include "core/strings.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/errors.h"
#include "shard/command/key_groups.h"
#include "shard/command/multi_shard.h"
#include "shard/families/dump/migrate_io.h"
#include "shard/runtime/mailbox.h"
#include "shard/runtime/notify.h"
#include "shard/runtime/shard.h"
#include "shard/runtime/shard_set.h"
#include "shard/state/rdb_settings.h"
#include "shard/wire/client_state.h"
#include "threadpool/thread_pool.h"

namespace rc {

namespace {

constexpr std::string_view kKeysNeedEmptyKey =
    "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string";

struct MigrateArgs {
  bool copy = false;
  MigrateRequest request;
  // Distinct, in argument order; views of the arguments, so only while the handler runs.
  std::vector<std::string_view> keys;
  size_t key_count = 0;
};

// Redis's order: the options (KEYS ends them), then timeout, then the db. False (having
// replied) on an error.
bool ParseMigrate(ArgList args, MigrateArgs* m, ReplyBuilder& reply) {
  MigrateRequest& r = m->request;
  size_t first_key = 3, num_keys = 1;
  for (size_t j = 6; j < args.size(); ++j) {
    const size_t more = args.size() - 1 - j;
    const std::string_view a = args[j];
    if (EqualsIgnoreCase(a, "copy")) {
      m->copy = true;
    } else if (EqualsIgnoreCase(a, "replace")) {
      r.replace = true;
    } else if (EqualsIgnoreCase(a, "auth") && more >= 1) {
      r.auth = true;
      r.username.clear();
      r.password = std::string(args[++j]);
    } else if (EqualsIgnoreCase(a, "auth2") && more >= 2) {
      r.auth = true;
      r.username = std::string(args[++j]);
      r.password = std::string(args[++j]);
    } else if (EqualsIgnoreCase(a, "keys")) {
      if (!args[3].empty()) {
        reply.Error(kKeysNeedEmptyKey);
        return false;
      }
      first_key = j + 1;
      num_keys = args.size() - j - 1;
      break;
    } else {
      reply.Error(err::kSyntax);
      return false;
    }
  }
  int64_t timeout = 0;
  if (!ParseInt64(args[5], &timeout) || !ParseInt64(args[4], &r.db)) {
    reply.Error(err::kNotInteger);
    return false;
  }
  r.timeout_ms = timeout <= 0 ? 1000 : timeout;
  r.host = std::string(args[1]);
  r.port = std::string(args[2]);
  // A key named twice migrates once.
  absl::flat_hash_set<std::string_view> seen;
  for (size_t i = first_key; i < first_key + num_keys; ++i) {
    if (seen.insert(args[i]).second) m->keys.push_back(args[i]);
  }
  m->key_count = m->keys.size();
  return true;
}

// One shard's keys, read under the locks: each present key's DUMP payload and TTL.
struct Found {
  std::vector<MigrateRequest::Item> items;
  std::vector<uint32_t> index;  // each item's key among MigrateArgs::keys
};

Found ReadKeys(Shard& shard, const KeyGroups& groups, size_t gi, bool compress) {
  Found f;
  const ArgList keys = groups.Args(gi);
  const int64_t now = shard.NowMs();
  for (size_t k = 0; k < keys.size(); ++k) {
    const Entry* e = shard.FindForRead(keys[k]);
    if (e == nullptr) continue;
    // Redis sends the TTL left, at least 1 ms, and 0 for none.
    const int64_t ttl = e->has_ttl() ? std::max<int64_t>(1, e->deadline() - now) : 0;
    f.items.push_back({std::string(keys[k]), ttl, RdbDumpPayload(*e, compress)});
    f.index.push_back(groups.Items(gi)[k]);
  }
  return f;
}

// The reply: +OK (`error` empty), +NOKEY (`nokey`) or the error.
struct MigrateOutcome {
  bool nokey = false;
  std::string error;
  void Reply(ReplyBuilder& rb) const {
    if (nokey) return rb.SimpleString("NOKEY");
    error.empty() ? rb.Ok() : rb.Error(error);
  }
};

// On the client's thread once the target answered: deletes what it acknowledged (not
// with COPY) and releases the locks, then replies.
void Finish(ShardThread* self, ShardSet* shards, std::shared_ptr<const LockSet> locks,
            std::shared_ptr<std::vector<bool>> gone, DeferredReply out, MigrateOutcome outcome) {
  FanOut<bool>(
      *self, *shards, locks->groups->shards(),
      [locks, gone](Shard& shard, size_t gi) {
        const ArgList keys = locks->groups->Args(gi);
        for (size_t k = 0; k < keys.size(); ++k) {
          if ((*gone)[locks->groups->Items(gi)[k]] && shard.Delete(keys[k])) {
            shard.Notify(kNotifyGeneric, "del", keys[k]);
            // As Redis logs it: the keys are gone from here (under their locks, so in
            // their place among the shard's records).
            if (shard.aof().on()) shard.aof().Command({"DEL", keys[k]});
          }
        }
        ReleaseOn(shard, *locks, gi);
        return true;
      },
      [out, outcome = std::move(outcome)](std::vector<bool>&) {
        out.Send([&](ReplyBuilder& rb) { outcome.Reply(rb); });
      });
}

void Migrate(CoordCmd& cmd) {
  auto m = std::make_shared<MigrateArgs>();
  if (!ParseMigrate(cmd.args, m.get(), cmd.reply)) return;
  ThreadPool* network = cmd.server.network_io;
  if (network == nullptr) return cmd.reply.Error("ERR MIGRATE needs the network thread");
  if (m->keys.empty()) return cmd.reply.SimpleString("NOKEY");
  m->request.asking = cmd.server.cluster.map() != nullptr;
  auto groups =
      std::make_shared<const KeyGroups>(cmd.shards, ArgList(m->keys.data(), m->keys.size()), 0, 1);
  m->keys.clear();
  std::shared_ptr<const LockSet> locks = LockKeys(groups);
  const bool compress = RdbCompression(cmd.server);
  DeferredReply out(cmd);
  ShardThread* self = &cmd.self;
  ShardSet* shards = &cmd.shards;
  ServerState* server = &cmd.server;
  LockedSteps<Found>(
      cmd, locks,
      [groups, compress](Shard& shard, size_t gi) {
        return ReadKeys(shard, *groups, gi, compress);
      },
      [=](std::vector<Found>& found) {
        // In argument order, as Redis sends them.
        std::vector<std::pair<uint32_t, MigrateRequest::Item*>> order;
        for (Found& f : found) {
          for (size_t i = 0; i < f.items.size(); ++i) order.push_back({f.index[i], &f.items[i]});
        }
        std::sort(order.begin(), order.end());
        auto gone = std::make_shared<std::vector<bool>>(m->key_count, false);
        if (order.empty())
          return Finish(self, shards, locks, gone, out, {.nokey = true, .error = {}});
        std::vector<uint32_t> index;
        for (auto& [i, item] : order) {
          index.push_back(i);
          m->request.items.push_back(std::move(*item));
        }
        network->Submit(
            [m, index = std::move(index), gone, self, shards, server, locks, out]() mutable {
              MigrateResult res = RunMigrate(m->request);
              for (size_t i = 0; i < index.size(); ++i)
                (*gone)[index[i]] = res.acked[i] && !m->copy;
              std::vector<Message> back;
              back.emplace_back([self, shards, locks, gone, out, error = std::move(res.error)] {
                Finish(self, shards, locks, gone, out, {.nokey = false, .error = error});
              });
              if (shards->thread(self->id()).inbox().PushBatch(&back) && server->wake_all) {
                server->wake_all();
              }
            });
      });
}

// The keys Redis 7.0 finds in a MIGRATE: argument 3, or what follows KEYS (none when
// argument 3 is not empty then), options skipped with their arguments. For the cluster's slot check, the
// busy-script check and COMMAND GETKEYS.
bool MigrateKeys(ArgList args, std::vector<size_t>* out) {
  size_t first = 3, count = 1;
  for (size_t i = 6; i < args.size(); ++i) {
    // A KEYS that ends the command names none: argument 3 stands, as for Redis 7.0.
    if (EqualsIgnoreCase(args[i], "keys") && i + 1 < args.size()) {
      if (!args[3].empty()) return false;
      first = i + 1;
      count = args.size() - first;
      break;
    }
    if (EqualsIgnoreCase(args[i], "auth")) {
      i += 1;
    } else if (EqualsIgnoreCase(args[i], "auth2")) {
      i += 2;
    }
  }
  for (size_t k = 0; k < count; ++k) out->push_back(first + k);
  return count > 0;
}

}  // namespace

void RegisterMigrateCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@keyspace");
  // The coordinator finds the keys (argument 3, or those after KEYS) and runs the
  // exchange off the shards, so the row has no shard handler.
  f.Add({.name = "migrate",
         .arity = -6,
         .flags = kCmdWrite | kCmdMovableKeys,
         .keys = {3, 3, 1},
         .on_coord = Migrate,
         .find_keys = MigrateKeys,
         .categories = {"@dangerous"}});
}

}  // namespace rc
