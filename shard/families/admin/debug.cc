// DEBUG RELOAD / SLEEP / HELP, and ringcache's own THREAD and KEYSHARD, which tell tests where a
// connection and a key live (Redis's DEBUG has subcommands of its own version too).

#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "core/numbers.h"
#include "core/strings.h"
#include "core/log.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/dispatcher.h"
#include "shard/command/errors.h"
#include "shard/persist/rdb_load.h"
#include "shard/persist/save.h"

namespace rc {

namespace {

// DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE], as Redis 7.0's: save the snapshot, empty the
// keyspace and the function libraries, load the file back. NOSAVE loads the file as it
// is; NOFLUSH loads it over the data, and MERGE lets its keys replace those of their
// names (without it a key in both is the load's error).
void Reload(CoordCmd& cmd) {
  ReloadOptions opts;
  bool save = true;
  for (size_t i = 2; i < cmd.args.size(); ++i) {
    const std::string opt = ToLower(cmd.args[i]);
    if (opt == "merge") {
      opts.merge = true;
    } else if (opt == "noflush") {
      opts.flush = false;
    } else if (opt == "nosave") {
      save = false;
    } else {
      return cmd.reply.Error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
    }
  }
  std::string path;
  {
    std::lock_guard<std::mutex> lock(cmd.server.config_mu);
    path = StrCat(cmd.server.config.dir, "/", cmd.server.config.dbfilename);
  }
  DeferredReply reply(cmd);
  ShardThread* self = &cmd.self;
  ShardSet* shards = &cmd.shards;
  ServerState* server = &cmd.server;
  ClientState* client = &cmd.client;
  ReplySink* sink = &cmd.sink;
  // Saved and loaded under one hold of every shard: no write lands between the
  // snapshot's point and the load, as none can in Redis's one thread.
  std::shared_ptr<const LockSet> held = save ? LockWholeShards(cmd.shards) : nullptr;
  auto load = [=] {
    ReloadRdbFile(*self, *shards, *server, *client, *sink, path, opts, held,
                  [reply, server](bool ok, const LoadStats& stats, const std::string& error) {
                    if (!ok) {
                      Log(LogLevel::kWarning, "DEBUG RELOAD failed: ", error);
                      return reply.Send([](ReplyBuilder& rb) {
                        rb.Error("ERR Error trying to load the RDB dump");
                      });
                    }
                    server->persist.loaded_keys.store(stats.keys);
                    server->persist.loaded_expired.store(stats.expired);
                    Log(LogLevel::kWarning, "DB reloaded by DEBUG RELOAD");
                    reply.Send([](ReplyBuilder& rb) { rb.Ok(); });
                  });
  };
  if (!save) return load();
  std::string error;
  const bool started = StartSave(
      cmd.self, cmd.shards, cmd.server, &cmd.client, &cmd.sink, SaveReason::kCommand,
      [reply, load, self, shards, held](bool ok) {
        if (ok) return load();
        ReleaseEverywhere(*self, *shards, held);
        reply.Send([](ReplyBuilder& rb) { rb.Error("ERR"); });
      },
      &error, held);
  if (!started) reply.Send([&error](ReplyBuilder& rb) { rb.Error(error); });
}

void Debug(CoordCmd& cmd) {
  // As Redis 7: refused unless enable-debug-command (immutable, so read without
  // config_mu) allows this client. DEBUG SLEEP stalls a thread and its shard.
  if (!cmd.client.AdmittedBy(cmd.server.config.enable_debug_command)) {
    return cmd.reply.Error(
        "ERR DEBUG command not allowed. If the enable-debug-command option is set to "
        "\"local\", you can run it from a local connection, otherwise you need to set this "
        "option in the configuration file, and then restart the server.");
  }
  std::string sub = ToLower(cmd.args[1]);
  if (sub == "sleep" && cmd.args.size() == 3) {
    double secs;
    if (!ParseDouble(cmd.args[2], &secs)) return cmd.reply.Error(err::kNotFloat);
    // Redis stops the whole server; here it stops this connection's thread, with every
    // connection and shard it owns, which is what tests of slow commands want.
    if (secs > 0) std::this_thread::sleep_for(std::chrono::duration<double>(secs));
    return cmd.reply.Ok();
  }
  if (sub == "reload") return Reload(cmd);
  if (sub == "thread" && cmd.args.size() == 2) return cmd.reply.Integer(cmd.self.id());
  if (sub == "keyshard" && cmd.args.size() == 3) {
    return cmd.reply.Integer(cmd.shards.ShardOf(cmd.args[2]));
  }
  if (sub == "help" && cmd.args.size() == 2) {
    static const char* kLines[] = {
        "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "RELOAD [option ...]",
        "    Save the RDB on disk and reload it back to memory. Options:",
        "    * MERGE: Merge the content of the RDB with the current data.",
        "    * NOFLUSH: Do not empty the current data before loading the RDB.",
        "    * NOSAVE: Do not save the RDB before loading.",
        "SLEEP <seconds>",
        "    Stop the server for <seconds>. Decimals allowed.",
        "THREAD",
        "    Return the index of the thread that serves this connection.",
        "KEYSHARD <key>",
        "    Return the index of the shard (and thread) that owns <key>.",
        "HELP",
        "    Prints this help.",
    };
    return cmd.reply.HelpLines(kLines);
  }
  cmd.reply.Error(StrCat("ERR unknown subcommand or wrong number of arguments for '", cmd.args[1],
                         "'. Try DEBUG HELP."));
}

}  // namespace

void RegisterDebugCommands(CommandTable& t) {
  // DEBUG is not a container in Redis: its subcommands are parsed by the handler.
  t.StartFamily().Add({.name = "debug",
                       .arity = -2,
                       // RELOAD holds every shard and replaces the function libraries:
                       // -BUSY while a script is busy (as Redis refuses DEBUG then), and
                       // after the replies of the connection's earlier commands.
                       .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale |
                                kCmdAllThreads | kCmdAfterEarlier,
                       .on_coord = Debug});
}

}  // namespace rc
