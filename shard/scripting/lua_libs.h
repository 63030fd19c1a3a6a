#pragma once
// The libraries a Lua state of LuaEngine gets, and the error tables they raise. Private to
// shard/scripting's .cc files (it names the Lua API). Owner thread of the state.

#include <string_view>

#include "shard/scripting/lua.h"

namespace rc {

class LuaEngine;

// Installs redis.*, cmsgpack and struct into the globals table on the top of the stack.
void OpenRedisLib(lua_State* L, LuaEngine* engine);
int OpenCmsgpack(lua_State* L);
int OpenStruct(lua_State* L);

// Pushes a new table with what the `redis` table of FUNCTION LOAD's environment holds:
// register_function, log, the log levels and the version.
void PushLoadRedisLib(lua_State* L, LuaEngine* engine);
// redis.register_function (lua_register_function.cc); upvalue 1 is the engine.
int RegisterFunction(lua_State* L);

// Redis's luaPushErrorBuff: an error table {err="CODE message"}; a message starting with
// '-' carries its own code, any other gets ERR.
void PushErrorTable(lua_State* L, std::string_view text);

// Metamethods of the sandbox (lua_engine.cc): __newindex of read-only tables, and __index
// of tables whose missing keys are an error ("Script attempted to access nonexistent
// global variable").
int ReadonlyNewIndex(lua_State* L);
int NonexistentGlobal(lua_State* L);

// The engine whose state `L` (or a coroutine of it) is, for hooks, which get no upvalues.
LuaEngine* EngineOfState(lua_State* L);

// Makes the state check its running script every 100000 instructions (busy-reply-threshold,
// SCRIPT KILL; lua_engine.cc); coroutines made from it afterwards inherit the hook.
void InstallCheckHook(lua_State* L);

}  // namespace rc
