// FCALL, FCALL_RO and FUNCTION (docs/SCRIPTING.md, "Functions"). FCALL runs where EVAL
// runs (script_run.h); the libraries are server-wide (function_registry.h) and each
// thread compiles the ones it calls (function_engine.h).

#include <optional>
#include <string>
#include <vector>

#include "core/glob.h"
#include "core/strings.h"
#include "shard/command/aof_hooks.h"
#include "shard/command/arg_parser.h"
#include "shard/command/busy_refusal.h"
#include "shard/families/scripting/script_run.h"
#include "shard/runtime/shard_set.h"
#include "shard/scripting/function_dump.h"
#include "shard/scripting/function_engine.h"
#include "shard/scripting/function_registry.h"
#include "shard/scripting/restore_set.h"
#include "shard/scripting/script_errors.h"
#include "shard/scripting/script_registry.h"
#include "shard/scripting/script_watchdog.h"
#include "shard/state/server_state.h"
#include "shard/wire/command.h"
#include "timers/clock.h"

namespace rc {

namespace {

// Redis's addReplySubcommandSyntaxError, for a FUNCTION subcommand given too many
// arguments.
void SubcommandSyntaxError(CoordCmd& cmd) {
  cmd.reply.Error(StrCat("ERR unknown subcommand or wrong number of arguments for '",
                         cmd.args[1].substr(0, 128), "'. Try FUNCTION HELP."));
}

// Redis's fcallCommandGeneric: the function, then numkeys.
template <bool kReadOnly>
bool FindFunction(ScriptRegistry& scripts, uint32_t thread, ArgList args, Invocation* inv,
                  ReplyBuilder& reply) {
  FunctionEngine& engine = scripts.function_engine(thread);
  FunctionEngine::Function f;
  std::string error;
  if (!engine.Find(args[1], &f, &error)) {
    reply.Error(error);
    return false;
  }
  if (!ParseNumKeys(args, script_err::kBadFunctionNumKeys, &inv->numkeys, reply)) return false;
  inv->engine = &engine.lua();
  inv->script = f.script;
  inv->name = f.name;
  inv->ro_command = kReadOnly;
  return true;
}

template <bool kReadOnly>
void FcallOnShard(ShardCmd& cmd) {
  RunScriptOnShard(cmd, FindFunction<kReadOnly>);
}

template <bool kReadOnly>
void FcallOnCoord(CoordCmd& cmd) {
  RunScriptOnCoord(cmd, FindFunction<kReadOnly>);
}

void FunctionLoad(CoordCmd& cmd) {
  if (cmd.server.scripts == nullptr) return cmd.reply.Error(script_err::kNotReady);
  bool replace = false;
  for (size_t i = 2; i + 1 < cmd.args.size(); ++i) {
    if (!EqualsIgnoreCase(cmd.args[i], "replace")) {
      return cmd.reply.Error(StrCat("ERR Unknown option given: ", cmd.args[i]));
    }
    replace = true;
  }
  FunctionRegistry& registry = cmd.server.scripts->functions();
  FunctionEngine& engine = cmd.server.scripts->function_engine(cmd.self.id());
  LibraryPtr lib;
  std::string error;
  auto taken = [&](std::string_view name) { return !replace && registry.Exists(name); };
  if (!engine.Make(cmd.args.back(), taken, &lib, &error) || !registry.Add(lib, replace, &error)) {
    return cmd.reply.Error(error);
  }
  AofLogCoordinator(cmd);
  cmd.reply.Bulk(lib->name);
}

void FunctionDelete(CoordCmd& cmd) {
  if (cmd.server.scripts == nullptr || !cmd.server.scripts->functions().Delete(cmd.args[2])) {
    return cmd.reply.Error(script_err::kLibraryNotFound);
  }
  AofLogCoordinator(cmd);
  cmd.reply.Ok();
}

void FunctionFlush(CoordCmd& cmd) {
  if (cmd.args.size() > 3) return SubcommandSyntaxError(cmd);
  ArgParser p(cmd.args, 2);
  p.Choice<bool>({{"SYNC", false}, {"ASYNC", true}});
  if (!p.Finish("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")) {
    return cmd.reply.Error(p.error());
  }
  if (cmd.server.scripts != nullptr) cmd.server.scripts->functions().Flush();
  AofLogCoordinator(cmd);
  cmd.reply.Ok();
}

void ListFunctions(const Library& lib, ReplyBuilder& reply) {
  reply.ArrayLen(lib.functions.size());
  for (const FunctionInfo& f : lib.functions) {
    reply.MapLen(3);
    reply.Bulk("name");
    reply.Bulk(f.name);
    reply.Bulk("description");
    if (f.has_description) {
      reply.Bulk(f.description);
    } else {
      reply.NullBulk();
    }
    reply.Bulk("flags");
    size_t n = 0;
    for (const auto& [name, bit] : kScriptFlagNames) n += (f.flags & bit) ? 1 : 0;
    reply.SetLen(n);
    for (const auto& [name, bit] : kScriptFlagNames) {
      if (f.flags & bit) reply.SimpleString(name);
    }
  }
}

void FunctionList(CoordCmd& cmd) {
  ArgParser p(cmd.args, 2);
  bool with_code = false;
  std::string_view pattern;
  bool filtered = false;
  while (p.HasNext()) {
    if (!with_code && p.Flag("WITHCODE")) {
      with_code = true;
    } else if (!filtered && p.Flag("LIBRARYNAME")) {
      filtered = true;
      if (!p.HasNext()) p.Fail("ERR library name argument was not given");
      pattern = p.Next<std::string_view>();
    } else {
      p.Fail(StrCat("ERR Unknown argument ", p.Peek()));
    }
  }
  if (!p.ok()) return cmd.reply.Error(p.error());
  std::vector<LibraryPtr> libs;
  if (cmd.server.scripts != nullptr) libs = cmd.server.scripts->functions().Libraries();
  if (filtered) {
    std::erase_if(libs, [&](const LibraryPtr& lib) {
      return !GlobMatch(pattern, lib->name, /*nocase=*/true);
    });
  }
  cmd.reply.ArrayLen(libs.size());
  for (const LibraryPtr& lib : libs) {
    cmd.reply.MapLen(with_code ? 4 : 3);
    cmd.reply.Bulk("library_name");
    cmd.reply.Bulk(lib->name);
    cmd.reply.Bulk("engine");
    cmd.reply.Bulk("LUA");
    cmd.reply.Bulk("functions");
    ListFunctions(*lib, cmd.reply);
    if (with_code) {
      cmd.reply.Bulk("library_code");
      cmd.reply.Bulk(lib->code);
    }
  }
}

void FunctionStats(CoordCmd& cmd) {
  size_t libraries = 0, functions = 0;
  if (cmd.server.scripts != nullptr) {
    for (const LibraryPtr& lib : cmd.server.scripts->functions().Libraries()) {
      ++libraries;
      functions += lib->functions.size();
    }
  }
  // Only a busy script runs while a command answers: one that has not reached
  // busy-reply-threshold holds its thread until it ends.
  std::optional<ScriptBusy::Running> running;
  for (uint32_t t = 0; t < cmd.shards.size() && !running; ++t) {
    const ScriptBusy& busy = cmd.shards.thread(t).script_busy();
    if (!busy.busy()) continue;
    // Redis refuses it while an EVAL script is busy.
    if (!busy.function()) return cmd.reply.Error(BusyError(busy));
    running = busy.running();
  }
  cmd.reply.MapLen(2);
  cmd.reply.Bulk("running_script");
  if (!running) {
    cmd.reply.NullBulk();
  } else {
    cmd.reply.MapLen(3);
    cmd.reply.Bulk("name");
    cmd.reply.Bulk(running->name);
    cmd.reply.Bulk("command");
    cmd.reply.ArrayLen(running->command.size());
    for (const std::string& a : running->command) cmd.reply.Bulk(a);
    cmd.reply.Bulk("duration_ms");
    cmd.reply.Integer((MonotonicNanos() - running->start_ns) / 1'000'000);
  }
  cmd.reply.Bulk("engines");
  cmd.reply.MapLen(1);
  cmd.reply.Bulk("LUA");
  cmd.reply.MapLen(2);
  cmd.reply.Bulk("libraries_count");
  cmd.reply.Integer(int64_t(libraries));
  cmd.reply.Bulk("functions_count");
  cmd.reply.Integer(int64_t(functions));
}

void FunctionDump(CoordCmd& cmd) {
  std::vector<LibraryPtr> libs;
  if (cmd.server.scripts != nullptr) libs = cmd.server.scripts->functions().Libraries();
  cmd.reply.Bulk(DumpLibraries(libs));
}

void FunctionRestore(CoordCmd& cmd) {
  if (cmd.server.scripts == nullptr) return cmd.reply.Error(script_err::kNotReady);
  if (cmd.args.size() > 4) return SubcommandSyntaxError(cmd);
  RestorePolicy policy = RestorePolicy::kAppend;
  if (cmd.args.size() == 4) {
    ArgParser p(cmd.args, 3);
    policy = p.NextOneOf<RestorePolicy>({{"APPEND", RestorePolicy::kAppend},
                                         {"REPLACE", RestorePolicy::kReplace},
                                         {"FLUSH", RestorePolicy::kFlush}},
                                        "ERR Wrong restore policy given, value should be either "
                                        "FLUSH, APPEND or REPLACE.");
    if (!p.ok()) return cmd.reply.Error(p.error());
  }
  FunctionEngine& engine = cmd.server.scripts->function_engine(cmd.self.id());
  // As Redis does, the payload's libraries are made into a set of their own first, so
  // they may not clash among themselves; then the set joins the server's as `policy` says.
  std::vector<LibraryPtr> libs;
  auto each = [&](std::string_view code, std::string* error) {
    return AddToRestoreSet(engine, code, &libs, error);
  };
  std::string error;
  if (!UndumpLibraries(cmd.args[2], each, &error) ||
      !cmd.server.scripts->functions().Restore(libs, policy, &error)) {
    return cmd.reply.Error(error);
  }
  AofLogCoordinator(cmd);
  cmd.reply.Ok();
}

void FunctionKill(CoordCmd& cmd) { KillBusyScripts(cmd.shards, /*eval=*/false, cmd.reply); }

void FunctionHelp(CoordCmd& cmd) {
  static const char* const kLines[] = {
      "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "LOAD [REPLACE] <FUNCTION CODE>",
      "    Create a new library with the given library name and code.",
      "DELETE <LIBRARY NAME>",
      "    Delete the given library.",
      "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
      "    Return general information on all the libraries:",
      "    * Library name",
      "    * The engine used to run the Library",
      "    * Library description",
      "    * Functions list",
      "    * Library code (if WITHCODE is given)",
      "    It also possible to get only function that matches a pattern using LIBRARYNAME "
      "argument.",
      "STATS",
      "    Return information about the current function running:",
      "    * Function name",
      "    * Command used to run the function",
      "    * Duration in MS that the function is running",
      "    If no function is running, return nil",
      "    In addition, returns a list of available engines.",
      "KILL",
      "    Kill the current running function.",
      "FLUSH [ASYNC|SYNC]",
      "    Delete all the libraries.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the libraries.",
      "    * SYNC: Synchronously flush the libraries.",
      "DUMP",
      "    Return a serialized payload representing the current libraries, can be restored "
      "using FUNCTION RESTORE command",
      "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
      "    Restore the libraries represented by the given payload, it is possible to give a "
      "restore policy to",
      "    control how to handle existing libraries (default APPEND):",
      "    * FLUSH: delete all existing libraries.",
      "    * APPEND: appends the restored libraries to the existing libraries. On collision, "
      "abort.",
      "    * REPLACE: appends the restored libraries to the existing libraries, On collision, "
      "replace the old",
      "      libraries with the new libraries (notice that even on this option there is a "
      "chance of failure",
      "      in case of functions name collision with another library).",
      "HELP",
      "    Prints this help.",
  };
  cmd.reply.HelpLines(kLines);
}

}  // namespace

void RegisterFunctionCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@scripting");
  // What changes the libraries waits for the connection's earlier FCALLs on other threads
  // (kCmdAfterEarlier), so they run the libraries they were sent to.
  constexpr uint32_t kFcall = kCmdNoScript | kCmdStale | kCmdSkipMonitor | kCmdNoMandatoryKeys;
  f.Add({.name = "fcall",
         .arity = -3,
         .flags = kFcall | kCmdMayReplicate,
         .on_shard = FcallOnShard<false>,
         .on_coord = FcallOnCoord<false>,
         .numkeys_index = 2});
  f.Add({.name = "fcall_ro",
         .arity = -3,
         .flags = kFcall | kCmdReadOnly,
         .on_shard = FcallOnShard<true>,
         .on_coord = FcallOnCoord<true>,
         .numkeys_index = 2});
  f.Add({.name = "function",
         .arity = -2,
         .flags = kCmdNoScript,
         .subcommands = {
             {.name = "load",
              .arity = -3,
              .flags = kCmdWrite | kCmdDenyOom | kCmdNoScript | kCmdAfterEarlier,
              .on_coord = FunctionLoad},
             {.name = "delete",
              .arity = 3,
              .flags = kCmdWrite | kCmdNoScript | kCmdAfterEarlier,
              .on_coord = FunctionDelete},
             {.name = "flush",
              .arity = -2,
              .flags = kCmdWrite | kCmdNoScript | kCmdAfterEarlier,
              .on_coord = FunctionFlush},
             {.name = "list", .arity = -2, .flags = kCmdNoScript, .on_coord = FunctionList},
             {.name = "stats",
              .arity = 2,
              .flags = kCmdNoScript | kCmdAllowBusy,
              .on_coord = FunctionStats},
             {.name = "dump", .arity = 2, .flags = kCmdNoScript, .on_coord = FunctionDump},
             {.name = "restore",
              .arity = -3,
              .flags = kCmdWrite | kCmdDenyOom | kCmdNoScript | kCmdAfterEarlier,
              .on_coord = FunctionRestore},
             {.name = "kill",
              .arity = 2,
              .flags = kCmdNoScript | kCmdAllowBusy,
              .on_coord = FunctionKill},
             {.name = "help", .arity = 2, .flags = kHelpFlags, .on_coord = FunctionHelp},
         }});
}

}  // namespace rc
