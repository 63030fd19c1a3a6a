#pragma once
// The Lua 5.1 C API, from LuaJIT or from PUC Lua 5.1 (CMake's RINGCACHE_LUA picks one;
// docs/SCRIPTING.md says which and why). Both speak the same language and API.

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace rc {

class LuaEngine;

// The engine behind a C function that was registered with it as its first upvalue.
inline LuaEngine* EngineOf(lua_State* L) {
  return static_cast<LuaEngine*>(lua_touserdata(L, lua_upvalueindex(1)));
}

}  // namespace rc
