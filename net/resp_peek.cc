#include "net/resp_peek.h"

#include <cstdint>

namespace rc::net {

namespace {

// Reads "<prefix><digits>\r\n" at buf[*pos]; false when it is not that (or too long).
bool ReadHeader(std::string_view buf, size_t* pos, char prefix, uint64_t* n) {
  size_t p = *pos;
  if (p >= buf.size() || buf[p] != prefix) return false;
  ++p;
  uint64_t v = 0;
  size_t digits = 0;
  while (p < buf.size() && buf[p] >= '0' && buf[p] <= '9') {
    if (++digits > 12) return false;
    v = v * 10 + uint64_t(buf[p] - '0');
    ++p;
  }
  if (digits == 0 || p + 1 >= buf.size() || buf[p] != '\r' || buf[p + 1] != '\n') return false;
  *pos = p + 2;
  *n = v;
  return true;
}

}  // namespace

size_t PeekSecondArgs(std::string_view buf, std::string_view* out, size_t max, size_t* end) {
  size_t found = 0;
  size_t pos = 0;
  *end = 0;
  while (found < max) {
    uint64_t argc = 0;
    if (!ReadHeader(buf, &pos, '*', &argc) || argc == 0) break;
    std::string_view second;
    for (uint64_t i = 0; i < argc; ++i) {
      uint64_t len = 0;
      if (!ReadHeader(buf, &pos, '$', &len) || len + 2 > buf.size() - pos) return found;
      if (i == 1) second = buf.substr(pos, len);
      pos += len + 2;
    }
    if (argc >= 2) out[found++] = second;
    *end = pos;
  }
  return found;
}

}  // namespace rc::net
