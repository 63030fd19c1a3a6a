// The `struct` library scripts see (Roberto Ierusalimschy's struct 0.2 as Redis bundles
// it): struct.pack(fmt, ...), struct.unpack(fmt, data [, pos]), struct.size(fmt).
// Written for ringcache with the same formats, results and error texts:
//   >, <, !n   big / little endian (native: little), maximum alignment (default 1)
//   b B h H l L T i[n] I[n]   integers (lower case signed); f d floats; x a zero byte
//   s  zero-terminated string; c[n] n bytes (c0: the whole string / the size before it)

#include <cctype>
#include <climits>
#include <cstdint>
#include <cstring>

#include "shard/scripting/lua.h"
#include "shard/scripting/lua_libs.h"

namespace rc {

namespace {

constexpr int kMaxIntSize = 32;
constexpr int kMaxAlign = 8;

struct Header {
  bool big = false;
  int align = 1;
};

bool IsPowerOf2(int x) { return (x & (x - 1)) == 0; }

int GetNum(lua_State* L, const char** fmt, int def) {
  if (!std::isdigit(static_cast<unsigned char>(**fmt))) return def;
  int a = 0;
  do {
    if (a > INT_MAX / 10 || a * 10 > INT_MAX - (**fmt - '0')) {
      luaL_error(L, "integral size overflow");
    }
    a = a * 10 + *((*fmt)++) - '0';
  } while (std::isdigit(static_cast<unsigned char>(**fmt)));
  return a;
}

size_t OptSize(lua_State* L, char opt, const char** fmt) {
  switch (opt) {
    case 'B':
    case 'b':
      return 1;
    case 'H':
    case 'h':
      return 2;
    case 'L':
    case 'l':
      return sizeof(long);
    case 'T':
      return sizeof(size_t);
    case 'f':
      return sizeof(float);
    case 'd':
      return sizeof(double);
    case 'x':
      return 1;
    case 'c':
      return size_t(GetNum(L, fmt, 1));
    case 'i':
    case 'I': {
      const int sz = GetNum(L, fmt, sizeof(int));
      if (sz > kMaxIntSize) {
        luaL_error(L, "integral size %d is larger than limit of %d", sz, kMaxIntSize);
      }
      return size_t(sz);
    }
    default:
      return 0;
  }
}

size_t ToAlign(size_t len, const Header& h, char opt, size_t size) {
  if (size == 0 || opt == 'c') return 0;
  if (size > size_t(h.align)) size = size_t(h.align);
  return (size - (len & (size - 1))) & (size - 1);
}

void ControlOption(lua_State* L, char opt, const char** fmt, Header* h) {
  switch (opt) {
    case ' ':
      return;
    case '>':
      h->big = true;
      return;
    case '<':
      h->big = false;
      return;
    case '!': {
      const int a = GetNum(L, fmt, kMaxAlign);
      if (!IsPowerOf2(a)) luaL_error(L, "alignment %d is not a power of 2", a);
      h->align = a;
      return;
    }
    default: {
      const char* msg = lua_pushfstring(L, "invalid format option '%c'", opt);
      luaL_argerror(L, 1, msg);
    }
  }
}

// Bytes in the order the header says, from a native (little-endian) value.
void PutBytes(luaL_Buffer* b, const void* p, size_t size, bool big) {
  const auto* bytes = static_cast<const char*>(p);
  for (size_t i = 0; i < size; ++i) luaL_addchar(b, bytes[big ? size - 1 - i : i]);
}

void PutInteger(lua_State* L, luaL_Buffer* b, int arg, bool big, size_t size) {
  const lua_Number n = luaL_checknumber(L, arg);
  uint64_t value = n < 0 ? uint64_t(int64_t(n)) : uint64_t(n);
  char buf[kMaxIntSize];
  for (size_t i = 0; i < size; ++i) {
    buf[big ? size - 1 - i : i] = char(value & 0xff);
    value = i < 7 ? value >> 8 : 0;
  }
  luaL_addlstring(b, buf, size);
}

lua_Number GetInteger(const char* p, bool big, bool is_signed, size_t size) {
  uint64_t l = 0;
  for (size_t i = 0; i < size; ++i) {
    l <<= 8;
    l |= uint64_t(static_cast<unsigned char>(p[big ? i : size - 1 - i]));
  }
  if (!is_signed) return lua_Number(l);
  if (size * 8 - 1 < 64) {
    const uint64_t mask = ~uint64_t(0) << (size * 8 - 1);
    if (l & mask) l |= mask;
  }
  return lua_Number(int64_t(l));
}

void Native(void* p, size_t size, bool big) {
  if (!big) return;
  auto* bytes = static_cast<char*>(p);
  for (size_t i = 0; i < size / 2; ++i) std::swap(bytes[i], bytes[size - 1 - i]);
}

int StructPack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Header h;
  int arg = 2;
  size_t total = 0;
  lua_pushnil(L);  // separates the arguments from the buffer's own stack use
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  while (*fmt != '\0') {
    const char opt = *fmt++;
    size_t size = OptSize(L, opt, &fmt);
    size_t pad = ToAlign(total, h, opt, size);
    total += pad;
    while (pad-- > 0) luaL_addchar(&b, '\0');
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        PutInteger(L, &b, arg++, h.big, size);
        break;
      case 'x':
        luaL_addchar(&b, '\0');
        break;
      case 'f': {
        float f = float(luaL_checknumber(L, arg++));
        PutBytes(&b, &f, size, h.big);
        break;
      }
      case 'd': {
        double d = luaL_checknumber(L, arg++);
        PutBytes(&b, &d, size, h.big);
        break;
      }
      case 'c':
      case 's': {
        size_t l = 0;
        const char* s = luaL_checklstring(L, arg++, &l);
        if (size == 0) size = l;
        luaL_argcheck(L, l >= size, arg, "string too short");
        luaL_addlstring(&b, s, size);
        if (opt == 's') {
          luaL_addchar(&b, '\0');
          ++size;
        }
        break;
      }
      default:
        ControlOption(L, opt, &fmt, &h);
    }
    total += size;
  }
  luaL_pushresult(&b);
  return 1;
}

int StructUnpack(lua_State* L) {
  Header h;
  const char* fmt = luaL_checkstring(L, 1);
  size_t ld = 0;
  const char* data = luaL_checklstring(L, 2, &ld);
  size_t pos = size_t(luaL_optinteger(L, 3, 1)) - 1;
  lua_settop(L, 2);
  while (*fmt != '\0') {
    const char opt = *fmt++;
    size_t size = OptSize(L, opt, &fmt);
    pos += ToAlign(pos, h, opt, size);
    luaL_argcheck(L, pos + size <= ld, 2, "data string too short");
    luaL_checkstack(L, 2, "too many results");
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        lua_pushnumber(L, GetInteger(data + pos, h.big, std::islower(opt), size));
        break;
      case 'x':
        break;
      case 'f': {
        float f;
        std::memcpy(&f, data + pos, size);
        Native(&f, sizeof(f), h.big);
        lua_pushnumber(L, f);
        break;
      }
      case 'd': {
        double d;
        std::memcpy(&d, data + pos, size);
        Native(&d, sizeof(d), h.big);
        lua_pushnumber(L, d);
        break;
      }
      case 'c': {
        if (size == 0) {
          if (!lua_isnumber(L, -1)) luaL_error(L, "format 'c0' needs a previous size");
          size = size_t(lua_tonumber(L, -1));
          lua_pop(L, 1);
          luaL_argcheck(L, pos + size <= ld, 2, "data string too short");
        }
        lua_pushlstring(L, data + pos, size);
        break;
      }
      case 's': {
        const char* e = static_cast<const char*>(std::memchr(data + pos, '\0', ld - pos));
        if (e == nullptr) luaL_error(L, "unfinished string in data");
        size = size_t(e - (data + pos)) + 1;
        lua_pushlstring(L, data + pos, size - 1);
        break;
      }
      default:
        ControlOption(L, opt, &fmt, &h);
    }
    pos += size;
  }
  lua_pushinteger(L, lua_Integer(pos + 1));
  return lua_gettop(L) - 2;
}

int Size(lua_State* L) {
  Header h;
  const char* fmt = luaL_checkstring(L, 1);
  size_t pos = 0;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    const size_t size = OptSize(L, opt, &fmt);
    pos += ToAlign(pos, h, opt, size);
    if (opt == 's') {
      luaL_argerror(L, 1, "option 's' has no fixed size");
    } else if (opt == 'c' && size == 0) {
      luaL_argerror(L, 1, "option 'c0' has no fixed size");
    }
    if (!std::isalnum(static_cast<unsigned char>(opt))) ControlOption(L, opt, &fmt, &h);
    pos += size;
  }
  lua_pushinteger(L, lua_Integer(pos));
  return 1;
}

}  // namespace

int OpenStruct(lua_State* L) {
  static const luaL_Reg kFunctions[] = {
      {"pack", StructPack}, {"unpack", StructUnpack}, {"size", Size}, {nullptr, nullptr}};
  luaL_register(L, "struct", kFunctions);
  return 1;
}

}  // namespace rc
