#include "shard/scripting/sha1.h"

#include <cstdint>
#include <cstring>

namespace rc {

namespace {

uint32_t Rotl(uint32_t v, int n) { return (v << n) | (v >> (32 - n)); }

void Block(uint32_t h[5], const uint8_t* p) {
  uint32_t w[80];
  for (int i = 0; i < 16; ++i) {
    w[i] = uint32_t(p[4 * i]) << 24 | uint32_t(p[4 * i + 1]) << 16 | uint32_t(p[4 * i + 2]) << 8 |
           uint32_t(p[4 * i + 3]);
  }
  for (int i = 16; i < 80; ++i) w[i] = Rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  for (int i = 0; i < 80; ++i) {
    uint32_t f, k;
    if (i < 20) {
      f = (b & c) | (~b & d);
      k = 0x5A827999;
    } else if (i < 40) {
      f = b ^ c ^ d;
      k = 0x6ED9EBA1;
    } else if (i < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8F1BBCDC;
    } else {
      f = b ^ c ^ d;
      k = 0xCA62C1D6;
    }
    const uint32_t t = Rotl(a, 5) + f + e + k + w[i];
    e = d;
    d = c;
    c = Rotl(b, 30);
    b = a;
    a = t;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
}

}  // namespace

std::string_view Sha1Hex(std::string_view data, char (&out)[40]) {
  uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t n = data.size();
  size_t full = n / 64 * 64;
  for (size_t i = 0; i < full; i += 64) Block(h, p + i);
  uint8_t tail[128] = {};
  const size_t rest = n - full;
  std::memcpy(tail, p + full, rest);
  tail[rest] = 0x80;
  const size_t tail_len = rest + 9 <= 64 ? 64 : 128;
  const uint64_t bits = uint64_t(n) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_len - 1 - i] = uint8_t(bits >> (8 * i));
  Block(h, tail);
  if (tail_len == 128) Block(h, tail + 64);
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 20; ++i) {
    const uint8_t byte = uint8_t(h[i / 4] >> (24 - 8 * (i % 4)));
    out[2 * i] = kHex[byte >> 4];
    out[2 * i + 1] = kHex[byte & 15];
  }
  return std::string_view(out, 40);
}

std::string Sha1Hex(std::string_view data) {
  char hex[40];
  return std::string(Sha1Hex(data, hex));
}

std::string_view LowerSha(std::string_view sha, char (&out)[40]) {
  for (size_t i = 0; i < 40; ++i) {
    const char c = sha[i];
    out[i] = c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
  }
  return std::string_view(out, 40);
}

}  // namespace rc
