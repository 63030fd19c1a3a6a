#pragma once
// The Lua 5.1 C API, from LuaJIT or from PUC Lua 5.1 (CMake's RINGCACHE_LUA picks one;
// docs/SCRIPTING.md says which and why). Both speak the same language and API.

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}
