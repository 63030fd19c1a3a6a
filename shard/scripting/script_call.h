#pragma once
// A command called by a running script (redis.call / redis.pcall), checked and run as
// Redis 7.0's scriptCall does, on the script's own thread. Owner thread only.
//
// Keys: a script runs on the thread owning its declared KEYS (or, with none, on its
// connection's), and every key a command it calls names must live on that same shard.
// A key it did not declare is allowed there unless a multi-shard command holds it
// (docs/SCRIPTING.md); a key of another shard is refused.

#include <string>

#include "shard/command/command.h"

namespace rc {

class LuaEngine;
struct ScriptRun;

// Runs `args` for `run`. True: the command ran and `out` holds its RESP reply (an error
// reply included). False: refused before running, `out` holds the error text (with its
// code, no '-').
bool ScriptCall(LuaEngine& engine, ScriptRun& run, ArgList args, std::string* out);

}  // namespace rc
