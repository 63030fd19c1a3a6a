// EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT (docs/SCRIPTING.md).
//
//   keys all on one shard ─▶ on_shard (EvalOnShard) on that shard's thread: the script
//                            runs there as one step, atomic like any command
//   no keys ──────────────▶ on_coord (EvalOnCoord) on the connection's thread, on its shard
//   keys on several shards ▶ on_coord: a ScriptTask (script_task.h), atomic under the
//                            locks of its keys, suspending while other shards run the
//                            commands it calls

#include <cctype>
#include <string>

#include "core/strings.h"
#include "shard/command/arg_parser.h"
#include "shard/command/command.h"
#include "shard/command/errors.h"
#include "shard/runtime/memory_limit.h"
#include "shard/runtime/shard_set.h"
#include "shard/scripting/lua_engine.h"
#include "shard/scripting/script_errors.h"
#include "shard/scripting/script_registry.h"
#include "shard/scripting/script_task.h"
#include "shard/scripting/sha1.h"
#include "shard/server/server_state.h"

namespace rc {

namespace {

constexpr std::string_view kNotReady = "ERR scripting is not available";

enum EvalKind : uint8_t { kBody = 0, kBySha = 1, kReadOnly = 2 };

// Redis's evalGenericCommand checks of numkeys; false with the error.
bool NumKeys(ArgList args, int64_t* n, std::string_view* error) {
  if (!ParseInt64(args[2], n)) {
    *error = err::kNotInteger;
    return false;
  }
  if (*n > int64_t(args.size()) - 3) {
    *error = script_err::kTooManyKeys;
    return false;
  }
  if (*n < 0) {
    *error = script_err::kNegativeKeys;
    return false;
  }
  return true;
}

// Finds and checks the script `args` names on `engine`'s thread and fills `run` for it
// (KEYS and ARGV view `args`). False when it answered with an error instead.
bool PrepareRun(LuaEngine& engine, ArgList args, uint8_t kind, bool resp3,
                LuaEngine::Script* script, ScriptRun* run, char (&hex)[40], ReplyBuilder& reply) {
  int64_t numkeys = 0;
  std::string_view bad;
  if (!NumKeys(args, &numkeys, &bad)) {
    reply.Error(bad);
    return false;
  }
  std::string_view sha;
  std::string error;
  if (kind & kBySha) {
    if (args[1].size() != 40) {
      reply.Error(script_err::kNoScript);
      return false;
    }
    sha = LowerSha(args[1], hex);
    if (!engine.Find(sha, script, &error)) {
      reply.Error(error);
      return false;
    }
  } else {
    sha = Sha1Hex(args[1], hex);
    if (!engine.Load(sha, args[1], script, &error)) {
      reply.Error(error);
      return false;
    }
    engine.registry().Add(sha, args[1]);
  }
  const uint32_t flags = script->flags;
  const bool compat = flags & kScriptEvalCompat;
  if ((kind & kReadOnly) && !compat && !(flags & kScriptNoWrites)) {
    reply.Error(script_err::kWriteFromRo);
    return false;
  }
  run->sha = sha;
  run->keys = args.subspan(3, size_t(numkeys));
  run->argv = args.subspan(3 + size_t(numkeys));
  run->read_only = (kind & kReadOnly) || (flags & kScriptNoWrites);
  run->caller_resp3 = resp3;
  run->flags = flags;
  const ServerState& server = engine.registry().server();
  if (server.config.maxmemory.get() > 0 && !(flags & kScriptAllowOom) && !run->read_only &&
      OutOfMemory(engine.registry().shards(), engine.thread().id(), server)) {
    // A script declaring its flags is refused whole; an old one only at its first write.
    if (!compat) {
      reply.Error(err::kOom);
      return false;
    }
    run->oom_at_start = true;
  }
  return true;
}

// Runs the script `args` names on `engine`'s thread, whose shard owns every key it
// declares.
void RunScript(LuaEngine& engine, ArgList args, uint8_t kind, bool resp3, ReplyBuilder& reply) {
  char hex[40];
  LuaEngine::Script script;
  ScriptRun run;
  if (!PrepareRun(engine, args, kind, resp3, &script, &run, hex, reply)) return;
  engine.Run(script, run, reply);
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
  if (cmd.server.scripts == nullptr) return cmd.reply.Error(kNotReady);
  LuaEngine& engine = cmd.server.scripts->engine(cmd.shard.id());
  RunScript(engine, cmd.args, kKind, cmd.reply.resp3(), cmd.reply);
}

template <uint8_t kKind>
void EvalOnCoord(CoordCmd& cmd) {
  if (cmd.server.scripts == nullptr) return cmd.reply.Error(kNotReady);
  LuaEngine& engine = cmd.server.scripts->engine(cmd.self.id());
  char hex[40];
  LuaEngine::Script script;
  ScriptRun run;
  if (!PrepareRun(engine, cmd.args, kKind, cmd.client.resp3, &script, &run, hex, cmd.reply)) {
    return;
  }
  // No keys: it runs here, on this thread's shard. Keys on several shards: under their
  // locks, as a task that suspends while other shards run its commands.
  if (run.keys.empty()) return engine.Run(script, run, cmd.reply);
  ScriptTask::Launch(cmd, engine, script, run);
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
  if (cmd.server.scripts == nullptr) return cmd.reply.Error(kNotReady);
  LuaEngine& engine = cmd.server.scripts->engine(cmd.self.id());
  char hex[40];
  const std::string_view sha = Sha1Hex(cmd.args[2], hex);
  std::string error;
  LuaEngine::Script script;
  if (!engine.Load(sha, cmd.args[2], &script, &error)) return cmd.reply.Error(error);
  cmd.server.scripts->Add(sha, cmd.args[2]);
  cmd.reply.Bulk(sha);
}

void ScriptKill(CoordCmd& cmd) { cmd.reply.Error("NOTBUSY No scripts in execution right now."); }

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
           {.name = "flush", .arity = -2, .flags = kCmdNoScript, .on_coord = ScriptFlush},
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
