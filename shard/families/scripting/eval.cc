// EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT (docs/SCRIPTING.md). Where a script runs
// and the checks before it runs are script_run.h's, shared with FCALL.

#include <cctype>
#include <string>

#include "core/strings.h"
#include "shard/command/arg_parser.h"
#include "shard/command/errors.h"
#include "shard/families/scripting/script_run.h"
#include "shard/runtime/shard_set.h"
#include "shard/scripting/lua_engine.h"
#include "shard/scripting/script_errors.h"
#include "shard/scripting/script_registry.h"
#include "shard/scripting/script_watchdog.h"
#include "shard/scripting/sha1.h"
#include "shard/state/server_state.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

enum EvalKind : uint8_t { kBody = 0, kBySha = 1, kReadOnly = 2 };

// Redis's evalGenericCommand: numkeys, then the script (compiled here if needed).
template <uint8_t kKind>
bool FindEval(ScriptRegistry& scripts, uint32_t thread, ArgList args, Invocation* inv,
              ReplyBuilder& reply) {
  if (!ParseNumKeys(args, err::kNotInteger, &inv->numkeys, reply)) return false;
  LuaEngine& engine = scripts.engine(thread);
  inv->engine = &engine;
  inv->ro_command = kKind & kReadOnly;
  std::string error;
  if (kKind & kBySha) {
    if (args[1].size() != 40) {
      reply.Error(script_err::kNoScript);
      return false;
    }
    inv->name = LowerSha(args[1], inv->hex);
    if (!engine.Find(inv->name, &inv->script, &error)) {
      reply.Error(error);
      return false;
    }
  } else {
    inv->name = Sha1Hex(args[1], inv->hex);
    if (!engine.Load(inv->name, args[1], &inv->script, &error)) {
      reply.Error(error);
      return false;
    }
    scripts.Add(inv->name, args[1]);
  }
  return true;
}

// The script of an EVAL leaving for a shard is registered before it leaves: the
// connection's next EVALSHA may run on another shard before this one runs there. One that
// does not compile is left to fail on its shard, with the same error.
void RegisterBeforeHop(ShardThread& self, ServerState& server, ArgList args) {
  if (server.scripts == nullptr || args.size() < 2) return;
  const std::string sha = Sha1Hex(args[1]);
  if (server.scripts->Exists(sha)) return;
  std::string error;
  LuaEngine::Script script;
  if (server.scripts->engine(self.id()).Load(sha, args[1], &script, &error)) {
    server.scripts->Add(sha, args[1]);
  }
}

template <uint8_t kKind>
void EvalOnShard(ShardCmd& cmd) {
  RunScriptOnShard(cmd, FindEval<kKind>);
}

template <uint8_t kKind>
void EvalOnCoord(CoordCmd& cmd) {
  RunScriptOnCoord(cmd, FindEval<kKind>);
}

bool IsFlushMode(std::string_view s) {
  return EqualsIgnoreCase(s, "async") || EqualsIgnoreCase(s, "sync");
}

void ScriptFlush(CoordCmd& cmd) {
  if (cmd.args.size() > 3 || (cmd.args.size() == 3 && !IsFlushMode(cmd.args[2]))) {
    return cmd.reply.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
  }
  if (cmd.server.scripts != nullptr) cmd.server.scripts->Flush();
  cmd.reply.Ok();
}

void ScriptExists(CoordCmd& cmd) {
  cmd.reply.ArrayLen(cmd.args.size() - 2);
  for (size_t i = 2; i < cmd.args.size(); ++i) {
    std::string sha(cmd.args[i]);
    for (char& c : sha) c = char(std::tolower(static_cast<unsigned char>(c)));
    const bool known = cmd.server.scripts != nullptr && cmd.server.scripts->Exists(sha);
    cmd.reply.Integer(known ? 1 : 0);
  }
}

void ScriptLoad(CoordCmd& cmd) {
  if (cmd.server.scripts == nullptr) return cmd.reply.Error(script_err::kNotReady);
  LuaEngine& engine = cmd.server.scripts->engine(cmd.self.id());
  char hex[40];
  const std::string_view sha = Sha1Hex(cmd.args[2], hex);
  std::string error;
  LuaEngine::Script script;
  if (!engine.Load(sha, cmd.args[2], &script, &error)) return cmd.reply.Error(error);
  cmd.server.scripts->Add(sha, cmd.args[2]);
  cmd.reply.Bulk(sha);
}

void ScriptKill(CoordCmd& cmd) { KillBusyScripts(cmd.shards, /*eval=*/true, cmd.reply); }

void ScriptDebug(CoordCmd& cmd) {
  std::string_view mode = cmd.args[2];
  if (EqualsIgnoreCase(mode, "no")) return cmd.reply.Ok();
  if (EqualsIgnoreCase(mode, "yes") || EqualsIgnoreCase(mode, "sync")) {
    return cmd.reply.Error("ERR SCRIPT DEBUG is not supported by ringcache");
  }
  cmd.reply.Error("ERR Use SCRIPT DEBUG YES/SYNC/NO");
}

void ScriptHelp(CoordCmd& cmd) {
  static const char* const kLines[] = {
      "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DEBUG (YES|SYNC|NO)",
      "    Set the debug mode for subsequent scripts executed.",
      "EXISTS <sha1> [<sha1> ...]",
      "    Return information about the existence of the scripts in the script cache.",
      "FLUSH [ASYNC|SYNC]",
      "    Flush the Lua scripts cache. Very dangerous on replicas.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the scripts cache.",
      "    * SYNC: Synchronously flush the scripts cache.",
      "KILL",
      "    Kill the currently executing Lua script.",
      "LOAD <script>",
      "    Load a script into the scripts cache without executing it.",
      "HELP",
      "    Prints this help."};
  cmd.reply.HelpLines(kLines);
}

}  // namespace

void RegisterScriptingCommands(CommandTable& t) {
  CommandTable::Family f = t.StartFamily("@scripting");
  constexpr uint32_t kEval = kCmdNoScript | kCmdStale | kCmdSkipMonitor | kCmdNoMandatoryKeys;
  f.Add({.name = "eval",
         .arity = -3,
         .flags = kEval | kCmdMayReplicate,
         .on_shard = EvalOnShard<kBody>,
         .on_coord = EvalOnCoord<kBody>,
         .prepare = RegisterBeforeHop,
         .numkeys_index = 2});
  f.Add({.name = "evalsha",
         .arity = -3,
         .flags = kEval | kCmdMayReplicate,
         .on_shard = EvalOnShard<kBySha>,
         .on_coord = EvalOnCoord<kBySha>,
         .numkeys_index = 2});
  f.Add({.name = "eval_ro",
         .arity = -3,
         .flags = kEval | kCmdReadOnly,
         .on_shard = EvalOnShard<kBody | kReadOnly>,
         .on_coord = EvalOnCoord<kBody | kReadOnly>,
         .prepare = RegisterBeforeHop,
         .numkeys_index = 2});
  f.Add({.name = "evalsha_ro",
         .arity = -3,
         .flags = kEval | kCmdReadOnly,
         .on_shard = EvalOnShard<kBySha | kReadOnly>,
         .on_coord = EvalOnCoord<kBySha | kReadOnly>,
         .numkeys_index = 2});
  f.Add(
      {.name = "script",
       .arity = -2,
       .subcommands = {
           {.name = "help", .arity = 2, .flags = kHelpFlags, .on_coord = ScriptHelp},
           {.name = "flush",
            .arity = -2,
            .flags = kCmdNoScript | kCmdAfterEarlier,
            .on_coord = ScriptFlush},
           {.name = "debug", .arity = 3, .flags = kCmdNoScript, .on_coord = ScriptDebug},
           {.name = "exists", .arity = -3, .flags = kCmdNoScript, .on_coord = ScriptExists},
           {.name = "kill",
            .arity = 2,
            .flags = kCmdNoScript | kCmdAllowBusy,
            .on_coord = ScriptKill},
           {.name = "load", .arity = 3, .flags = kCmdNoScript | kCmdStale, .on_coord = ScriptLoad},
       }});
}

}  // namespace rc
