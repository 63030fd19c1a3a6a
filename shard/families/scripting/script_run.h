#pragma once
// What EVAL (eval.cc) and FCALL (function.cc) share: the checks Redis makes before any
// script runs (scriptPrepareForRun) and where the script runs. Each command only says
// how it finds its script, on the thread that will run it.
//
//   keys all on one shard ─▶ RunScriptOnShard on that shard's thread: the script runs
//                            there as one step, atomic like any command
//   no keys ──────────────▶ RunScriptOnCoord on the connection's thread, on its shard
//   keys on several shards ▶ RunScriptOnCoord: a ScriptTask (script_task.h), atomic under
//                            the locks of its keys, suspending while other shards run
//                            the commands it calls

#include <cstdint>
#include <string_view>

#include "shard/scripting/lua_engine.h"
#include "shard/wire/command.h"

namespace rc {

class ScriptRegistry;

// A script invocation, found on the thread that runs it.
struct Invocation {
  LuaEngine* engine = nullptr;
  LuaEngine::Script script;
  std::string_view name;  // what errors name: the SHA-1 (in `hex`) or the function's name
  size_t numkeys = 0;
  bool ro_command = false;  // EVAL_RO, EVALSHA_RO, FCALL_RO
  char hex[40];
};

// Finds the script `args` invokes on thread `thread` and checks its arguments, in the
// command's own order of errors. False when it answered with an error instead.
using FindScript = bool (*)(ScriptRegistry& scripts, uint32_t thread, ArgList args, Invocation* inv,
                            ReplyBuilder& reply);

// The numkeys argument (args[2]) as Redis checks it; `not_integer` is the command's error
// for a count that is no integer. False with the error answered.
bool ParseNumKeys(ArgList args, std::string_view not_integer, size_t* numkeys, ReplyBuilder& reply);

// The two handlers of a script command's row.
void RunScriptOnShard(ShardCmd& cmd, FindScript find);
void RunScriptOnCoord(CoordCmd& cmd, FindScript find);

}  // namespace rc
