#include "core/bitops.h"

#include <algorithm>
#include <cstring>

// A function compiled for a CPU feature and for baseline x86-64, the loader picking one
// (an ifunc). Sanitized builds keep the baseline only: the resolver runs at load time,
// before the sanitizer's runtime is up, and its instrumented code crashes there.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define RC_CLONES(feature)
#else
#define RC_CLONES(feature) __attribute__((target_clones(feature, "default")))
#endif

namespace rc::bits {

namespace {

uint64_t LoadWord(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// Bits [0, s) of a byte, in Redis's order (bit 0 is the most significant).
uint8_t HighBits(unsigned s) { return uint8_t(~(0xffu >> s)); }

}  // namespace

// Four independent sums let the POPCNTs of one 32-byte block run in parallel.
RC_CLONES("popcnt") uint64_t PopCount(const uint8_t* p, size_t n) {
  uint64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  for (; n >= 32; p += 32, n -= 32) {
    c0 += uint64_t(__builtin_popcountll(LoadWord(p)));
    c1 += uint64_t(__builtin_popcountll(LoadWord(p + 8)));
    c2 += uint64_t(__builtin_popcountll(LoadWord(p + 16)));
    c3 += uint64_t(__builtin_popcountll(LoadWord(p + 24)));
  }
  for (; n >= 8; p += 8, n -= 8) c0 += uint64_t(__builtin_popcountll(LoadWord(p)));
  for (; n > 0; ++p, --n) c1 += uint64_t(__builtin_popcount(*p));
  return c0 + c1 + c2 + c3;
}

uint64_t PopCountRange(const uint8_t* p, uint64_t first, uint64_t last) {
  const uint64_t fb = first >> 3, lb = last >> 3;
  uint64_t n = PopCount(p + fb, lb - fb + 1);
  // Take back the bits of the edge bytes that lie outside the range.
  n -= uint64_t(__builtin_popcount(p[fb] & HighBits(first & 7)));
  n -= uint64_t(__builtin_popcount(p[lb] & uint8_t(0xffu >> ((last & 7) + 1))));
  return n;
}

int64_t FindBit(const uint8_t* p, uint64_t first, uint64_t last, bool bit) {
  // XOR with `flip` turns the wanted bits into ones.
  const uint8_t flip = bit ? 0 : 0xff;
  const uint64_t flip_word = bit ? 0 : ~uint64_t(0);
  const uint64_t fb = first >> 3, lb = last >> 3;
  auto in_byte = [&](uint64_t b) -> int64_t {
    uint8_t x = p[b] ^ flip;
    if (b == fb) x &= uint8_t(0xffu >> (first & 7));
    if (b == lb) x &= HighBits((last & 7) + 1);
    return x != 0 ? int64_t((b << 3) + uint64_t(__builtin_clz(x) - 24)) : -1;
  };
  if (int64_t pos = in_byte(fb); pos >= 0 || fb == lb) return pos;
  // The whole bytes between the edge bytes: first skip 32-byte blocks holding no wanted
  // bit (one test per block), then words; big-endian loads keep the bit order.
  uint64_t b = fb + 1;
  for (; b + 32 <= lb; b += 32) {
    const uint64_t w0 = LoadWord(p + b) ^ flip_word, w1 = LoadWord(p + b + 8) ^ flip_word,
                   w2 = LoadWord(p + b + 16) ^ flip_word, w3 = LoadWord(p + b + 24) ^ flip_word;
    if ((w0 | w1 | w2 | w3) != 0) break;
  }
  for (; b + 8 <= lb; b += 8) {
    const uint64_t w = __builtin_bswap64(LoadWord(p + b)) ^ flip_word;
    if (w != 0) return int64_t((b << 3) + uint64_t(__builtin_clzll(w)));
  }
  for (; b <= lb; ++b) {
    if (int64_t pos = in_byte(b); pos >= 0) return pos;
  }
  return -1;
}

namespace {

// One pass of `out[i] = out[i] op src[i]` over `n` bytes; plain loops the compiler turns
// into vector instructions (the clones pick AVX2 where the CPU has it).
RC_CLONES("avx2")
void Fold(BitOpKind op, char* __restrict out, const char* __restrict src, size_t n) {
  auto* o = reinterpret_cast<uint8_t*>(out);
  auto* s = reinterpret_cast<const uint8_t*>(src);
  switch (op) {
    case BitOpKind::kAnd:
      for (size_t i = 0; i < n; ++i) o[i] &= s[i];
      break;
    case BitOpKind::kOr:
      for (size_t i = 0; i < n; ++i) o[i] |= s[i];
      break;
    case BitOpKind::kXor:
      for (size_t i = 0; i < n; ++i) o[i] ^= s[i];
      break;
    case BitOpKind::kNot:
      for (size_t i = 0; i < n; ++i) o[i] = uint8_t(~s[i]);
      break;
  }
}

}  // namespace

void BitOp(BitOpKind op, absl::Span<const std::string_view> srcs, char* out, size_t len) {
  if (len == 0) return;
  if (srcs.empty()) {
    std::memset(out, 0, len);
    return;
  }
  const std::string_view first = srcs[0];
  const size_t n0 = std::min(first.size(), len);
  if (op == BitOpKind::kNot) {
    Fold(op, out, first.data(), n0);
    std::memset(out + n0, 0xff, len - n0);
    return;
  }
  if (n0 > 0) std::memcpy(out, first.data(), n0);  // a missing key's view has no data
  std::memset(out + n0, 0, len - n0);
  for (size_t k = 1; k < srcs.size(); ++k) {
    const size_t n = std::min(srcs[k].size(), len);
    Fold(op, out, srcs[k].data(), n);
    // AND with the zeros past a shorter source.
    if (op == BitOpKind::kAnd) std::memset(out + n, 0, len - n);
  }
}

uint64_t GetField(const uint8_t* p, size_t len, uint64_t offset, unsigned width) {
  uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i, ++offset) {
    const uint64_t byte = offset >> 3;
    const unsigned bit = (byte < len) ? (p[byte] >> (7 - (offset & 7))) & 1 : 0;
    v = (v << 1) | bit;
  }
  return v;
}

void SetField(uint8_t* p, uint64_t offset, unsigned width, uint64_t value) {
  for (unsigned i = 0; i < width; ++i, ++offset) {
    const uint8_t mask = uint8_t(0x80u >> (offset & 7));
    const bool on = (value >> (width - 1 - i)) & 1;
    uint8_t& b = p[offset >> 3];
    b = on ? uint8_t(b | mask) : uint8_t(b & ~mask);
  }
}

int64_t SignExtend(uint64_t v, unsigned width) {
  if (width < 64 && (v >> (width - 1)) & 1) v |= ~uint64_t(0) << width;
  return int64_t(v);
}

namespace {

// What a field gets once the sum was judged: the sum when it fits, else by the OVERFLOW
// policy, the sum wrapped into the field, the limit it crossed, or nothing (FAIL).
template <typename T>
bool Settle(bool over, bool under, T sum, T wrapped, T min, T max, Overflow ow, T* out) {
  if (!over && !under) {
    *out = sum;
    return true;
  }
  switch (ow) {
    case Overflow::kWrap:
      *out = wrapped;
      return true;
    case Overflow::kSat:
      *out = over ? max : min;
      return true;
    case Overflow::kFail:
      break;
  }
  return false;
}

}  // namespace

bool AddUnsigned(uint64_t value, int64_t incr, unsigned width, Overflow ow, uint64_t* out) {
  const uint64_t max = width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  const int64_t max_incr = int64_t(max - value);
  const int64_t min_incr = int64_t(0 - value);
  const bool over = value > max || (incr > 0 && incr > max_incr);
  const bool under = !over && incr < 0 && incr < min_incr;
  const uint64_t sum = value + uint64_t(incr);
  return Settle<uint64_t>(over, under, sum, sum & max, 0, max, ow, out);
}

bool AddSigned(int64_t value, int64_t incr, unsigned width, Overflow ow, int64_t* out) {
  const int64_t max = width == 64 ? INT64_MAX : (int64_t(1) << (width - 1)) - 1;
  const int64_t min = -max - 1;
  // Redis computes these with wrapping arithmetic and compares them even where they
  // wrapped; so does this, for the same answers.
  const int64_t max_incr = int64_t(uint64_t(max) - uint64_t(value));
  const int64_t min_incr = int64_t(uint64_t(min) - uint64_t(value));
  const bool over = value > max || (width != 64 && incr > max_incr) ||
                    (value >= 0 && incr > 0 && incr > max_incr);
  const bool under = !over && (value < min || (width != 64 && incr < min_incr) ||
                               (value < 0 && incr < 0 && incr < min_incr));
  const uint64_t sum = uint64_t(value) + uint64_t(incr);
  const int64_t wrapped = SignExtend(width == 64 ? sum : sum & ((uint64_t(1) << width) - 1), width);
  return Settle<int64_t>(over, under, int64_t(sum), wrapped, min, max, ow, out);
}

}  // namespace rc::bits
