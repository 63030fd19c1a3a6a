#pragma once
// Conversions between RESP replies and Lua values, with Redis 7.0's rules
// (script_lua.c: redisProtocolToLuaType, luaReplyToRedisReply). Owner thread of the
// lua_State only.
//
//   RESP -> Lua: integer -> number; bulk -> string, null bulk/array -> false (RESP3 null
//   -> nil); status -> {ok=...}; error -> {err=...}; array -> table; RESP3: map ->
//   {map={...}}, set -> {set={m=true}}, boolean -> boolean, double -> {double=n}, big
//   number -> {big_number="..."}, verbatim -> {verbatim_string={format=..., string=...}}.
//   Lua -> RESP: string -> bulk; number -> integer (truncated); true -> 1 (RESP3 after
//   redis.setresp(3): #t), false -> null (#f); {err=} -> error; {ok=} -> status;
//   {double=}, {big_number=}, {map=}, {set=}; other tables -> array up to the first nil;
//   anything else -> null.

#include <string>
#include <string_view>

#include "core/reply_builder.h"
#include "shard/scripting/lua.h"

namespace rc {

// Pushes the one RESP reply that `resp` holds as a Lua value. `resp` is well formed (a
// command's own reply).
void PushRespAsLua(lua_State* L, std::string_view resp);

// Writes the Lua value on the top of the stack as a reply and pops it. `script_resp` is
// the protocol the script chose with redis.setresp (2 or 3); the reply's own protocol is
// the caller's (reply.resp3()).
void WriteLuaReply(lua_State* L, ReplyBuilder& reply, int script_resp);

// The error line (without the leading '-') of an error table's message: newlines made
// spaces, as Redis's addReplyErrorFormat does.
std::string ErrorLine(std::string_view msg);

}  // namespace rc
