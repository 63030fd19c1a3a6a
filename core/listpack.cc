#include "core/listpack.h"

#include "core/numbers.h"

namespace rc::listpack {

namespace {

constexpr uint8_t k7BitUint = 0x00;
constexpr uint8_t k6BitStr = 0x80;
constexpr uint8_t k13BitInt = 0xC0;
constexpr uint8_t k12BitStr = 0xE0;
constexpr uint8_t k32BitStr = 0xF0;
constexpr uint8_t k16BitInt = 0xF1;
constexpr uint8_t k24BitInt = 0xF2;
constexpr uint8_t k32BitInt = 0xF3;
constexpr uint8_t k64BitInt = 0xF4;
constexpr uint8_t kEof = 0xFF;
// Counts from here on are not kept in the header (LP_HDR_NUMELE_UNKNOWN).
constexpr uint32_t kCountUnknown = 0xFFFF;

// lpEncodeBacklen's size for an entry of `l` bytes.
size_t BacklenBytes(uint64_t l) {
  if (l <= 127) return 1;
  if (l < 16383) return 2;
  if (l < 2097151) return 3;
  if (l < 268435455) return 4;
  return 5;
}

// lpEncodeBacklen: the most significant 7 bits first, every byte after the first with the
// high bit set, so a reader going backwards knows where it ends.
void AppendBacklen(uint64_t l, std::string* out) {
  const size_t n = BacklenBytes(l);
  for (size_t i = n; i-- > 0;) {
    const uint8_t bits = uint8_t((l >> (7 * i)) & 127);
    out->push_back(char(i == n - 1 ? bits : bits | 128));
  }
}

// lpEncodeGetType's integer encodings; returns the encoded size.
size_t EncodeInt(int64_t v, uint8_t* enc) {
  auto little = [&](uint8_t tag, uint64_t u, size_t bytes) {
    enc[0] = tag;
    for (size_t i = 0; i < bytes; ++i) enc[1 + i] = uint8_t(u >> (8 * i));
    return 1 + bytes;
  };
  if (v >= 0 && v <= 127) {
    enc[0] = uint8_t(v);
    return 1;
  }
  if (v >= -4096 && v <= 4095) {
    const uint64_t u = uint64_t(v) & 0x1FFF;
    enc[0] = uint8_t(k13BitInt | (u >> 8));
    enc[1] = uint8_t(u);
    return 2;
  }
  if (v >= INT16_MIN && v <= INT16_MAX) return little(k16BitInt, uint64_t(v), 2);
  if (v >= -8388608 && v <= 8388607) return little(k24BitInt, uint64_t(v), 3);
  if (v >= INT32_MIN && v <= INT32_MAX) return little(k32BitInt, uint64_t(v), 4);
  return little(k64BitInt, uint64_t(v), 8);
}

size_t StringHeaderBytes(size_t len) { return len < 64 ? 1 : len < 4096 ? 2 : 5; }

uint32_t Load32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// Sign-extends the low `bits` bits of `u`.
int64_t SignExtend(uint64_t u, int bits) {
  const uint64_t m = uint64_t(1) << (bits - 1);
  return int64_t((u ^ m) - m);
}

// Decodes the entry at p (with `avail` bytes before the terminator): its element and the
// size of encoding plus data. False when the encoding is unknown or runs past `avail`.
bool DecodeEntry(const uint8_t* p, size_t avail, Element* e, size_t* len) {
  auto need = [&](size_t n) { return n <= avail; };
  const uint8_t b = p[0];
  e->is_int = true;
  if ((b & 0x80) == k7BitUint) {
    e->value = b;
    *len = 1;
    return true;
  }
  if ((b & 0xC0) == k6BitStr) {
    *len = 1 + (b & 0x3F);
    e->is_int = false;
    if (!need(*len)) return false;
    e->str = {reinterpret_cast<const char*>(p + 1), size_t(b & 0x3F)};
    return true;
  }
  if ((b & 0xE0) == k13BitInt) {
    if (!need(2)) return false;
    e->value = SignExtend((uint64_t(b & 0x1F) << 8) | p[1], 13);
    *len = 2;
    return true;
  }
  if ((b & 0xF0) == k12BitStr) {
    if (!need(2)) return false;
    const size_t n = (size_t(b & 0x0F) << 8) | p[1];
    *len = 2 + n;
    e->is_int = false;
    if (!need(*len)) return false;
    e->str = {reinterpret_cast<const char*>(p + 2), n};
    return true;
  }
  size_t bytes = 0;
  switch (b) {
    case k32BitStr: {
      if (!need(5)) return false;
      const size_t n = Load32(p + 1);
      *len = 5 + n;
      e->is_int = false;
      if (n > avail || !need(*len)) return false;
      e->str = {reinterpret_cast<const char*>(p + 5), n};
      return true;
    }
    case k16BitInt:
      bytes = 2;
      break;
    case k24BitInt:
      bytes = 3;
      break;
    case k32BitInt:
      bytes = 4;
      break;
    case k64BitInt:
      bytes = 8;
      break;
    default:
      return false;  // 0xF5..0xFE, and the terminator where an entry belongs
  }
  if (!need(1 + bytes)) return false;
  uint64_t u = 0;
  for (size_t i = bytes; i-- > 0;) u = (u << 8) | p[1 + i];
  e->value = bytes == 8 ? int64_t(u) : SignExtend(u, int(8 * bytes));
  *len = 1 + bytes;
  return true;
}

// lpDecodeBacklen read forwards: the `n` bytes at p hold `l`.
bool BacklenMatches(const uint8_t* p, size_t n, uint64_t l) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    if (((p[i] & 128) != 0) != (i != 0)) return false;
    v = (v << 7) | (p[i] & 127);
  }
  return v == l;
}

}  // namespace

Writer::Writer(std::string* out) : out_(out), start_(out->size()) {
  out->append(kHeaderBytes, '\0');
}

void Writer::Add(std::string_view s) {
  int64_t v = 0;
  if (ParseInt64(s, &v)) return AddInt(v);
  const size_t len = s.size();
  if (len < 64) {
    out_->push_back(char(k6BitStr | len));
  } else if (len < 4096) {
    out_->push_back(char(k12BitStr | (len >> 8)));
    out_->push_back(char(len & 0xFF));
  } else {
    out_->push_back(char(k32BitStr));
    for (int i = 0; i < 4; ++i) out_->push_back(char((len >> (8 * i)) & 0xFF));
  }
  out_->append(s);
  AppendBacklen(StringHeaderBytes(len) + len, out_);
  ++count_;
}

void Writer::AddInt(int64_t v) {
  uint8_t enc[9];
  const size_t n = EncodeInt(v, enc);
  AddEncoded(reinterpret_cast<const char*>(enc), n);
}

void Writer::AddEncoded(const char* enc, size_t len) {
  out_->append(enc, len);
  AppendBacklen(len, out_);
  ++count_;
}

void Writer::Finish() {
  out_->push_back(char(kEof));
  const size_t total = out_->size() - start_;
  const uint32_t count = count_ < kCountUnknown ? uint32_t(count_) : kCountUnknown;
  char* h = out_->data() + start_;
  for (int i = 0; i < 4; ++i) h[i] = char((total >> (8 * i)) & 0xFF);
  h[4] = char(count & 0xFF);
  h[5] = char(count >> 8);
}

size_t EntryBytes(std::string_view s) {
  int64_t v = 0;
  size_t len = 0;
  if (ParseInt64(s, &v)) {
    uint8_t enc[9];
    len = EncodeInt(v, enc);
  } else {
    len = StringHeaderBytes(s.size()) + s.size();
  }
  return len + BacklenBytes(len);
}

std::string_view Element::View(char* buf) const {
  if (!is_int) return str;
  return {buf, size_t(FormatInt64(value, buf) - buf)};
}

bool ForEach(std::string_view lp, absl::FunctionRef<bool(const Element&)> fn) {
  const auto* p = reinterpret_cast<const uint8_t*>(lp.data());
  const size_t size = lp.size();
  if (size < kEmptyBytes || Load32(p) != size || p[size - 1] != kEof) return false;
  const uint32_t declared = uint32_t(p[4]) | uint32_t(p[5]) << 8;
  const size_t end = size - 1;  // the terminator's offset
  size_t off = kHeaderBytes;
  size_t count = 0;
  while (off < end) {
    Element e;
    size_t len = 0;
    if (!DecodeEntry(p + off, end - off, &e, &len)) return false;
    const size_t back = BacklenBytes(len);
    if (back > end - off - len || !BacklenMatches(p + off + len, back, len)) return false;
    off += len + back;
    ++count;
    if (!fn(e)) return false;
  }
  return declared == kCountUnknown || declared == count;
}

}  // namespace rc::listpack
