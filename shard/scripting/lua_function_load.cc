// FUNCTION LOAD inside a Lua state: LuaEngine::LoadLibrary runs a library's code in the
// load environment, and redis.register_function records each function it declares, with
// Redis 7.0's argument rules and error texts (function_lua.c).

#include <chrono>
#include <string>
#include <vector>

#include "core/strings.h"
#include "shard/scripting/lua.h"
#include "shard/scripting/lua_engine.h"
#include "shard/scripting/lua_libs.h"
#include "shard/scripting/script_errors.h"
#include "shard/scripting/script_flags.h"

namespace rc {

namespace {

using RegisteredFunction = LuaEngine::RegisteredFunction;

// Redis stops a library's code that runs longer than this, checking every kHookEvery
// instructions.
constexpr std::chrono::milliseconds kLoadTimeout{500};
constexpr int kHookEvery = 100000;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A string or a number, as Redis's luaGetStringSds takes it, without converting the value
// on the stack.
bool StringAt(lua_State* L, int idx, std::string* out) {
  if (!lua_isstring(L, idx)) return false;
  lua_pushvalue(L, idx);
  size_t len = 0;
  const char* s = lua_tolstring(L, -1, &len);
  out->assign(s, len);
  lua_pop(L, 1);
  return true;
}

// The flags table on the top of the stack: its strings from index 1 up to the first nil.
bool ReadFlags(lua_State* L, uint32_t* flags) {
  for (int i = 1;; ++i) {
    lua_rawgeti(L, -1, i);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      return true;
    }
    std::string name;
    const bool known = StringAt(L, -1, &name) && ScriptFlagNamed(name) != 0;
    lua_pop(L, 1);
    if (!known) return false;
    *flags |= ScriptFlagNamed(name);
  }
}

// register_function{function_name=..., callback=..., flags=..., description=...}, the
// table at index 1. Tables met here are plain ones (the load environment has no
// setmetatable), so raw reads are what Redis's reads see.
bool ReadNamedArgs(lua_State* L, RegisteredFunction* f, const char** error) {
  if (!lua_istable(L, 1)) {
    *error =
        "calling redis.register_function with a single argument is only applicable to Lua "
        "table (representing named arguments).";
    return false;
  }
  bool named = false;
  bool has_callback = false;
  lua_pushnil(L);
  while (lua_next(L, 1) != 0) {
    if (!lua_isstring(L, -2)) {
      *error = "named argument key given to redis.register_function is not a string";
    } else {
      std::string_view key;
      if (lua_type(L, -2) == LUA_TSTRING) key = lua_tostring(L, -2);
      if (EqualsIgnoreCase(key, "function_name")) {
        if (StringAt(L, -1, &f->info.name)) {
          named = true;
        } else {
          *error = "function_name argument given to redis.register_function must be a string";
        }
      } else if (EqualsIgnoreCase(key, "description")) {
        if (StringAt(L, -1, &f->info.description)) {
          f->info.has_description = true;
        } else {
          *error = "description argument given to redis.register_function must be a string";
        }
      } else if (EqualsIgnoreCase(key, "callback")) {
        if (lua_isfunction(L, -1)) {
          if (has_callback) luaL_unref(L, LUA_REGISTRYINDEX, f->ref);
          lua_pushvalue(L, -1);
          f->ref = luaL_ref(L, LUA_REGISTRYINDEX);
          has_callback = true;
        } else {
          *error = "callback argument given to redis.register_function must be a function";
        }
      } else if (EqualsIgnoreCase(key, "flags")) {
        if (!lua_istable(L, -1)) {
          *error =
              "flags argument to redis.register_function must be a table representing "
              "function flags";
        } else if (!ReadFlags(L, &f->info.flags)) {
          *error = "unknown flag given";
        }
      } else {
        *error = "unknown argument given to redis.register_function";
      }
    }
    if (*error != nullptr) {
      lua_pop(L, 2);
      break;
    }
    lua_pop(L, 1);
  }
  if (*error == nullptr && !named) {
    *error = "redis.register_function must get a function name argument";
  } else if (*error == nullptr && !has_callback) {
    *error = "redis.register_function must get a callback argument";
  }
  if (*error != nullptr && has_callback) luaL_unref(L, LUA_REGISTRYINDEX, f->ref);
  return *error == nullptr;
}

// register_function(name, callback).
bool ReadPositionalArgs(lua_State* L, RegisteredFunction* f, const char** error) {
  if (!StringAt(L, 1, &f->info.name)) {
    *error = "first argument to redis.register_function must be a string";
    return false;
  }
  if (!lua_isfunction(L, 2)) {
    *error = "second argument to redis.register_function must be a function";
    return false;
  }
  lua_pushvalue(L, 2);
  f->ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return true;
}

// redis.register_function's work: false with the error table pushed. Apart from the
// lua_error that follows because PUC Lua's errors longjmp past C++ destructors: nothing of
// this frame may be alive then.
bool Register(lua_State* L) {
  LuaEngine* engine = EngineOf(L);
  std::vector<RegisteredFunction>* loading = engine->loading();
  if (loading == nullptr) {
    PushErrorTable(L, "redis.register_function can only be called on FUNCTION LOAD command");
    return false;
  }
  const int argc = lua_gettop(L);
  RegisteredFunction f;
  const char* error = nullptr;
  if (argc < 1 || argc > 2) {
    error = "wrong number of arguments to redis.register_function";
  } else if (argc == 1) {
    ReadNamedArgs(L, &f, &error);
  } else {
    ReadPositionalArgs(L, &f, &error);
  }
  if (error != nullptr) {
    PushErrorTable(L, error);
    return false;
  }
  std::string_view refused;
  if (!ValidFunctionName(f.info.name)) {
    refused = script_err::kBadLibraryName;
  } else {
    for (const RegisteredFunction& other : *loading) {
      if (other.info.name == f.info.name) refused = "ERR Function already exists in the library";
    }
  }
  if (!refused.empty()) {
    engine->Unref(f.ref);
    PushErrorTable(L, StrCat("-", refused));
    return false;
  }
  loading->push_back(std::move(f));
  return true;
}

// Every kHookEvery instructions of a library's code: past the deadline, the load fails.
void LoadTimeoutHook(lua_State* L, lua_Debug*) {
  if (NowNs() <= EngineOfState(L)->load_deadline_ns()) return;
  PushErrorTable(L, "FUNCTION LOAD timeout");
  lua_error(L);
}

// Redis's luaExtractErrorInformation for the error value on the top of the stack.
std::string LoadErrorText(lua_State* L) {
  if (lua_isstring(L, -1)) return StrCat("ERR ", lua_tostring(L, -1));
  std::string text = "(null)";
  if (lua_istable(L, -1)) {
    lua_pushstring(L, "err");
    lua_rawget(L, -2);
    if (lua_isstring(L, -1)) text = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  return text;
}

}  // namespace

int RegisterFunction(lua_State* L) {
  if (!Register(L)) return lua_error(L);
  return 0;
}

bool LuaEngine::LoadLibrary(std::string_view body, bool replay,
                            std::vector<RegisteredFunction>* out, std::string* error) {
  lua_State* L = L_;
  out->clear();
  SetGlobalsIndex(load_env_ref_);
  bool ok = false;
  if (luaL_loadbuffer(L, body.data(), body.size(), "@user_function") != 0) {
    *error = StrCat("ERR Error compiling function: ", lua_tostring(L, -1));
    lua_pop(L, 1);
  } else {
    loading_ = out;
    replaying_ = replay;
    load_deadline_ns_ = NowNs() + std::chrono::nanoseconds(kLoadTimeout).count();
    lua_sethook(L, LoadTimeoutHook, LUA_MASKCOUNT, kHookEvery);
    ok = lua_pcall(L, 0, 0, 0) == 0;
    InstallCheckHook(L);
    loading_ = nullptr;
    replaying_ = false;
    if (!ok) {
      *error = StrCat("ERR Error registering functions: ", LoadErrorText(L));
      lua_pop(L, 1);
      for (const RegisteredFunction& f : *out) Unref(f.ref);
      out->clear();
    }
  }
  SetGlobalsIndex(globals_ref_);
  return ok;
}

}  // namespace rc
