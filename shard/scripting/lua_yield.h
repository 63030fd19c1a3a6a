#pragma once
// Whether a C function or hook running in `L` may yield it (lua_yield), which PUC Lua 5.1
// allows only when no C call (pcall, a metamethod, table.sort's comparator, ...) lies
// between it and the lua_resume that runs the coroutine; lua_yield raises an error
// otherwise, and Lua 5.1's API cannot ask beforehand. Owner thread of the state only.

#include "shard/scripting/lua.h"

namespace rc {

// True when lua_yield(L, 0) would suspend L rather than raise. False on a Lua whose
// state this cannot read (LuaJIT, or a PUC build whose layout failed the start-up check).
bool CanYield(lua_State* L);

// Checks once per process that CanYield reads this Lua's state correctly (a coroutine
// asks it at its top level and inside pcall); CanYield answers false if not.
void CheckCanYield(lua_State* L);

}  // namespace rc
