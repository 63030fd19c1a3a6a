#include "core/rdb.h"

#include <lzf.h>

#include <cstdlib>
#include <cstring>
#include <limits>

#include "core/crc64.h"
#include "core/numbers.h"

namespace rc {

namespace {

constexpr uint8_t kLen6 = 0;
constexpr uint8_t kLen14 = 1;
constexpr uint8_t kLen32 = 0x80;
constexpr uint8_t kLen64 = 0x81;
constexpr uint8_t kEncoded = 3;  // the two top bits of a special string's first byte
constexpr uint8_t kEncInt8 = 0;
constexpr uint8_t kEncInt16 = 1;
constexpr uint8_t kEncInt32 = 2;
constexpr uint8_t kEncLzf = 3;

void AppendBigEndian(uint64_t v, int bytes, std::string* out) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(char((v >> (8 * i)) & 0xff));
}

void AppendLittleEndian(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(char((v >> (8 * i)) & 0xff));
}

// rdbTryIntegerEncoding: the string is string2ll's spelling of an int32 (ParseInt64 is
// string2ll, which accepts exactly the canonical spellings).
bool AppendAsInteger(std::string_view s, std::string* out) {
  int64_t v = 0;
  if (s.size() > 11 || !ParseInt64(s, &v)) return false;
  const uint8_t head = kEncoded << 6;
  if (v >= INT8_MIN && v <= INT8_MAX) {
    out->push_back(char(head | kEncInt8));
    AppendLittleEndian(uint64_t(v), 1, out);
  } else if (v >= INT16_MIN && v <= INT16_MAX) {
    out->push_back(char(head | kEncInt16));
    AppendLittleEndian(uint64_t(v), 2, out);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    out->push_back(char(head | kEncInt32));
    AppendLittleEndian(uint64_t(v), 4, out);
  } else {
    return false;
  }
  return true;
}

// rdbSaveLzfStringObject: worth it only when it saves at least four bytes. The compressed
// bytes go to a buffer the thread keeps, since their length comes before them.
bool AppendCompressed(std::string_view s, std::string* out) {
  if (s.size() <= 4 || s.size() > UINT32_MAX) return false;
  thread_local std::string buf;
  const size_t room = s.size() - 4;
  if (buf.size() < room + 1) buf.resize(room + 1);
  const unsigned n = lzf_compress(s.data(), unsigned(s.size()), buf.data(), unsigned(room));
  if (n == 0) return false;
  out->push_back(char((kEncoded << 6) | kEncLzf));
  RdbAppendLength(n, out);
  RdbAppendLength(s.size(), out);
  out->append(buf.data(), n);
  return true;
}

uint64_t LoadLittleEndian(std::string_view bytes) {
  uint64_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) v = (v << 8) | uint8_t(bytes[i]);
  return v;
}

}  // namespace

void RdbAppendLength(uint64_t len, std::string* out) {
  if (len < (1 << 6)) {
    out->push_back(char((kLen6 << 6) | len));
  } else if (len < (1 << 14)) {
    out->push_back(char((kLen14 << 6) | (len >> 8)));
    out->push_back(char(len & 0xff));
  } else if (len <= UINT32_MAX) {
    out->push_back(char(kLen32));
    AppendBigEndian(len, 4, out);
  } else {
    out->push_back(char(kLen64));
    AppendBigEndian(len, 8, out);
  }
}

void RdbAppendString(std::string_view s, std::string* out, bool compress) {
  if (AppendAsInteger(s, out)) return;
  if (compress && s.size() > 20 && AppendCompressed(s, out)) return;
  RdbAppendLength(s.size(), out);
  out->append(s);
}

void RdbAppendU64(uint64_t v, std::string* out) { AppendLittleEndian(v, 8, out); }

void RdbAppendBinaryDouble(double v, std::string* out) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  AppendLittleEndian(bits, 8, out);
}

bool RdbReader::ReadByte(uint8_t* out) {
  if (in_.empty()) return false;
  *out = uint8_t(in_[0]);
  in_.remove_prefix(1);
  return true;
}

bool RdbReader::ReadLengthOrEncoding(uint64_t* out, bool* encoded) {
  uint8_t b = 0;
  if (!ReadByte(&b)) return false;
  *encoded = false;
  switch (b >> 6) {
    case kLen6:
      *out = b & 0x3f;
      return true;
    case kLen14: {
      uint8_t low = 0;
      if (!ReadByte(&low)) return false;
      *out = (uint64_t(b & 0x3f) << 8) | low;
      return true;
    }
    case kEncoded:
      *encoded = true;
      *out = b & 0x3f;
      return true;
    default:
      break;
  }
  int bytes = 0;
  if (b == kLen32) {
    bytes = 4;
  } else if (b == kLen64) {
    bytes = 8;
  } else {
    return false;
  }
  std::string_view raw;
  if (!ReadRaw(size_t(bytes), &raw)) return false;
  uint64_t v = 0;
  for (char c : raw) v = (v << 8) | uint8_t(c);
  *out = v;
  return true;
}

bool RdbReader::ReadLength(uint64_t* out) {
  bool encoded = false;
  return ReadLengthOrEncoding(out, &encoded) && !encoded;
}

bool RdbReader::ReadString(std::string* out) {
  std::string_view v;
  if (!ReadStringView(&v, out)) return false;
  if (v.data() != out->data()) out->assign(v);
  return true;
}

bool RdbReader::ReadStringView(std::string_view* out, std::string* scratch) {
  uint64_t len = 0;
  bool encoded = false;
  if (!ReadLengthOrEncoding(&len, &encoded)) return false;
  if (!encoded) return ReadRaw(len, out);
  if (len == kEncLzf) {
    uint64_t clen = 0, plain = 0;
    std::string_view packed;
    if (!ReadLength(&clen) || !ReadLength(&plain) || !ReadRaw(clen, &packed)) return false;
    // The output's size comes from the input: no more than liblzf can make of it (a
    // back-reference is 3 bytes for up to 264 out) is allocated for a lying header.
    if (plain == 0 || plain > UINT32_MAX || plain > clen * 89 + 32) return false;
    scratch->resize(plain);
    const unsigned n =
        lzf_decompress(packed.data(), unsigned(packed.size()), scratch->data(), unsigned(plain));
    if (n != plain) return false;
    *out = *scratch;
    return true;
  }
  int bytes = 0;
  switch (len) {
    case kEncInt8:
      bytes = 1;
      break;
    case kEncInt16:
      bytes = 2;
      break;
    case kEncInt32:
      bytes = 4;
      break;
    default:
      return false;
  }
  std::string_view raw;
  if (!ReadRaw(size_t(bytes), &raw)) return false;
  // Sign-extend from `bytes` bytes.
  const int shift = 64 - 8 * bytes;
  const int64_t v = int64_t(LoadLittleEndian(raw) << shift) >> shift;
  char buf[kMaxInt64Chars];
  scratch->assign(buf, size_t(FormatInt64(v, buf) - buf));
  *out = *scratch;
  return true;
}

bool RdbReader::SkipString() {
  uint64_t len = 0;
  bool encoded = false;
  std::string_view skipped;
  if (!ReadLengthOrEncoding(&len, &encoded)) return false;
  if (!encoded) return ReadRaw(len, &skipped);
  switch (len) {
    case kEncInt8:
      return ReadRaw(1, &skipped);
    case kEncInt16:
      return ReadRaw(2, &skipped);
    case kEncInt32:
      return ReadRaw(4, &skipped);
    case kEncLzf: {
      uint64_t clen = 0, plain = 0;
      return ReadLength(&clen) && ReadLength(&plain) && ReadRaw(clen, &skipped);
    }
    default:
      return false;
  }
}

bool RdbReader::ReadRaw(size_t n, std::string_view* out) {
  if (in_.size() < n) return false;
  *out = in_.substr(0, n);
  in_.remove_prefix(n);
  return true;
}

bool RdbReader::ReadU32(uint32_t* out) {
  std::string_view raw;
  if (!ReadRaw(4, &raw)) return false;
  *out = uint32_t(LoadLittleEndian(raw));
  return true;
}

bool RdbReader::ReadU64(uint64_t* out) {
  std::string_view raw;
  if (!ReadRaw(8, &raw)) return false;
  *out = LoadLittleEndian(raw);
  return true;
}

bool RdbReader::ReadBinaryDouble(double* out) {
  uint64_t bits = 0;
  if (!ReadU64(&bits)) return false;
  std::memcpy(out, &bits, 8);
  return true;
}

bool RdbReader::ReadStringDouble(double* out) {
  uint8_t len = 0;
  if (!ReadByte(&len)) return false;
  switch (len) {
    case 253:
      *out = std::numeric_limits<double>::quiet_NaN();
      return true;
    case 254:
      *out = std::numeric_limits<double>::infinity();
      return true;
    case 255:
      *out = -std::numeric_limits<double>::infinity();
      return true;
    default:
      break;
  }
  std::string_view raw;
  if (!ReadRaw(len, &raw)) return false;
  // Redis reads it with sscanf("%lg"): a number at the start, the rest ignored.
  char buf[256];
  std::memcpy(buf, raw.data(), raw.size());
  buf[raw.size()] = '\0';
  char* end = nullptr;
  *out = std::strtod(buf, &end);
  return end != buf;
}

void AppendDumpFooter(std::string* payload) {
  AppendLittleEndian(kRdbVersion, 2, payload);
  AppendLittleEndian(Crc64(0, *payload), 8, payload);
}

bool VerifyDumpFooter(std::string_view payload, uint16_t* version) {
  if (payload.size() < 10) return false;
  const std::string_view footer = payload.substr(payload.size() - 10);
  *version = uint16_t(uint8_t(footer[0]) | (uint16_t(uint8_t(footer[1])) << 8));
  if (*version > kRdbVersion) return false;
  uint64_t stored = 0;
  for (int i = 7; i >= 0; --i) stored = (stored << 8) | uint8_t(footer[size_t(2 + i)]);
  return Crc64(0, payload.substr(0, payload.size() - 8)) == stored;
}

}  // namespace rc
