// REPLICAOF (SLAVEOF) and ROLE, and a master's PSYNC, SYNC and REPLCONF
// (docs/REPLICATION.md). A replica's link to its master: shard/persist/replica_link.h; a
// master's replicas and their stream: shard/runtime/replication_hub.h.

#include <unistd.h>

#include <memory>
#include <string>

#include "core/log.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/errors.h"
#include "shard/persist/aof_replay.h"
#include "shard/persist/replica_link.h"
#include "shard/persist/save.h"
#include "shard/runtime/replication_hub.h"
#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

void ReplicaOf(CoordCmd& cmd) {
  ServerState& server = cmd.server;
  ReplicationState& repl = server.replication;
  if (server.config.cluster_enabled) {
    return cmd.reply.Error("ERR REPLICAOF not allowed in cluster mode.");
  }
  if (EqualsIgnoreCase(cmd.args[1], "no") && EqualsIgnoreCase(cmd.args[2], "one")) {
    if (repl.replica.exchange(false)) {
      if (repl.link_thread != nullptr) repl.link_thread->Unfollow();
      repl.link.store(LinkState::kNone);
      {
        // A new history starts here; replicas of the old one may still continue it.
        std::lock_guard<std::mutex> lock(repl.mu);
        repl.replid2 = repl.replid;
        repl.second_offset = repl.offset.load() + 1;
        repl.replid = RandomReplicationId();
        repl.master_host.clear();
        repl.master_port = 0;
      }
      {
        std::lock_guard<std::mutex> lock(server.config_mu);
        server.config.replicaof.clear();
      }
      Log(LogLevel::kNotice, "MASTER MODE enabled (user request from '", cmd.client.addr, "')");
    }
    return cmd.reply.Ok();
  }
  int64_t port = 0;
  if (!ParseInt64(cmd.args[2], &port) || port < 0 || port > 65535) {
    return cmd.reply.Error("ERR Invalid master port");
  }
  if (repl.link_thread == nullptr) return cmd.reply.Error("ERR replication is not available here");
  cmd.shards.replicas().DisconnectAll();
  const std::string host(cmd.args[1]);
  if (!repl.link_thread->Follow(host, int(port)) && repl.replica.load()) {
    return cmd.reply.SimpleString("OK Already connected to specified master");
  }
  {
    std::lock_guard<std::mutex> lock(repl.mu);
    repl.master_host = host;
    repl.master_port = int(port);
  }
  {
    std::lock_guard<std::mutex> lock(server.config_mu);
    server.config.replicaof = StrCat(host, " ", port);
  }
  repl.down_since_ms.store(0);
  if (repl.link.load() == LinkState::kNone) repl.link.store(LinkState::kConnect);
  repl.replica.store(true);
  Log(LogLevel::kNotice, "REPLICAOF ", host, ":", port, " enabled (user request from '",
      cmd.client.addr, "')");
  cmd.reply.Ok();
}

// The address a replica's connection came from, without its port.
std::string PeerIp(const std::string& addr) {
  const size_t colon = addr.rfind(':');
  std::string ip = colon == std::string::npos ? addr : addr.substr(0, colon);
  if (ip.size() >= 2 && ip.front() == '[' && ip.back() == ']') ip = ip.substr(1, ip.size() - 2);
  return ip;
}

// PSYNC and SYNC: always a full sync (no backlog is kept yet). The snapshot is taken at
// one point, as BGSAVE's; the replica's stream starts there. It goes out as the RDB
// payload once written, then whatever the journal gave since the point.
void Sync(CoordCmd& cmd) {
  ServerState& server = cmd.server;
  ClientState& client = cmd.client;
  if (client.is_replica) return;  // as Redis: a second PSYNC on a replica link is ignored
  if (server.replication.replica.load()) {
    return cmd.reply.Error("ERR ringcache serves replicas only as a master");
  }
  const bool psync = EqualsIgnoreCase(cmd.args[0], "psync");
  std::string dir;
  {
    std::lock_guard<std::mutex> lock(server.config_mu);
    dir = server.config.dir;
  }
  const uint64_t id = client.id;
  const uint32_t thread = cmd.self.id();
  const std::string file = StrCat("temp-replica-", ::getpid(), "-", id, ".rdb");
  const std::string path = StrCat(dir, "/", file);
  ShardSet* shards = &cmd.shards;
  ServerState* state = &server;
  std::string replid;
  {
    std::lock_guard<std::mutex> lock(server.replication.mu);
    replid = server.replication.replid;
  }
  DeferredReply reply(cmd);
  SnapshotJob job;
  job.dir = dir;
  job.filename = file;
  job.at_point = [shards, id, thread, ip = PeerIp(client.addr), port = client.replica_port,
                  reply, psync, replid] {
    // Every shard is held: nothing runs between the snapshot and the stream's start.
    shards->journal().set_tap(&shards->replicas());
    const int64_t offset = shards->replicas().Attach(id, thread, ip, port);
    Log(LogLevel::kNotice, "Replica ", ip, ":", port, " asks for synchronization");
    reply.Send([&](ReplyBuilder& rb) {
      if (psync) {
        rb.SimpleString(StrCat("FULLRESYNC ", replid, " ", offset));
      }
    });
  };
  job.finished = [shards, state, id, thread, path](bool ok, const std::string& why) {
    std::vector<Message> batch;
    batch.emplace_back([shards, id, thread, path, ok, why] {
      ClientHandle* c = shards->thread(thread).clients().Find(id);
      std::string payload;
      if (ok && c != nullptr && ReadWholeFile(path, &payload)) {
        c->PushMonitorLine(StrCat("$", payload.size(), "\r\n", payload));
        shards->replicas().Online(id);
        Log(LogLevel::kNotice, "Synchronization with replica ", c->client().addr, " succeeded");
      } else {
        shards->replicas().Detach(id);
        if (c != nullptr) c->Kill(false);
        Log(LogLevel::kWarning, "Synchronization with a replica failed: ", ok ? "gone" : why);
      }
      ::unlink(path.c_str());
    });
    if (shards->thread(thread).inbox().PushBatch(&batch) && state->wake_all) state->wake_all();
  };
  client.is_replica = true;
  std::string error;
  if (!StartSnapshot(cmd.self, cmd.shards, server, &client, &cmd.sink, std::move(job), &error)) {
    client.is_replica = false;
    reply.Send([&](ReplyBuilder& rb) { rb.Error(error); });
  }
}

// REPLCONF from a replica: its listening port and capabilities (+OK), its ACKs (no
// reply, as Redis sends none).
void ReplConf(CoordCmd& cmd) {
  if (cmd.args.size() % 2 == 0) return cmd.reply.Error(err::kSyntax);
  for (size_t i = 1; i + 1 < cmd.args.size(); i += 2) {
    const std::string option = ToLower(cmd.args[i]);
    if (option == "ack" || option == "fack") {
      if (!cmd.client.is_replica) return;
      int64_t offset = 0;
      if (ParseInt64(cmd.args[i + 1], &offset)) {
        cmd.shards.replicas().Ack(cmd.client.id, offset, cmd.server.clock->NowUnixMillis());
      }
      return;
    }
    if (option == "getack") return;
    if (option == "listening-port") {
      int64_t port = 0;
      if (!ParseInt64(cmd.args[i + 1], &port)) {
        return cmd.reply.Error("ERR value is not an integer or out of range");
      }
      cmd.client.replica_port = int(port);
    } else if (option != "capa" && option != "ip-address" && option != "rdb-only") {
      return cmd.reply.Error(StrCat("ERR Unrecognized REPLCONF option: ", cmd.args[i]));
    }
  }
  cmd.reply.Ok();
}

std::string_view LinkStateName(LinkState s) {
  switch (s) {
    case LinkState::kConnect:
      return "connect";
    case LinkState::kConnecting:
      return "connecting";
    case LinkState::kHandshake:
      return "handshake";
    case LinkState::kSync:
      return "sync";
    case LinkState::kConnected:
      return "connected";
    case LinkState::kNone:
      break;
  }
  return "unknown";
}

void Role(CoordCmd& cmd) {
  const ReplicationState& repl = cmd.server.replication;
  if (!repl.replica.load()) {
    const std::vector<ReplicationHub::View> replicas = cmd.shards.replicas().List();
    cmd.reply.ArrayLen(3);
    cmd.reply.Bulk("master");
    cmd.reply.Integer(cmd.shards.replicas().offset());
    size_t online = 0;
    for (const ReplicationHub::View& v : replicas) online += v.online ? 1 : 0;
    cmd.reply.ArrayLen(online);
    for (const ReplicationHub::View& v : replicas) {
      if (!v.online) continue;
      cmd.reply.ArrayLen(3);
      cmd.reply.Bulk(v.ip);
      cmd.reply.Bulk(std::to_string(v.port));
      cmd.reply.Bulk(std::to_string(v.ack_offset));
    }
    return;
  }
  std::string host;
  int port = 0;
  {
    std::lock_guard<std::mutex> lock(repl.mu);
    host = repl.master_host;
    port = repl.master_port;
  }
  const LinkState link = repl.link.load();
  cmd.reply.ArrayLen(5);
  cmd.reply.Bulk("slave");
  cmd.reply.Bulk(host);
  cmd.reply.Integer(port);
  cmd.reply.Bulk(LinkStateName(link));
  cmd.reply.Integer(link == LinkState::kConnected ? repl.offset.load() : -1);
}

}  // namespace

void RegisterReplicationCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily();
  for (const char* name : {"replicaof", "slaveof"}) {
    f.Add({.name = name,
           .arity = 3,
           .flags = kCmdAdmin | kCmdNoScript | kCmdStale | kCmdNoAsyncLoading,
           .on_coord = ReplicaOf,
           .categories = {"@dangerous"}});
  }
  f.Add({.name = "psync",
         .arity = -3,
         .flags = kCmdAdmin | kCmdNoScript | kCmdNoMulti | kCmdNoAsyncLoading,
         .on_coord = Sync,
         .categories = {"@dangerous"}});
  f.Add({.name = "sync",
         .arity = 1,
         .flags = kCmdAdmin | kCmdNoScript | kCmdNoMulti | kCmdNoAsyncLoading,
         .on_coord = Sync,
         .categories = {"@dangerous"}});
  f.Add({.name = "replconf",
         .arity = -1,
         .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale | kCmdAllowBusy,
         .on_coord = ReplConf,
         .categories = {"@dangerous"}});
  f.Add({.name = "role",
         .arity = 1,
         .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast,
         .on_coord = Role,
         .categories = {"@admin", "@dangerous"}});
}

}  // namespace rc
