#include "core/intset.h"

#include <algorithm>

namespace rc::intset {

namespace {

constexpr size_t kHeaderBytes = 8;

void AppendLittle(uint64_t v, size_t bytes, std::string* out) {
  for (size_t i = 0; i < bytes; ++i) out->push_back(char((v >> (8 * i)) & 0xFF));
}

uint64_t LoadLittle(const char* p, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = bytes; i-- > 0;) v = (v << 8) | uint8_t(p[i]);
  return v;
}

// _intsetValueEncoding: the width one value needs.
size_t WidthOf(int64_t v) {
  if (v < INT32_MIN || v > INT32_MAX) return 8;
  if (v < INT16_MIN || v > INT16_MAX) return 4;
  return 2;
}

}  // namespace

void Append(std::span<const int64_t> ints, std::string* out) {
  // Ascending: the extremes decide the width.
  const size_t width = ints.empty() ? 2 : std::max(WidthOf(ints.front()), WidthOf(ints.back()));
  out->reserve(out->size() + kHeaderBytes + width * ints.size());
  AppendLittle(width, 4, out);
  AppendLittle(ints.size(), 4, out);
  for (int64_t v : ints) AppendLittle(uint64_t(v), width, out);
}

bool ForEach(std::string_view blob, absl::FunctionRef<bool(int64_t)> fn) {
  if (blob.size() < kHeaderBytes) return false;
  const size_t width = LoadLittle(blob.data(), 4);
  const size_t count = LoadLittle(blob.data() + 4, 4);
  if (width != 2 && width != 4 && width != 8) return false;
  if (count == 0 || blob.size() != kHeaderBytes + count * width) return false;
  const int shift = int(64 - 8 * width);
  int64_t prev = 0;
  for (size_t i = 0; i < count; ++i) {
    const uint64_t u = LoadLittle(blob.data() + kHeaderBytes + i * width, width);
    const int64_t v = int64_t(u << shift) >> shift;
    if (i > 0 && v <= prev) return false;
    prev = v;
    if (!fn(v)) return false;
  }
  return true;
}

}  // namespace rc::intset
