#include "shard/scripting/lua_convert.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "core/strings.h"

namespace rc {

namespace {

// The line after a type byte at `*pos` (without CRLF); moves *pos past it.
std::string_view Line(std::string_view resp, size_t* pos) {
  size_t end = resp.find("\r\n", *pos);
  if (end == std::string_view::npos) end = resp.size();
  std::string_view line = resp.substr(*pos, end - *pos);
  *pos = end + 2;
  return line;
}

int64_t Int(std::string_view s) { return std::strtoll(std::string(s).c_str(), nullptr, 10); }

void SetField(lua_State* L, const char* field) {
  // value on top, table below it
  lua_setfield(L, -2, field);
}

void Push(lua_State* L, std::string_view resp, size_t* pos) {
  lua_checkstack(L, 5);
  const char type = resp[*pos];
  ++*pos;
  std::string_view head = Line(resp, pos);
  switch (type) {
    case ':':
      lua_pushnumber(L, lua_Number(Int(head)));
      return;
    case '$':
    case '=': {
      const int64_t len = Int(head);
      if (len < 0) {
        lua_pushboolean(L, 0);
        return;
      }
      std::string_view body = resp.substr(*pos, size_t(len));
      *pos += size_t(len) + 2;
      if (type == '$') {
        lua_pushlstring(L, body.data(), body.size());
        return;
      }
      // Verbatim: "txt:" then the text.
      lua_newtable(L);
      lua_newtable(L);
      lua_pushlstring(L, body.data(), std::min<size_t>(3, body.size()));
      SetField(L, "format");
      std::string_view text = body.size() >= 4 ? body.substr(4) : std::string_view();
      lua_pushlstring(L, text.data(), text.size());
      SetField(L, "string");
      SetField(L, "verbatim_string");
      return;
    }
    case '+':
      lua_newtable(L);
      lua_pushlstring(L, head.data(), head.size());
      SetField(L, "ok");
      return;
    case '-':
      lua_newtable(L);
      lua_pushlstring(L, head.data(), head.size());
      SetField(L, "err");
      return;
    case '_':
      lua_pushnil(L);
      return;
    case '#':
      lua_pushboolean(L, head == "t");
      return;
    case ',': {
      lua_newtable(L);
      double d = 0;
      if (head == "inf") {
        d = HUGE_VAL;
      } else if (head == "-inf") {
        d = -HUGE_VAL;
      } else if (head == "nan") {
        d = NAN;
      } else {
        d = std::strtod(std::string(head).c_str(), nullptr);
      }
      lua_pushnumber(L, d);
      SetField(L, "double");
      return;
    }
    case '(':
      lua_newtable(L);
      lua_pushlstring(L, head.data(), head.size());
      SetField(L, "big_number");
      return;
    case '*':
    case '>': {
      const int64_t n = Int(head);
      if (n < 0) {
        lua_pushboolean(L, 0);
        return;
      }
      lua_createtable(L, int(n), 0);
      for (int64_t i = 0; i < n; ++i) {
        Push(L, resp, pos);
        lua_rawseti(L, -2, int(i + 1));
      }
      return;
    }
    case '%': {
      const int64_t n = Int(head);
      lua_newtable(L);
      lua_createtable(L, 0, int(n));
      for (int64_t i = 0; i < n; ++i) {
        Push(L, resp, pos);
        Push(L, resp, pos);
        lua_settable(L, -3);
      }
      SetField(L, "map");
      return;
    }
    case '~': {
      const int64_t n = Int(head);
      lua_newtable(L);
      lua_createtable(L, 0, int(n));
      for (int64_t i = 0; i < n; ++i) {
        Push(L, resp, pos);
        lua_pushboolean(L, 1);
        lua_settable(L, -3);
      }
      SetField(L, "set");
      return;
    }
    case '|': {
      // Attributes are skipped, as Redis's parser does; the reply follows them.
      const int64_t n = Int(head);
      for (int64_t i = 0; i < 2 * n; ++i) {
        Push(L, resp, pos);
        lua_pop(L, 1);
      }
      Push(L, resp, pos);
      return;
    }
    default:
      lua_pushnil(L);
  }
}

// What a C cast of a double to long long gives on x86-64, without the undefined
// behaviour: out of range and NaN become INT64_MIN.
int64_t Truncate(double d) {
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return INT64_MIN;
  return int64_t(d);
}

// The string field `name` of the table on top, or false when it has none.
bool StringField(lua_State* L, const char* name, std::string_view* out) {
  lua_pushstring(L, name);
  lua_rawget(L, -2);
  const bool is_string = lua_type(L, -1) == LUA_TSTRING;
  if (is_string) {
    size_t len = 0;
    const char* s = lua_tolstring(L, -1, &len);
    *out = std::string_view(s, len);
  }
  lua_pop(L, 1);
  return is_string;
}

// The number of entries of the table on the top of the stack.
size_t TableSize(lua_State* L) {
  size_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    lua_pop(L, 1);
    ++n;
  }
  return n;
}

void Write(lua_State* L, ReplyBuilder& reply, int script_resp);

void WriteTable(lua_State* L, ReplyBuilder& reply, int script_resp) {
  std::string_view s;
  if (StringField(L, "err", &s)) {
    reply.Error(ErrorLine(s));
    return;
  }
  if (StringField(L, "ok", &s)) {
    std::string status(s);
    for (char& c : status) {
      if (c == '\r' || c == '\n') c = ' ';
    }
    reply.SimpleString(status);
    return;
  }
  lua_pushstring(L, "double");
  lua_rawget(L, -2);
  if (lua_type(L, -1) == LUA_TNUMBER) {
    reply.Double(lua_tonumber(L, -1));
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  if (StringField(L, "big_number", &s)) {
    if (reply.resp3()) {
      reply.Raw(StrCat("(", s, "\r\n"));
    } else {
      reply.Bulk(s);
    }
    return;
  }
  lua_pushstring(L, "map");
  lua_rawget(L, -2);
  if (lua_type(L, -1) == LUA_TTABLE) {
    // Counted first, as Redis defers the length; keys and values in next() order.
    reply.MapLen(TableSize(L));
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
      lua_pushvalue(L, -2);
      Write(L, reply, script_resp);  // the key
      Write(L, reply, script_resp);  // the value
    }
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  lua_pushstring(L, "set");
  lua_rawget(L, -2);
  if (lua_type(L, -1) == LUA_TTABLE) {
    reply.SetLen(TableSize(L));
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
      lua_pop(L, 1);
      lua_pushvalue(L, -1);
      Write(L, reply, script_resp);
    }
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  // An array up to the first nil. Its length is known only at the end: the elements
  // go to a buffer of their own first.
  size_t n = 0;
  for (;; ++n) {
    lua_rawgeti(L, -1, int(n + 1));
    const bool nil = lua_type(L, -1) == LUA_TNIL;
    lua_pop(L, 1);
    if (nil) break;
  }
  reply.ArrayLen(n);
  for (size_t i = 0; i < n; ++i) {
    lua_rawgeti(L, -1, int(i + 1));
    Write(L, reply, script_resp);
  }
}

// Writes the value on top and pops it.
void Write(lua_State* L, ReplyBuilder& reply, int script_resp) {
  if (!lua_checkstack(L, 4)) {
    reply.Error("ERR reached lua stack limit");
    lua_pop(L, 1);
    return;
  }
  switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
      size_t len = 0;
      const char* s = lua_tolstring(L, -1, &len);
      reply.Bulk(std::string_view(s, len));
      break;
    }
    case LUA_TBOOLEAN:
      if (script_resp == 2) {
        if (lua_toboolean(L, -1)) {
          reply.Integer(1);
        } else {
          reply.NullBulk();
        }
      } else if (reply.resp3()) {
        reply.Raw(lua_toboolean(L, -1) ? "#t\r\n" : "#f\r\n");
      } else {
        reply.Integer(lua_toboolean(L, -1) ? 1 : 0);
      }
      break;
    case LUA_TNUMBER:
      reply.Integer(Truncate(lua_tonumber(L, -1)));
      break;
    case LUA_TTABLE:
      WriteTable(L, reply, script_resp);
      break;
    default:
      reply.NullBulk();
  }
  lua_pop(L, 1);
}

}  // namespace

void PushRespAsLua(lua_State* L, std::string_view resp) {
  size_t pos = 0;
  if (resp.empty()) {
    lua_pushnil(L);
    return;
  }
  Push(L, resp, &pos);
}

void WriteLuaReply(lua_State* L, ReplyBuilder& reply, int script_resp) {
  Write(L, reply, script_resp);
}

std::string ErrorLine(std::string_view msg) {
  std::string line(msg);
  for (char& c : line) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return line;
}

}  // namespace rc
