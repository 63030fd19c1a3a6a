#include "shard/scripting/lua_yield.h"

#include <atomic>

namespace rc {

namespace {

// The head of PUC Lua 5.1.5's `struct lua_State` (lstate.h, which Debian does not ship)
// up to the two counters lua_yield compares: nCcalls, the C calls on the stack, and
// baseCcalls, their number when the coroutine was resumed.
struct LuaStateHead {
  void* next;
  unsigned char tt;
  unsigned char marked;
  unsigned char status;
  void* top;
  void* base;
  void* l_G;
  void* ci;
  const void* savedpc;
  void* stack_last;
  void* stack;
  void* end_ci;
  void* base_ci;
  int stacksize;
  int size_ci;
  unsigned short nCcalls;
  unsigned short baseCcalls;
};

std::atomic<int> g_verified{0};  // 0: not checked, 1: layout confirmed, -1: refuted

bool ReadCanYield(lua_State* L) {
  const auto* head = reinterpret_cast<const LuaStateHead*>(L);
  return head->nCcalls <= head->baseCcalls;
}

// Returns what CanYield reads where it is called.
int Probe(lua_State* L) {
  lua_pushboolean(L, ReadCanYield(L));
  return 1;
}

}  // namespace

bool CanYield(lua_State* L) {
#ifdef LUAJIT_VERSION
  (void)L;
  return false;
#else
  return g_verified.load(std::memory_order_relaxed) > 0 && ReadCanYield(L);
#endif
}

void CheckCanYield(lua_State* L) {
#ifndef LUAJIT_VERSION
  if (g_verified.load(std::memory_order_relaxed) != 0) return;
  // In a coroutine: the probe called directly may yield, called through pcall may not,
  // and the coroutine's status byte reads as lua_status says once it has yielded.
  const int top = lua_gettop(L);
  lua_State* co = lua_newthread(L);
  lua_pushcfunction(co, Probe);
  lua_setglobal(co, "__rc_yield_probe");
  const char* kCheck =
      "local direct = __rc_yield_probe() local _, nested = pcall(__rc_yield_probe)"
      " coroutine.yield() return direct, nested";
  bool ok = luaL_loadstring(co, kCheck) == 0 && lua_resume(co, 0) == LUA_YIELD &&
            reinterpret_cast<const LuaStateHead*>(co)->status == LUA_YIELD &&
            lua_resume(co, 0) == 0 && lua_gettop(co) == 2 && lua_toboolean(co, 1) &&
            !lua_toboolean(co, 2);
  lua_pushnil(L);
  lua_setglobal(L, "__rc_yield_probe");
  lua_settop(L, top);
  g_verified.store(ok ? 1 : -1, std::memory_order_relaxed);
#else
  (void)L;
#endif
}

}  // namespace rc
