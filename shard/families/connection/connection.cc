// Connection commands: PING, ECHO, QUIT, SELECT, HELLO, RESET (CLIENT and MONITOR are in
// client.cc). They run on the connection's thread and touch only its ClientState
// (RESET also leaves its WATCHes and subscriptions, which live on shards).

#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/dispatcher.h"
#include "shard/command/errors.h"
#include "shard/runtime/pubsub.h"
#include "shard/runtime/shard_set.h"
#include "shard/runtime/watch.h"
#include "shard/state/auth.h"
#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"

namespace rc {

void RegisterClientCommands(CommandTable& t);
void RegisterAuthCommands(CommandTable& t);

namespace {

void Ping(CoordCmd& cmd) {
  if (cmd.args.size() > 2) return cmd.reply.Error(WrongArityError("ping"));
  if (cmd.client.Subscriptions() > 0 && !cmd.client.resp3) {
    // A subscribed RESP2 client gets PING's answer in the shape of a message.
    cmd.reply.ArrayLen(2);
    cmd.reply.Bulk("pong");
    cmd.reply.Bulk(cmd.args.size() == 2 ? cmd.args[1] : "");
    return;
  }
  if (cmd.args.size() == 2) return cmd.reply.Bulk(cmd.args[1]);
  cmd.reply.SimpleString("PONG");
}

void Echo(CoordCmd& cmd) { cmd.reply.Bulk(cmd.args[1]); }

void Quit(CoordCmd& cmd) {
  cmd.client.close_after_reply = true;
  cmd.reply.Ok();
}

// The connection as a new one would be, except its name and id (Redis's RESET).
void ResetConnection(CoordCmd& cmd) {
  ClientState& c = cmd.client;
  c.multi.reset();
  UnwatchAll(cmd.self, cmd.shards, c);
  DropSubscriptions(cmd.self.pubsub(), c, &cmd.sink, cmd.server);
  c.authenticated = !AuthEnabled(cmd.server);
  // CLIENT REPLY and CLIENT NO-EVICT go back to their defaults, as in Redis.
  c.reply_bits = 0;
  c.no_evict = false;
  cmd.self.clients().RemoveMonitor(c.id, cmd.server.introspect.monitors);
  c.monitor = false;
  cmd.reply.SimpleString("RESET");
}

void Select(CoordCmd& cmd) {
  int64_t db;
  if (!ParseInt64(cmd.args[1], &db)) return cmd.reply.Error(err::kNotInteger);
  // One database: index 0, as a cluster-mode Redis.
  if (db != 0) return cmd.reply.Error(err::kDbIndexRange);
  cmd.reply.Ok();
}

// HELLO [protover [AUTH username password] [SETNAME clientname]]: switches the
// connection's protocol and describes the server, checks in Redis 7.0's order.
void Hello(CoordCmd& cmd) {
  int64_t version = 0;
  if (cmd.args.size() >= 2) {
    if (!ParseInt64(cmd.args[1], &version)) {
      return cmd.reply.Error("ERR Protocol version is not an integer or out of range");
    }
    if (version < 2 || version > 3) {
      return cmd.reply.Error("NOPROTO unsupported protocol version");
    }
  }
  std::string_view user, password, name;
  bool auth = false, setname = false;
  for (size_t j = 2; j < cmd.args.size(); ++j) {
    size_t more = cmd.args.size() - 1 - j;
    if (EqualsIgnoreCase(cmd.args[j], "auth") && more >= 2) {
      auth = true;
      user = cmd.args[j + 1];
      password = cmd.args[j + 2];
      j += 2;
    } else if (EqualsIgnoreCase(cmd.args[j], "setname") && more >= 1) {
      setname = true;
      name = cmd.args[++j];
    } else {
      return cmd.reply.Error(StrCat("ERR Syntax error in HELLO option '", cmd.args[j], "'"));
    }
  }
  // Only the default user exists (shard/auth.h); a failed AUTH option answers WRONGPASS.
  if (auth) {
    std::string_view why = TryAuthenticate(cmd.server, cmd.client, user, password);
    if (!why.empty()) return cmd.reply.Error(why);
  }
  if (AuthRequired(cmd.server, cmd.client)) return cmd.reply.Error(err::kHelloNoAuth);
  if (setname) {
    if (!ValidClientField(name)) {
      return cmd.reply.Error(
          "ERR Client names cannot contain spaces, newlines or special characters.");
    }
    cmd.client.name = std::string(name);
  }
  if (version != 0) cmd.client.resp3 = version == 3;
  ReplyBuilder rb(cmd.reply.out(), cmd.client.resp3);
  rb.MapLen(7);
  rb.Bulk("server");
  rb.Bulk("redis");
  rb.Bulk("version");
  rb.Bulk(kRedisVersion);
  rb.Bulk("proto");
  rb.Integer(cmd.client.resp3 ? 3 : 2);
  rb.Bulk("id");
  rb.Integer(int64_t(cmd.client.id));
  rb.Bulk("mode");
  rb.Bulk("standalone");
  rb.Bulk("role");
  rb.Bulk("master");
  rb.Bulk("modules");
  rb.ArrayLen(0);
}

}  // namespace

void RegisterConnectionCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@connection");
  f.Add({.name = "ping", .arity = -1, .flags = kCmdFast | kCmdSubscribeOk, .on_coord = Ping});
  f.Add(
      {.name = "echo", .arity = 2, .flags = kCmdFast | kCmdLoading | kCmdStale, .on_coord = Echo});
  f.Add({.name = "quit",
         .arity = -1,
         .flags = kCmdNoScript | kCmdFast | kCmdNoAuth | kCmdLoading | kCmdStale | kCmdAllowBusy |
                  kCmdSubscribeOk | kCmdNotQueued,
         .on_coord = Quit});
  f.Add({.name = "select",
         .arity = 2,
         .flags = kCmdLoading | kCmdStale | kCmdFast,
         .on_coord = Select});
  f.Add({.name = "hello",
         .arity = -1,
         .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdNoAuth | kCmdAllowBusy,
         .on_coord = Hello});
  f.Add({.name = "reset",
         .arity = 1,
         .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdNoAuth | kCmdAllowBusy |
                  kCmdSubscribeOk | kCmdNotQueued,
         .on_coord = ResetConnection});
  RegisterClientCommands(t);
  RegisterAuthCommands(t);
}

}  // namespace rc
