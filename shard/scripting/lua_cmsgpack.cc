// The `cmsgpack` library scripts see (BullMQ packs its job options with it), written for
// ringcache with the encodings, decodings and error texts of Redis's lua_cmsgpack.c:
//   cmsgpack.pack(v1, ...)              each value encoded in turn, concatenated
//   cmsgpack.unpack(s)                  every object in s, as separate values
//   cmsgpack.unpack_one(s [, offset])   next offset (-1 at the end), then one object
//   cmsgpack.unpack_limit(s, n [, off]) next offset, then at most n objects
// Numbers with an integral value get the smallest integer encoding, others float 32 when
// exact, else float 64; a table whose keys are exactly 1..n is an array, any other a map;
// nesting deeper than 16 tables encodes nil.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "shard/scripting/lua.h"
#include "shard/scripting/lua_libs.h"

namespace rc {

namespace {

constexpr int kMaxNesting = 16;

void PutBig(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(char((v >> (8 * i)) & 0xff));
}

void EncodeInt(std::string* out, int64_t n) {
  if (n >= 0) {
    if (n <= 127) {
      out->push_back(char(n));
    } else if (n <= 0xff) {
      out->push_back(char(0xcc));
      PutBig(out, uint64_t(n), 1);
    } else if (n <= 0xffff) {
      out->push_back(char(0xcd));
      PutBig(out, uint64_t(n), 2);
    } else if (n <= 0xffffffffLL) {
      out->push_back(char(0xce));
      PutBig(out, uint64_t(n), 4);
    } else {
      out->push_back(char(0xcf));
      PutBig(out, uint64_t(n), 8);
    }
  } else if (n >= -32) {
    out->push_back(char(int8_t(n)));
  } else if (n >= -128) {
    out->push_back(char(0xd0));
    PutBig(out, uint64_t(n), 1);
  } else if (n >= -32768) {
    out->push_back(char(0xd1));
    PutBig(out, uint64_t(n), 2);
  } else if (n >= -2147483648LL) {
    out->push_back(char(0xd2));
    PutBig(out, uint64_t(n), 4);
  } else {
    out->push_back(char(0xd3));
    PutBig(out, uint64_t(n), 8);
  }
}

void EncodeNumber(std::string* out, lua_Number n) {
  if (std::isfinite(n) && n == std::floor(n) && n >= -9223372036854775808.0 &&
      n < 9223372036854775808.0) {
    return EncodeInt(out, int64_t(n));
  }
  const float f = float(n);
  if (double(f) == n) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    out->push_back(char(0xca));
    PutBig(out, bits, 4);
  } else {
    uint64_t bits;
    std::memcpy(&bits, &n, 8);
    out->push_back(char(0xcb));
    PutBig(out, bits, 8);
  }
}

void EncodeString(std::string* out, const char* s, size_t len) {
  if (len < 32) {
    out->push_back(char(0xa0 | len));
  } else if (len <= 0xff) {
    out->push_back(char(0xd9));
    PutBig(out, len, 1);
  } else if (len <= 0xffff) {
    out->push_back(char(0xda));
    PutBig(out, len, 2);
  } else {
    out->push_back(char(0xdb));
    PutBig(out, len, 4);
  }
  out->append(s, len);
}

void EncodeLen(std::string* out, size_t n, uint8_t fix, uint8_t b16, uint8_t b32) {
  if (n <= 15) {
    out->push_back(char(fix | n));
  } else if (n <= 0xffff) {
    out->push_back(char(b16));
    PutBig(out, n, 2);
  } else {
    out->push_back(char(b32));
    PutBig(out, n, 4);
  }
}

// Keys exactly 1..n (the empty table included).
bool IsArray(lua_State* L, size_t* n) {
  const int top = lua_gettop(L);
  lua_Number max = 0;
  size_t count = 0;
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    lua_pop(L, 1);
    lua_Number k = 0;
    if (lua_type(L, -1) != LUA_TNUMBER || (k = lua_tonumber(L, -1)) <= 0 || k != std::floor(k)) {
      lua_settop(L, top);
      return false;
    }
    if (k > max) max = k;
    ++count;
  }
  lua_settop(L, top);
  *n = count;
  return max == lua_Number(count);
}

void Encode(lua_State* L, std::string* out, int level);

void EncodeTable(lua_State* L, std::string* out, int level) {
  size_t n = 0;
  if (IsArray(L, &n)) {
    EncodeLen(out, n, 0x90, 0xdc, 0xdd);
    for (size_t i = 1; i <= n; ++i) {
      lua_rawgeti(L, -1, int(i));
      Encode(L, out, level + 1);
    }
    return;
  }
  n = 0;
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    lua_pop(L, 1);
    ++n;
  }
  EncodeLen(out, n, 0x80, 0xde, 0xdf);
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    lua_pushvalue(L, -2);
    Encode(L, out, level + 1);  // the key
    Encode(L, out, level + 1);  // the value
  }
}

// Encodes the value on top and pops it.
void Encode(lua_State* L, std::string* out, int level) {
  luaL_checkstack(L, 4, "cmsgpack: too deep");
  switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
      size_t len = 0;
      const char* s = lua_tolstring(L, -1, &len);
      EncodeString(out, s, len);
      break;
    }
    case LUA_TBOOLEAN:
      out->push_back(char(lua_toboolean(L, -1) ? 0xc3 : 0xc2));
      break;
    case LUA_TNUMBER:
      EncodeNumber(out, lua_tonumber(L, -1));
      break;
    case LUA_TTABLE:
      if (level == kMaxNesting) {
        out->push_back(char(0xc0));
      } else {
        EncodeTable(L, out, level);
      }
      break;
    default:
      out->push_back(char(0xc0));
  }
  lua_pop(L, 1);
}

int MsgpackPack(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
  std::string out;
  for (int i = 1; i <= argc; ++i) {
    lua_pushvalue(L, i);
    Encode(L, &out, 0);
  }
  lua_pushlstring(L, out.data(), out.size());
  return 1;
}

struct Cursor {
  const unsigned char* p;
  size_t left;
  enum { kOk, kEof, kBadData } err = kOk;
  bool Need(size_t n) {
    if (left < n) {
      err = kEof;
      return false;
    }
    return true;
  }
  uint64_t Big(size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = v << 8 | p[i];
    p += n;
    left -= n;
    return v;
  }
};

void Decode(lua_State* L, Cursor* c);

void DecodeArray(lua_State* L, Cursor* c, size_t n) {
  lua_newtable(L);
  for (size_t i = 1; i <= n && c->err == Cursor::kOk; ++i) {
    Decode(L, c);
    lua_rawseti(L, -2, int(i));
  }
}

void DecodeMap(lua_State* L, Cursor* c, size_t n) {
  lua_newtable(L);
  for (size_t i = 0; i < n && c->err == Cursor::kOk; ++i) {
    Decode(L, c);
    Decode(L, c);
    if (lua_isnil(L, -2)) {
      lua_pop(L, 2);  // a nil key cannot be stored
      continue;
    }
    lua_settable(L, -3);
  }
}

void DecodeString(lua_State* L, Cursor* c, size_t len) {
  if (!c->Need(len)) return;
  lua_pushlstring(L, reinterpret_cast<const char*>(c->p), len);
  c->p += len;
  c->left -= len;
}

// Pushes one object (nil when the data ends or is bad: c->err says which).
void Decode(lua_State* L, Cursor* c) {
  luaL_checkstack(L, 4, "cmsgpack: too deep");
  if (!c->Need(1)) {
    lua_pushnil(L);
    return;
  }
  const unsigned char t = *c->p;
  ++c->p;
  --c->left;
  auto sized = [&](size_t n) -> bool { return c->Need(n); };
  if (t <= 0x7f) return lua_pushnumber(L, t);
  if (t >= 0xe0) return lua_pushnumber(L, int8_t(t));
  if ((t & 0xe0) == 0xa0) return DecodeString(L, c, t & 0x1f);
  if ((t & 0xf0) == 0x90) return DecodeArray(L, c, t & 0x0f);
  if ((t & 0xf0) == 0x80) return DecodeMap(L, c, t & 0x0f);
  switch (t) {
    case 0xc0:
      return lua_pushnil(L);
    case 0xc2:
      return lua_pushboolean(L, 0);
    case 0xc3:
      return lua_pushboolean(L, 1);
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf: {
      const size_t n = size_t(1) << (t - 0xcc);
      if (!sized(n)) break;
      return lua_pushnumber(L, lua_Number(c->Big(n)));
    }
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3: {
      const size_t n = size_t(1) << (t - 0xd0);
      if (!sized(n)) break;
      const uint64_t v = c->Big(n);
      const int shift = int(64 - 8 * n);
      return lua_pushnumber(L, lua_Number(int64_t(v << shift) >> shift));
    }
    case 0xca: {
      if (!sized(4)) break;
      const auto bits = uint32_t(c->Big(4));
      float f;
      std::memcpy(&f, &bits, 4);
      return lua_pushnumber(L, f);
    }
    case 0xcb: {
      if (!sized(8)) break;
      const uint64_t bits = c->Big(8);
      double d;
      std::memcpy(&d, &bits, 8);
      return lua_pushnumber(L, d);
    }
    case 0xd9:
    case 0xc4:
      if (!sized(1)) break;
      return DecodeString(L, c, size_t(c->Big(1)));
    case 0xda:
    case 0xc5:
      if (!sized(2)) break;
      return DecodeString(L, c, size_t(c->Big(2)));
    case 0xdb:
    case 0xc6:
      if (!sized(4)) break;
      return DecodeString(L, c, size_t(c->Big(4)));
    case 0xdc:
      if (!sized(2)) break;
      return DecodeArray(L, c, size_t(c->Big(2)));
    case 0xdd:
      if (!sized(4)) break;
      return DecodeArray(L, c, size_t(c->Big(4)));
    case 0xde:
      if (!sized(2)) break;
      return DecodeMap(L, c, size_t(c->Big(2)));
    case 0xdf:
      if (!sized(4)) break;
      return DecodeMap(L, c, size_t(c->Big(4)));
    default:
      c->err = Cursor::kBadData;
  }
  lua_pushnil(L);
}

// Decodes up to `limit` objects (0: all) from string arg 1 at `offset`; with `with_offset`
// the next offset (or -1 at the end) comes first.
int UnpackFull(lua_State* L, int limit, int offset, bool with_offset) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  if (offset < 0 || limit < 0) {
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.", offset,
                      limit);
  }
  if (size_t(offset) > len) {
    return luaL_error(L, "Start offset %d greater than input length %d.", offset, int(len));
  }
  Cursor c{reinterpret_cast<const unsigned char*>(s) + offset, len - size_t(offset)};
  int count = 0;
  if (with_offset) lua_pushnil(L);  // replaced by the offset at the end
  const int base = lua_gettop(L);
  while (c.left > 0 && (limit == 0 || count < limit)) {
    Decode(L, &c);
    if (c.err == Cursor::kEof) return luaL_error(L, "Missing bytes in input.");
    if (c.err == Cursor::kBadData) return luaL_error(L, "Bad data format in input.");
    ++count;
  }
  if (!with_offset) return count;
  const size_t next = len - c.left;
  lua_pushinteger(L, c.left == 0 ? -1 : lua_Integer(next));
  lua_replace(L, base);
  return count + 1;
}

int MsgpackUnpack(lua_State* L) { return UnpackFull(L, 0, 0, false); }
int UnpackOne(lua_State* L) { return UnpackFull(L, 1, int(luaL_optinteger(L, 2, 0)), true); }
int UnpackLimit(lua_State* L) {
  return UnpackFull(L, int(luaL_checkinteger(L, 2)), int(luaL_optinteger(L, 3, 0)), true);
}

}  // namespace

int OpenCmsgpack(lua_State* L) {
  static const luaL_Reg kFunctions[] = {{"pack", MsgpackPack},
                                        {"unpack", MsgpackUnpack},
                                        {"unpack_one", UnpackOne},
                                        {"unpack_limit", UnpackLimit},
                                        {nullptr, nullptr}};
  luaL_register(L, "cmsgpack", kFunctions);
  lua_pushliteral(L, "lua-cmsgpack");
  lua_setfield(L, -2, "_NAME");
  lua_pushliteral(L, "lua-cmsgpack 0.4.0");
  lua_setfield(L, -2, "_VERSION");
  lua_pushliteral(L, "Copyright (C) 2012, Salvatore Sanfilippo");
  lua_setfield(L, -2, "_COPYRIGHT");
  lua_pushliteral(L, "MessagePack C implementation for Lua");
  lua_setfield(L, -2, "_DESCRIPTION");
  return 1;
}

}  // namespace rc
