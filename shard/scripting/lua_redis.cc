// The `redis` table scripts see: call, pcall, error_reply, status_reply, sha1hex, log,
// setresp, set_repl, replicate_commands, breakpoint, debug, acl_check_cmd and the
// constants, with Redis 7.0's behaviour and error texts (script_lua.c).

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "core/strings.h"
#include "shard/scripting/lua.h"
#include "shard/scripting/lua_convert.h"
#include "shard/scripting/lua_engine.h"
#include "shard/scripting/lua_libs.h"
#include "shard/scripting/lua_yield.h"
#include "shard/scripting/script_call.h"
#include "shard/scripting/script_errors.h"
#include "shard/scripting/script_registry.h"
#include "shard/scripting/sha1.h"
#include "shard/state/server_state.h"
#include "shard/wire/command.h"

namespace rc {

namespace {

// An error table whose message already has its code (our error constants).
void PushCodedError(lua_State* L, std::string_view msg) {
  lua_newtable(L);
  lua_pushlstring(L, msg.data(), msg.size());
  lua_setfield(L, -2, "err");
}

// Formats a Lua number argument as Redis does: an integer when it is one, else %.17g.
std::string NumberArg(lua_Number n) {
  if (std::isfinite(n) && n == std::floor(n) && std::fabs(n) < 9.2e18) {
    return std::to_string(int64_t(n));
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", n);
  return buf;
}

enum class CallOutcome : uint8_t { kValue, kError, kSuspend };

// redis.call/pcall's work: pushes the command's reply as a Lua value, or an error table
// (kError); or, for a run that may suspend, sends the command where it runs and pushes
// nothing (kSuspend: the run resumes with the reply). Apart from the lua_error or
// lua_yield that may follow because PUC Lua's errors longjmp past C++ destructors:
// nothing of this frame may be alive then.
CallOutcome PushCallReply(lua_State* L, bool raise) {
  LuaEngine* engine = EngineOf(L);
  ScriptRun* run = engine->current();
  const int argc = lua_gettop(L);
  if (argc == 0 || run == nullptr) {
    PushCodedError(L, script_err::kNoArgs);
    return CallOutcome::kError;
  }
  absl::InlinedVector<std::string_view, 8> args;
  absl::InlinedVector<std::string, 4> numbers;
  numbers.reserve(size_t(argc));
  for (int i = 1; i <= argc; ++i) {
    const int type = lua_type(L, i);
    if (type == LUA_TNUMBER) {
      numbers.push_back(NumberArg(lua_tonumber(L, i)));
      args.push_back(numbers.back());
    } else if (type == LUA_TSTRING) {
      size_t len = 0;
      const char* s = lua_tolstring(L, i, &len);
      args.push_back(std::string_view(s, len));
    } else {
      PushCodedError(L, script_err::kBadArgType);
      return CallOutcome::kError;
    }
  }
  // A suspendable run may wait here unless a C call (pcall, a metamethod) or a coroutine
  // of the script's own lies in between.
  const bool may_suspend = run->task != nullptr && L == run->coroutine && CanYield(L);
  std::string& out = engine->scratch();
  switch (ScriptCall(*engine, *run, ArgList(args.data(), args.size()), may_suspend, &out)) {
    case CallStatus::kRefused:
      PushCodedError(L, out);
      return CallOutcome::kError;
    case CallStatus::kPending: {
      lua_Debug ar;
      const bool where = lua_getstack(L, 1, &ar) && lua_getinfo(L, "l", &ar);
      run->raise_on_error = raise;
      run->call_line = where ? ar.currentline : -1;
      return CallOutcome::kSuspend;
    }
    case CallStatus::kReplied:
      break;
  }
  PushRespAsLua(L, out);
  return !out.empty() && out[0] == '-' ? CallOutcome::kError : CallOutcome::kValue;
}

int Call(lua_State* L) {
  switch (PushCallReply(L, true)) {
    case CallOutcome::kValue:
      return 1;
    case CallOutcome::kError:
      return lua_error(L);
    case CallOutcome::kSuspend:
      break;
  }
  return lua_yield(L, 0);
}

int PCall(lua_State* L) {
  if (PushCallReply(L, false) == CallOutcome::kSuspend) return lua_yield(L, 0);
  return 1;
}

int ErrorReply(lua_State* L) {
  if (lua_gettop(L) != 1 || !lua_isstring(L, -1)) {
    PushErrorTable(L, "wrong number or type of arguments");
    return 1;
  }
  std::string_view err = lua_tostring(L, -1);
  PushErrorTable(L, err.substr(0, 1) == "-" ? std::string(err) : StrCat("-", err));
  return 1;
}

int StatusReply(lua_State* L) {
  if (lua_gettop(L) != 1 || !lua_isstring(L, -1)) {
    PushErrorTable(L, "wrong number or type of arguments");
    return 1;
  }
  lua_newtable(L);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "ok");
  return 1;
}

int Sha1(lua_State* L) {
  if (lua_gettop(L) != 1) {
    PushErrorTable(L, "wrong number of arguments");
    return lua_error(L);
  }
  size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  const std::string hex = Sha1Hex(std::string_view(s == nullptr ? "" : s, s ? len : 0));
  lua_pushlstring(L, hex.data(), hex.size());
  return 1;
}

int Log(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc < 2) {
    PushErrorTable(L, "redis.log() requires two arguments or more.");
    return lua_error(L);
  }
  if (!lua_isnumber(L, 1)) {
    PushErrorTable(L, "First argument must be a number (log level).");
    return lua_error(L);
  }
  const int level = int(lua_tonumber(L, 1));
  if (level < 0 || level > 3) {
    PushErrorTable(L, "Invalid debug level.");
    return lua_error(L);
  }
  // Warnings reach the server's log (stderr); the rest is below the default verbosity. A
  // library compiled again for another thread logged its lines when it was loaded.
  if (level == 3 && !EngineOf(L)->replaying()) {
    std::string line;
    for (int i = 2; i <= argc; ++i) {
      size_t len = 0;
      const char* s = lua_tolstring(L, i, &len);
      if (s == nullptr) continue;
      if (!line.empty()) line += ' ';
      line.append(s, len);
    }
    std::fprintf(stderr, "# %s\n", line.c_str());
  }
  return 0;
}

int SetResp(lua_State* L) {
  LuaEngine* engine = EngineOf(L);
  if (lua_gettop(L) != 1) {
    PushErrorTable(L, "redis.setresp() requires one argument.");
    return lua_error(L);
  }
  const int resp = int(lua_tonumber(L, -1));
  if (resp != 2 && resp != 3) {
    PushErrorTable(L, "RESP version must be 2 or 3.");
    return lua_error(L);
  }
  if (engine->current() != nullptr) engine->current()->resp = resp;
  return 0;
}

int SetRepl(lua_State* L) {
  if (lua_gettop(L) != 1) {
    PushErrorTable(L, "redis.set_repl() requires one argument.");
    return lua_error(L);
  }
  const int64_t flags = int64_t(lua_tonumber(L, -1));
  if ((flags & ~int64_t(3)) != 0) {
    PushErrorTable(L,
                   "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
    return lua_error(L);
  }
  return 0;
}

int ReplicateCommands(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}

int Breakpoint(lua_State* L) {
  lua_pushboolean(L, 0);
  return 1;
}

int Debug(lua_State* L) { return 0; }

// redis.acl_check_cmd's check (see PushCallReply on why it is apart): false with the
// error pushed.
bool AclCheckCmdOk(lua_State* L) {
  LuaEngine* engine = EngineOf(L);
  const int argc = lua_gettop(L);
  if (argc == 0) {
    PushErrorTable(L, "Please specify at least one argument for this redis lib call");
    return false;
  }
  absl::InlinedVector<std::string_view, 8> args;
  for (int i = 1; i <= argc; ++i) {
    size_t len = 0;
    const char* s = lua_tolstring(L, i, &len);
    if (s == nullptr) {
      PushErrorTable(L, "Lua redis lib command arguments must be strings or integers");
      return false;
    }
    args.push_back(std::string_view(s, len));
  }
  const CommandSpec* spec = engine->registry().table().Resolve(ArgList(args.data(), args.size()));
  if (spec == nullptr || !spec->ArityOk(args.size())) {
    PushErrorTable(L, "Invalid command passed to redis.acl_check_cmd()");
    return false;
  }
  return true;
}

int AclCheckCmd(lua_State* L) {
  if (!AclCheckCmdOk(L)) return lua_error(L);
  // No ACL users yet: the default user may run everything.
  lua_pushboolean(L, 1);
  return 1;
}

void SetNumber(lua_State* L, const char* name, lua_Number n) {
  lua_pushnumber(L, n);
  lua_setfield(L, -2, name);
}

// What both `redis` tables have: the log levels and the version.
void SetLogLevelsAndVersion(lua_State* L) {
  SetNumber(L, "LOG_DEBUG", 0);
  SetNumber(L, "LOG_VERBOSE", 1);
  SetNumber(L, "LOG_NOTICE", 2);
  SetNumber(L, "LOG_WARNING", 3);
  lua_pushlstring(L, kRedisVersion.data(), kRedisVersion.size());
  lua_setfield(L, -2, "REDIS_VERSION");
  // 7.0.15 as Redis encodes it: major << 16 | minor << 8 | patch.
  SetNumber(L, "REDIS_VERSION_NUM", (7 << 16) | (0 << 8) | 15);
}

}  // namespace

void PushErrorTable(lua_State* L, std::string_view text) {
  std::string msg;
  if (!text.empty() && text[0] == '-') {
    const size_t space = text.find(' ');
    msg = space == std::string_view::npos
              ? StrCat("ERR ", text.substr(1))
              : StrCat(text.substr(1, space - 1), " ", text.substr(space + 1));
  } else {
    msg = StrCat("ERR ", text);
  }
  while (!msg.empty() && (msg.back() == '\r' || msg.back() == '\n')) msg.pop_back();
  lua_newtable(L);
  lua_pushlstring(L, msg.data(), msg.size());
  lua_setfield(L, -2, "err");
}

void OpenRedisLib(lua_State* L, LuaEngine* engine) {
  lua_newtable(L);
  static constexpr std::pair<const char*, lua_CFunction> kFunctions[] = {
      {"call", Call},
      {"pcall", PCall},
      {"error_reply", ErrorReply},
      {"status_reply", StatusReply},
      {"sha1hex", Sha1},
      {"log", Log},
      {"setresp", SetResp},
      {"set_repl", SetRepl},
      {"replicate_commands", ReplicateCommands},
      {"breakpoint", Breakpoint},
      {"debug", Debug},
      {"acl_check_cmd", AclCheckCmd},
  };
  for (const auto& [name, fn] : kFunctions) {
    lua_pushlightuserdata(L, engine);
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, -2, name);
  }
  SetLogLevelsAndVersion(L);
  SetNumber(L, "REPL_NONE", 0);
  SetNumber(L, "REPL_AOF", 1);
  SetNumber(L, "REPL_SLAVE", 2);
  SetNumber(L, "REPL_REPLICA", 2);
  SetNumber(L, "REPL_ALL", 3);
  lua_setglobal(L, "redis");
}

void PushLoadRedisLib(lua_State* L, LuaEngine* engine) {
  lua_newtable(L);
  for (const auto& [name, fn] :
       {std::pair<const char*, lua_CFunction>{"register_function", RegisterFunction},
        {"log", Log}}) {
    lua_pushlightuserdata(L, engine);
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, -2, name);
  }
  SetLogLevelsAndVersion(L);
}

}  // namespace rc
