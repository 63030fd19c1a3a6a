// DEBUG SLEEP / HELP, and ringcache's own THREAD and KEYSHARD, which tell tests where a
// connection and a key live (Redis's DEBUG has subcommands of its own version too).

#include <chrono>
#include <thread>

#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/dispatcher.h"
#include "shard/command/errors.h"

namespace rc {

namespace {

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
  if (sub == "thread" && cmd.args.size() == 2) return cmd.reply.Integer(cmd.self.id());
  if (sub == "keyshard" && cmd.args.size() == 3) {
    return cmd.reply.Integer(cmd.shards.ShardOf(cmd.args[2]));
  }
  if (sub == "help" && cmd.args.size() == 2) {
    static const char* kLines[] = {
        "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
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
                       .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale,
                       .on_coord = Debug});
}

}  // namespace rc
