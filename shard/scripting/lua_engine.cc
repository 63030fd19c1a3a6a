#include "shard/scripting/lua_engine.h"

#include <cmath>
#include <cstring>

#include "core/strings.h"
#include "shard/runtime/shard_set.h"
#include "shard/scripting/lua.h"
#include "shard/scripting/lua_convert.h"
#include "shard/scripting/lua_libs.h"
#include "shard/scripting/lua_yield.h"
#include "shard/scripting/script_errors.h"
#include "shard/scripting/script_registry.h"

extern "C" int luaopen_cjson(lua_State* L);
extern "C" int luaopen_bit(lua_State* L);

namespace rc {

namespace {

constexpr const char* kReadonlyErr = "Attempt to modify a readonly table";
// Redis collects garbage in steps of this many scripts (LUA_GC_CYCLE_PERIOD).
constexpr int kGcPeriod = 50;
// The registry field holding the engine, for hooks (which get no upvalues).
constexpr const char* kEngineKey = "rc.engine";
// Lua instructions between two checks of a running script, as Redis's luaMaskCountHook.
constexpr int kCheckEvery = 100000;

// Every kCheckEvery instructions of a script (Redis's luaMaskCountHook): the watchdog
// checks its time, serves the thread's clients while it is busy, and ends it after SCRIPT
// KILL or SHUTDOWN. No C++ object may be alive in this frame when lua_error longjmps.
void CheckHook(lua_State* L, lua_Debug*) {
  LuaEngine* engine = EngineOfState(L);
  ScriptRun* run = engine->current();
  if (run == nullptr || !engine->watchdog().Interrupted(*run)) return;
  // From now on at every line, so a pcall in a loop cannot keep the script alive.
  lua_sethook(L, CheckHook, LUA_MASKLINE, 0);
  lua_newtable(L);
  lua_pushlstring(L, script_err::kKilled.data(), script_err::kKilled.size());
  lua_setfield(L, -2, "err");
  lua_error(L);
}

}  // namespace

void InstallCheckHook(lua_State* L) { lua_sethook(L, CheckHook, LUA_MASKCOUNT, kCheckEvery); }

namespace {

// Redis's rand.c: drand48's generator, state X = 0x1234ABCD330E until seeded.
struct Rand48 {
  uint64_t x = 0x1234ABCD330EULL;
  void Seed(int32_t seed) { x = (uint64_t(uint32_t(seed)) << 16) | 0x330E; }
  int32_t Next() {
    x = (0x5DEECE66DULL * x + 0xB) & ((uint64_t(1) << 48) - 1);
    return int32_t(x >> 17);
  }
};

Rand48* RandOf(lua_State* L) {
  return static_cast<Rand48*>(lua_touserdata(L, lua_upvalueindex(1)));
}

int MathRandom(lua_State* L) {
  constexpr int32_t kMax = INT32_MAX;
  const lua_Number r = lua_Number(RandOf(L)->Next() % kMax) / lua_Number(kMax);
  switch (lua_gettop(L)) {
    case 0:
      lua_pushnumber(L, r);
      break;
    case 1: {
      const int u = luaL_checkint(L, 1);
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      lua_pushnumber(L, std::floor(r * u) + 1);
      break;
    }
    case 2: {
      const int l = luaL_checkint(L, 1);
      const int u = luaL_checkint(L, 2);
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      lua_pushnumber(L, std::floor(r * (u - l + 1)) + l);
      break;
    }
    default:
      return luaL_error(L, "wrong number of arguments");
  }
  return 1;
}

int MathRandomSeed(lua_State* L) {
  RandOf(L)->Seed(luaL_checkint(L, 1));
  return 0;
}

// Redis 7.0's pcall (luaRedisPcall): an error table whose `err` is a string comes back as
// that string, so `pcall(redis.call, ...)` gives the error's text, as scripts written for
// Redis expect.
int RedisPcall(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc == 0) {
    // Redis's calls its result placeholder then.
    lua_pushboolean(L, 0);
    lua_pushstring(L, "attempt to call a boolean value");
    return 2;
  }
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  if (lua_pcall(L, argc - 1, LUA_MULTRET, 0) != 0) {
    lua_remove(L, 1);
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1)) {
        lua_replace(L, -2);
      } else {
        lua_pop(L, 1);
      }
    }
    lua_pushboolean(L, 0);
    lua_insert(L, 1);
  }
  return lua_gettop(L);
}

// Whether the table at `idx` is one of the read-only ones (a set in upvalue 2).
bool IsReadonly(lua_State* L, int idx) {
  if (!lua_istable(L, idx)) return false;
  lua_pushvalue(L, idx);
  lua_rawget(L, lua_upvalueindex(2));
  const bool ro = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return ro;
}

// rawset and setmetatable refuse the read-only tables (Redis's VM checks its readonly
// bit there); upvalue 1 is the original function.
int GuardedCall(lua_State* L) {
  if (IsReadonly(L, 1)) {
    lua_pushstring(L, kReadonlyErr);
    return lua_error(L);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// Turns the error value at `idx` into Redis's error table {err=..., source=...,
// line=...}, in place; `where` is the frame the error names, or null.
void AnnotateError(lua_State* L, int idx, const lua_Debug* where) {
  if (!lua_istable(L, idx)) {
    std::string text;
    switch (lua_type(L, idx)) {
      case LUA_TSTRING:
      case LUA_TNUMBER:
        text = lua_tostring(L, idx);
        break;
      case LUA_TNIL:
        text = "nil";
        break;
      case LUA_TBOOLEAN:
        text = lua_toboolean(L, idx) ? "true" : "false";
        break;
      default:
        text = StrCat(lua_typename(L, lua_type(L, idx)), ": ",
                      reinterpret_cast<uintptr_t>(lua_topointer(L, idx)));
    }
    lua_newtable(L);
    lua_pushstring(L, StrCat("ERR ", text).c_str());
    lua_setfield(L, -2, "err");
    lua_replace(L, idx);
  }
  if (where != nullptr) {
    // Raw: a script's own error table may carry metamethods that raise, and nothing
    // here runs protected.
    lua_pushstring(L, "source");
    lua_pushstring(L, where->source);
    lua_rawset(L, idx);
    lua_pushstring(L, "line");
    lua_pushnumber(L, where->currentline);
    lua_rawset(L, idx);
  }
}

// The frame an error raised at stack level `level` names: that function, or its caller
// when it is a C function (error(), redis.call), as Redis's __redis__err__handler picks.
bool ErrorFrame(lua_State* L, int level, lua_Debug* ar) {
  if (!lua_getstack(L, level, ar) || !lua_getinfo(L, "nSl", ar)) return false;
  if (std::strcmp(ar->what, "C") != 0) return true;
  return lua_getstack(L, level + 1, ar) && lua_getinfo(L, "nSl", ar);
}

// The error handler every script runs under (Redis's __redis__err__handler): level 0 is
// the handler itself, level 1 what raised the error.
int ErrorHandler(lua_State* L) {
  lua_Debug ar;
  const bool where = ErrorFrame(L, 1, &ar);
  AnnotateError(L, 1, where ? &ar : nullptr);
  lua_settop(L, 1);
  return 1;
}

// Opens a library; one that returns its table without making it a global (Debian's
// cjson) becomes the global `name` too.
void OpenLib(lua_State* L, lua_CFunction open, const char* name) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 1);
  if (lua_istable(L, -1) && name[0] != '\0') {
    lua_setglobal(L, name);
  } else {
    lua_pop(L, 1);
  }
}

// Pushes an empty proxy that reads through to the table at `target` and refuses writes;
// records it as read-only in the set at `ro_set`. Both indexes are absolute.
void PushReadonlyProxy(lua_State* L, int target, int ro_set) {
  lua_newtable(L);  // proxy
  lua_newtable(L);  // its metatable
  lua_pushvalue(L, target);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadonlyNewIndex);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  lua_pushboolean(L, 1);
  lua_rawset(L, ro_set);
}

// Replaces global `name` (a table) by a read-only proxy of it.
void ProtectGlobalTable(lua_State* L, int globals, int ro_set, const char* name) {
  lua_getfield(L, globals, name);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  PushReadonlyProxy(L, lua_gettop(L), ro_set);
  lua_setfield(L, globals, name);
  lua_pop(L, 1);
}

// Sets, on the table at `idx`, a metatable whose __index fails for any missing key.
void FailOnMissing(lua_State* L, int idx) {
  lua_newtable(L);
  lua_pushcfunction(L, NonexistentGlobal);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, idx < 0 ? idx - 1 : idx);
}

// FUNCTION LOAD's globals, anchored in the Lua registry: only a read-only `redis` holding
// register_function, log, the log levels and the version; reading anything else, there or
// in `redis`, is an error, as in Redis's load environment.
int MakeLoadEnvironment(lua_State* L, LuaEngine* engine, int ro_set) {
  lua_newtable(L);
  const int env = lua_gettop(L);
  PushLoadRedisLib(L, engine);
  FailOnMissing(L, -1);
  PushReadonlyProxy(L, lua_gettop(L), ro_set);
  lua_setfield(L, env, "redis");
  lua_pop(L, 1);
  FailOnMissing(L, env);
  return luaL_ref(L, LUA_REGISTRYINDEX);
}

}  // namespace

int ReadonlyNewIndex(lua_State* L) { return luaL_error(L, "%s", kReadonlyErr); }

int NonexistentGlobal(lua_State* L) {
  if (!lua_isstring(L, 2)) return luaL_error(L, "Second argument must be a string or number");
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                    lua_tostring(L, 2));
}

LuaEngine* EngineOfState(lua_State* L) {
  lua_getfield(L, LUA_REGISTRYINDEX, kEngineKey);
  auto* engine = static_cast<LuaEngine*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  return engine;
}

LuaEngine::LuaEngine(ScriptRegistry& registry, uint32_t shard, Kind kind,
                     std::atomic<int64_t>* vm_bytes)
    : registry_(registry),
      thread_(registry.shards().thread(shard)),
      kind_(kind),
      heap_(vm_bytes),
      watchdog_(thread_, registry.server()) {
  client_.authenticated = true;
  client_.addr = "lua";
  client_.id = UINT64_MAX;
  // BZMPOP and BLMPOP may run from a script, never waiting (Redis's CLIENT_DENY_BLOCKING).
  client_.deny_blocking = true;
  Open();
}

LuaEngine::~LuaEngine() {
  if (L_ != nullptr) lua_close(L_);
}

void LuaEngine::Open() {
  L_ = lua_newstate(LuaHeap::Alloc, &heap_);
  if (L_ == nullptr) L_ = luaL_newstate();  // LuaJIT without GC64 takes no allocator
  lua_State* L = L_;
  OpenLib(L, luaopen_base, "");
  OpenLib(L, luaopen_table, LUA_TABLIBNAME);
  OpenLib(L, luaopen_string, LUA_STRLIBNAME);
  OpenLib(L, luaopen_math, LUA_MATHLIBNAME);
  OpenLib(L, luaopen_bit, "bit");
  OpenLib(L, luaopen_cjson, "cjson");
  OpenLib(L, OpenStruct, "struct");
  OpenLib(L, OpenCmsgpack, "cmsgpack");
  CheckCanYield(L);
  lua_pushlightuserdata(L, this);
  lua_setfield(L, LUA_REGISTRYINDEX, kEngineKey);
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  const int globals = lua_gettop(L);
  for (const char* name : {"print", "dofile", "loadfile", "getfenv", "setfenv", "newproxy",
                           "module", "require", "jit", "package", "io", "os", "debug"}) {
    lua_pushnil(L);
    lua_setfield(L, globals, name);
  }
  // Redis's math.random and math.randomseed.
  lua_getfield(L, globals, "math");
  auto* rand = static_cast<Rand48*>(lua_newuserdata(L, sizeof(Rand48)));
  new (rand) Rand48();
  lua_pushvalue(L, -1);
  lua_pushcclosure(L, MathRandom, 1);
  lua_setfield(L, -3, "random");
  lua_pushcclosure(L, MathRandomSeed, 1);
  lua_setfield(L, -2, "randomseed");
  lua_pop(L, 1);
  lua_pushcfunction(L, RedisPcall);
  lua_setfield(L, globals, "pcall");

  OpenRedisLib(L, this);  // the global `redis`

  // The read-only set, weak-keyed so nothing is kept alive by it.
  lua_newtable(L);
  const int ro_set = lua_gettop(L);
  lua_newtable(L);
  lua_pushstring(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, ro_set);
  for (const char* name :
       {"string", "table", "math", "coroutine", "bit", "cjson", "struct", "cmsgpack", "redis"}) {
    ProtectGlobalTable(L, globals, ro_set, name);
  }
  for (const char* name : {"rawset", "setmetatable"}) {
    lua_getfield(L, globals, name);
    lua_pushvalue(L, ro_set);
    lua_pushcclosure(L, GuardedCall, 2);
    lua_setfield(L, globals, name);
  }
  lua_pushcfunction(L, ErrorHandler);
  handler_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);

  // Scripts see the globals through an empty proxy whose writes all fail; reads of
  // missing globals fail on the real table's own metatable.
  lua_newtable(L);  // metatable of the real globals
  lua_pushcfunction(L, NonexistentGlobal);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadonlyNewIndex);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, globals);
  PushReadonlyProxy(L, globals, ro_set);
  lua_getmetatable(L, -1);
  proxy_meta_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, -1);
  lua_pushstring(L, "_G");
  lua_insert(L, -2);
  lua_rawset(L, globals);  // _G is the proxy
  lua_pushvalue(L, globals);
  globals_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  if (kind_ == Kind::kFunctions) load_env_ref_ = MakeLoadEnvironment(L, this, ro_set);
  lua_replace(L, LUA_GLOBALSINDEX);  // new functions get the proxy as environment
  lua_settop(L, 0);
  // Coroutines made from this state, scripts' own and ScriptTask's, inherit it.
  InstallCheckHook(L);
  generation_ = registry_.generation();
}

void LuaEngine::DropIfFlushed() {
  const uint64_t g = registry_.generation();
  // SCRIPT FLUSH concerns EVAL's state only; the functions' state drops libraries itself.
  if (g == generation_ || kind_ != Kind::kEval) return;
  generation_ = g;
  for (auto& [sha, c] : scripts_) luaL_unref(L_, LUA_REGISTRYINDEX, c.ref);
  scripts_.clear();
  lua_gc(L_, LUA_GCCOLLECT, 0);
}

bool LuaEngine::Load(std::string_view sha, std::string_view body, Script* out, std::string* error) {
  DropIfFlushed();
  if (auto it = scripts_.find(AbslView(sha)); it != scripts_.end()) {
    *out = it->second;
    return true;
  }
  uint32_t flags = 0;
  size_t skip = 0;
  if (!ParseShebang(body, &flags, &skip, error)) return false;
  body.remove_prefix(skip);
  if (luaL_loadbuffer(L_, body.data(), body.size(), "@user_script") != 0) {
    *error = StrCat("ERR Error compiling script (new function): ", lua_tostring(L_, -1));
    lua_pop(L_, 1);
    return false;
  }
  *out = Script{luaL_ref(L_, LUA_REGISTRYINDEX), flags};
  scripts_.emplace(std::string(sha), *out);
  return true;
}

bool LuaEngine::Find(std::string_view sha, Script* out, std::string* error) {
  DropIfFlushed();
  if (auto it = scripts_.find(AbslView(sha)); it != scripts_.end()) {
    *out = it->second;
    return true;
  }
  std::string body;
  if (!registry_.Find(sha, &body)) {
    *error = "NOSCRIPT No matching script. Please use EVAL.";
    return false;
  }
  return Load(sha, body, out, error);
}

void LuaEngine::Abandon(std::unique_ptr<ReplySink> sink) {
  // Few commands ever get here (a fan-out called from a script); keep them all.
  abandoned_.push_back(std::move(sink));
}

namespace {

// Pushes a new table of `args`.
void PushStrings(lua_State* L, ArgList args) {
  lua_createtable(L, int(args.size()), 0);
  for (size_t i = 0; i < args.size(); ++i) {
    lua_pushlstring(L, args[i].data(), args[i].size());
    lua_rawseti(L, -2, int(i + 1));
  }
}

void SetStrings(lua_State* L, int globals, const char* name, ArgList args) {
  PushStrings(L, args);
  lua_pushstring(L, name);
  lua_insert(L, -2);
  lua_rawset(L, globals);
}

// The error reply for the error table on top of the stack (Redis's luaCallFunction).
std::string ScriptError(lua_State* L, std::string_view sha) {
  if (!lua_istable(L, -1)) {
    const char* msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : "execution failure";
    return ErrorLine(
        StrCat("ERR Error running script ", sha, ", ", std::string_view(msg).substr(0, 100)));
  }
  // Raw reads: metamethods of a script's error table would run unprotected here.
  auto field = [L](const char* name) {
    lua_pushstring(L, name);
    lua_rawget(L, -2);
    std::string value = lua_isstring(L, -1) ? lua_tostring(L, -1) : "";
    lua_pop(L, 1);
    return value;
  };
  std::string msg = field("err");
  std::string source = field("source");
  std::string line = field("line");
  if (!source.empty() && !line.empty())
    StrAppend(&msg, " script: ", sha, ", on ", source, ":", line, ".");
  return ErrorLine(msg);
}

}  // namespace

int LuaEngine::PushCall(lua_State* L, const Script& script, const ScriptRun& run) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, script.ref);
  if (kind_ == Kind::kEval) return 0;
  PushStrings(L, run.keys);
  PushStrings(L, run.argv);
  return 2;
}

void LuaEngine::Run(const Script& script, ScriptRun& run, ReplyBuilder& reply) {
  lua_State* L = L_;
  ScriptRun* outer = current_;
  current_ = &run;
  lua_rawgeti(L, LUA_REGISTRYINDEX, handler_ref_);
  const int handler = lua_gettop(L);
  if (kind_ == Kind::kEval) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, globals_ref_);
    SetStrings(L, handler + 1, "KEYS", run.keys);
    SetStrings(L, handler + 1, "ARGV", run.argv);
    lua_pop(L, 1);
  }
  const int nargs = PushCall(L, script, run);
  watchdog_.Start(run);
  const int status = lua_pcall(L, nargs, 1, handler);
  watchdog_.Stop();
  if (status != 0) {
    reply.Error(ScriptError(L, run.name));
    lua_pop(L, 1);
    InstallCheckHook(L);  // a killed run left it checking every line
  } else {
    WriteLuaReply(L, reply, run.resp);
  }
  lua_settop(L, handler - 1);
  current_ = outer;
  CollectSometimes();
}

void LuaEngine::SetGlobalsIndex(int ref) {
  lua_rawgeti(L_, LUA_REGISTRYINDEX, proxy_meta_ref_);
  lua_pushstring(L_, "__index");
  lua_rawgeti(L_, LUA_REGISTRYINDEX, ref);
  lua_rawset(L_, -3);
  lua_pop(L_, 1);
}

void LuaEngine::Unref(int ref) { luaL_unref(L_, LUA_REGISTRYINDEX, ref); }

void LuaEngine::CollectGarbage() { lua_gc(L_, LUA_GCCOLLECT, 0); }

void LuaEngine::CollectSometimes() {
  if (++gc_count_ >= kGcPeriod) {
    lua_gc(L_, LUA_GCSTEP, kGcPeriod);
    gc_count_ = 0;
  }
}

namespace {

// Anchors a new table of `args` in the registry.
int RefStrings(lua_State* L, ArgList args) {
  PushStrings(L, args);
  return luaL_ref(L, LUA_REGISTRYINDEX);
}

// A count hook set for one instruction where a suspended redis.call resumes with an
// error reply: it raises the error there, as the call would have. No C++ object may be
// alive in this frame when lua_error longjmps.
void RaiseHook(lua_State* L, lua_Debug*) {
  ScriptRun* run = EngineOfState(L)->current();
  InstallCheckHook(L);
  if (run == nullptr || run->raise.empty()) return;
  PushRespAsLua(L, run->raise);
  run->raise.clear();
  lua_error(L);
}

}  // namespace

LuaEngine::Coroutine LuaEngine::Spawn(const Script& script, ScriptRun& run) {
  DropIfFlushed();
  Coroutine c;
  c.co = lua_newthread(L_);
  c.ref = luaL_ref(L_, LUA_REGISTRYINDEX);
  if (kind_ == Kind::kEval) {
    c.keys_ref = RefStrings(L_, run.keys);
    c.argv_ref = RefStrings(L_, run.argv);
  }
  c.start_nargs = PushCall(c.co, script, run);
  run.coroutine = c.co;
  return c;
}

bool LuaEngine::Resume(Coroutine& c, ScriptRun& run, int nargs, ReplyBuilder& reply) {
  lua_State* co = c.co;
  if (kind_ == Kind::kEval) {
    // KEYS and ARGV are globals every run of this thread sets: this run's own go back in
    // before each step, since other scripts ran while it was suspended.
    lua_rawgeti(L_, LUA_REGISTRYINDEX, globals_ref_);
    lua_pushstring(L_, "KEYS");
    lua_rawgeti(L_, LUA_REGISTRYINDEX, c.keys_ref);
    lua_rawset(L_, -3);
    lua_pushstring(L_, "ARGV");
    lua_rawgeti(L_, LUA_REGISTRYINDEX, c.argv_ref);
    lua_rawset(L_, -3);
    lua_pop(L_, 1);
  }
  if (!run.raise.empty()) lua_sethook(co, RaiseHook, LUA_MASKCOUNT, 1);
  ScriptRun* outer = current_;
  current_ = &run;
  watchdog_.Start(run);
  const int status = lua_resume(co, nargs);
  watchdog_.Stop();
  current_ = outer;
  if (status == LUA_YIELD) return false;
  if (status == 0) {
    // The function's first result (none is nil), as lua_pcall with one result gives it.
    if (lua_gettop(co) == 0) lua_pushnil(co);
    lua_settop(co, 1);
    WriteLuaReply(co, reply, run.resp);
  } else {
    // The coroutine is dead but its stack is as it was where the error was raised; the
    // error value moves to the main state, where nothing runs unprotected on a dead thread.
    lua_Debug ar;
    bool where = ErrorFrame(co, 0, &ar);
    if (where && run.raise_line >= 0) ar.currentline = run.raise_line;
    lua_xmove(co, L_, 1);
    AnnotateError(L_, lua_gettop(L_), where ? &ar : nullptr);
    reply.Error(ScriptError(L_, run.name));
    lua_pop(L_, 1);
  }
  lua_settop(co, 0);
  CollectSometimes();
  return true;
}

void LuaEngine::Release(Coroutine& c) {
  if (kind_ == Kind::kEval) {
    luaL_unref(L_, LUA_REGISTRYINDEX, c.keys_ref);
    luaL_unref(L_, LUA_REGISTRYINDEX, c.argv_ref);
  }
  luaL_unref(L_, LUA_REGISTRYINDEX, c.ref);
  c = Coroutine{};
}

}  // namespace rc
