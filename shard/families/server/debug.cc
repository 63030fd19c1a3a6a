// DEBUG SLEEP / HELP, and FUNCTION LIST / FLUSH answering as a server with no functions
// (ringcache has no scripting; clients and test harnesses call these at start-up).

#include <chrono>
#include <thread>

#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/arg_parser.h"
#include "shard/command/dispatcher.h"
#include "shard/command/errors.h"

namespace rc {

namespace {

void Debug(CoordCmd& cmd) {
  std::string sub = ToLower(cmd.args[1]);
  if (sub == "sleep" && cmd.args.size() == 3) {
    double secs;
    if (!ParseDouble(cmd.args[2], &secs)) return cmd.reply.Error(err::kNotFloat);
    // Redis stops the whole server; here it stops this connection's thread, with every
    // connection and shard it owns, which is what tests of slow commands want.
    if (secs > 0) std::this_thread::sleep_for(std::chrono::duration<double>(secs));
    return cmd.reply.Ok();
  }
  if (sub == "help" && cmd.args.size() == 2) {
    static const char* kLines[] = {
        "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "SLEEP <seconds>",
        "    Stop the server for <seconds>. Decimals allowed.",
        "HELP",
        "    Prints this help.",
    };
    return cmd.reply.HelpLines(kLines);
  }
  cmd.reply.Error(StrCat("ERR unknown subcommand or wrong number of arguments for '", cmd.args[1],
                         "'. Try DEBUG HELP."));
}

void FunctionList(CoordCmd& cmd) {
  // Validates WITHCODE and LIBRARYNAME (each at most once) as Redis does, then lists
  // nothing.
  ArgParser p(cmd.args, 2);
  bool with_code = false, library = false;
  while (p.HasNext()) {
    if (!with_code && p.Flag("WITHCODE")) {
      with_code = true;
    } else if (!library && p.Flag("LIBRARYNAME")) {
      library = true;
      if (!p.HasNext()) p.Fail("ERR library name argument was not given");
      p.Next<std::string_view>();
    } else {
      p.Fail(StrCat("ERR Unknown argument ", p.Peek()));
    }
  }
  if (!p.ok()) return cmd.reply.Error(p.error());
  cmd.reply.ArrayLen(0);
}

void FunctionFlush(CoordCmd& cmd) {
  if (cmd.args.size() > 3) return cmd.reply.Error(WrongArityError("function|flush"));
  ArgParser p(cmd.args, 2);
  p.Choice<bool>({{"SYNC", false}, {"ASYNC", true}});
  if (!p.Finish("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")) {
    return cmd.reply.Error(p.error());
  }
  cmd.reply.Ok();
}

void FunctionHelp(CoordCmd& cmd) {
  static const char* kLines[] = {
      "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "LIST [LIBRARYNAME <library_name_pattern>] [WITHCODE]",
      "    Return general information on all the libraries:",
      "    * Library name",
      "    * The engine used to run the Library",
      "    * Library description",
      "    * Functions list",
      "    * Library code (if WITHCODE is given)",
      "    It also possible to get only function that matches a pattern using LIBRARYNAME",
      "    argument.",
      "FLUSH [ASYNC|SYNC]",
      "    Delete all the libraries.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the libraries.",
      "    * SYNC: Synchronously flush the libraries.",
      "HELP",
      "    Prints this help.",
  };
  cmd.reply.HelpLines(kLines);
}

}  // namespace

void RegisterDebugCommands(CommandTable& t) {
  // DEBUG is not a container in Redis: its subcommands are parsed by the handler.
  t.StartFamily().Add({.name = "debug",
                       .arity = -2,
                       .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale,
                       .on_coord = Debug});
  t.StartFamily("@scripting")
      .Add({.name = "function",
            .arity = -2,
            .flags = kCmdNoScript,
            .subcommands = {
                {.name = "list", .arity = -2, .flags = kCmdNoScript, .on_coord = FunctionList},
                {.name = "flush",
                 .arity = -2,
                 .flags = kCmdWrite | kCmdNoScript,
                 .on_coord = FunctionFlush},
                {.name = "help", .arity = 2, .flags = kHelpFlags, .on_coord = FunctionHelp},
            }});
}

}  // namespace rc
