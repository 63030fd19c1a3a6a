#include "core/ziplist.h"

#include <cstdint>

namespace rc {

namespace {

uint64_t LoadLittle(const uint8_t* p, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = bytes; i-- > 0;) v = (v << 8) | p[i];
  return v;
}

constexpr uint8_t kEnd = 0xFF;

}  // namespace

namespace ziplist {

namespace {

constexpr size_t kHeaderBytes = 10;
constexpr uint8_t kBigPrevlen = 0xFE;
constexpr uint8_t kInt16 = 0xC0;
constexpr uint8_t kInt32 = 0xD0;
constexpr uint8_t kInt64 = 0xE0;
constexpr uint8_t kInt24 = 0xF0;
constexpr uint8_t kInt8 = 0xFE;
constexpr uint8_t kImmMin = 0xF1;
constexpr uint8_t kImmMax = 0xFD;

// Decodes the encoding at p (`avail` bytes before the terminator) and the data after it:
// the element and the size of encoding plus data.
bool DecodeBody(const uint8_t* p, size_t avail, listpack::Element* e, size_t* size) {
  const uint8_t b = p[0];
  e->is_int = b >= kInt16;
  if (!e->is_int) {
    // Redis keeps only the top two bits of a string's encoding byte (ZIP_ENTRY_ENCODING).
    size_t head = 0;
    uint64_t len = 0;
    switch (b >> 6) {
      case 0:
        head = 1;
        len = b & 0x3F;
        break;
      case 1:
        head = 2;
        if (avail < head) return false;
        len = (uint64_t(b & 0x3F) << 8) | p[1];
        break;
      default:
        head = 5;
        if (avail < head) return false;
        len = uint64_t(p[1]) << 24 | uint64_t(p[2]) << 16 | uint64_t(p[3]) << 8 | p[4];
        break;
    }
    if (avail < head || len > avail - head) return false;
    e->str = {reinterpret_cast<const char*>(p + head), size_t(len)};
    *size = head + size_t(len);
    return true;
  }
  size_t bytes = 0;
  if (b >= kImmMin && b <= kImmMax) {
    e->value = (b & 0x0F) - 1;
    *size = 1;
    return true;
  }
  switch (b) {
    case kInt8:
      bytes = 1;
      break;
    case kInt16:
      bytes = 2;
      break;
    case kInt24:
      bytes = 3;
      break;
    case kInt32:
      bytes = 4;
      break;
    case kInt64:
      bytes = 8;
      break;
    default:
      return false;
  }
  if (avail < 1 + bytes) return false;
  const int shift = int(64 - 8 * bytes);
  e->value = int64_t(LoadLittle(p + 1, bytes) << shift) >> shift;
  *size = 1 + bytes;
  return true;
}

}  // namespace

bool ForEach(std::string_view zl, absl::FunctionRef<bool(const listpack::Element&)> fn) {
  const auto* p = reinterpret_cast<const uint8_t*>(zl.data());
  const size_t size = zl.size();
  if (size < kHeaderBytes + 1 || LoadLittle(p, 4) != size || p[size - 1] != kEnd) return false;
  const size_t end = size - 1;
  const size_t tail = LoadLittle(p + 4, 4);
  const size_t declared = LoadLittle(p + 8, 2);
  if (tail > end) return false;
  size_t off = kHeaderBytes, prev_off = 0, prev_size = 0, count = 0;
  while (p[off] != kEnd) {
    // Every entry starts before the terminator, which is also the last byte.
    size_t prevlen = p[off], head = 1;
    if (prevlen >= kBigPrevlen) {
      head = 5;
      if (end - off < head) return false;
      prevlen = LoadLittle(p + off + 1, 4);
    }
    if (prevlen != prev_size || end - off <= head) return false;
    listpack::Element e;
    size_t body = 0;
    if (!DecodeBody(p + off + head, end - off - head, &e, &body)) return false;
    prev_off = off;
    prev_size = head + body;
    off += prev_size;
    ++count;
    if (!fn(e)) return false;
  }
  if (off != end) return false;
  if (count > 0 && prev_off != tail) return false;
  return declared == 0xFFFF || declared == count;
}

}  // namespace ziplist

namespace zipmap {

namespace {

constexpr uint8_t kBigLen = 254;

// A length at p, with `avail` bytes to read from; *head gets its size.
bool ReadLen(const uint8_t* p, size_t avail, size_t* head, uint64_t* len) {
  if (avail < 1) return false;
  *head = p[0] < kBigLen ? 1 : 5;
  if (avail < *head) return false;
  *len = *head == 1 ? p[0] : LoadLittle(p + 1, 4);
  return true;
}

}  // namespace

bool ForEach(std::string_view zm,
             absl::FunctionRef<bool(std::string_view field, std::string_view value)> fn) {
  const auto* p = reinterpret_cast<const uint8_t*>(zm.data());
  const size_t size = zm.size();
  if (size < 2 || p[size - 1] != kEnd) return false;
  const size_t end = size - 1;
  auto view = [&](size_t off, size_t len) {
    return std::string_view(reinterpret_cast<const char*>(p + off), len);
  };
  size_t off = 1, count = 0;
  while (p[off] != kEnd) {
    size_t head = 0;
    uint64_t flen = 0, vlen = 0;
    if (!ReadLen(p + off, end - off, &head, &flen)) return false;
    off += head;
    if (flen > end - off) return false;
    const size_t field = off;
    off += flen;
    if (!ReadLen(p + off, end - off, &head, &vlen)) return false;
    off += head;
    if (off >= end) return false;
    const size_t free = p[off++];
    if (vlen > end - off || free > end - off - vlen) return false;
    const size_t value = off;
    off += vlen + free;
    ++count;
    if (!fn(view(field, flen), view(value, vlen))) return false;
  }
  if (off != end || count == 0) return false;
  return p[0] == kBigLen || p[0] == count;
}

}  // namespace zipmap

}  // namespace rc
