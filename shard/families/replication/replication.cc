// REPLICAOF (SLAVEOF) and ROLE (docs/REPLICATION.md). The master link itself:
// shard/persist/replica_link.h.

#include <string>

#include "absl/random/random.h"
#include "core/log.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/errors.h"
#include "shard/persist/replica_link.h"
#include "shard/state/server_state.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

std::string NewReplid() {
  absl::BitGen gen;
  std::string id;
  for (int i = 0; i < 40; ++i) id.push_back("0123456789abcdef"[absl::Uniform(gen, 0, 16)]);
  return id;
}

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
        repl.replid = NewReplid();
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
    cmd.reply.ArrayLen(3);
    cmd.reply.Bulk("master");
    cmd.reply.Integer(0);
    cmd.reply.ArrayLen(0);
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
  f.Add({.name = "role",
         .arity = 1,
         .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast,
         .on_coord = Role,
         .categories = {"@admin", "@dangerous"}});
}

}  // namespace rc
