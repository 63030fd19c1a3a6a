#include "core/rdb.h"

#include <lzf.h>

#include <memory>

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

// rdbTryIntegerEncoding: the string is the canonical form of an int32.
bool AppendAsInteger(std::string_view s, std::string* out) {
  int64_t v = 0;
  if (s.size() > 11 || !ParseInt64(s, &v) || std::to_string(v) != s) return false;
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

// rdbSaveLzfStringObject: worth it only when it saves at least four bytes.
bool AppendCompressed(std::string_view s, std::string* out) {
  if (s.size() <= 4) return false;
  const size_t room = s.size() - 4;
  std::unique_ptr<char[]> buf(new char[room + 1]);
  const unsigned n = lzf_compress(s.data(), unsigned(s.size()), buf.get(), unsigned(room));
  if (n == 0) return false;
  out->push_back(char((kEncoded << 6) | kEncLzf));
  RdbAppendLength(n, out);
  RdbAppendLength(s.size(), out);
  out->append(buf.get(), n);
  return true;
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

void RdbAppendString(std::string_view s, std::string* out) {
  if (AppendAsInteger(s, out)) return;
  if (s.size() > 20 && AppendCompressed(s, out)) return;
  RdbAppendLength(s.size(), out);
  out->append(s);
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
  if (in_.size() < size_t(bytes)) return false;
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | uint8_t(in_[size_t(i)]);
  in_.remove_prefix(size_t(bytes));
  *out = v;
  return true;
}

bool RdbReader::ReadLength(uint64_t* out) {
  bool encoded = false;
  return ReadLengthOrEncoding(out, &encoded) && !encoded;
}

bool RdbReader::ReadString(std::string* out) {
  uint64_t len = 0;
  bool encoded = false;
  if (!ReadLengthOrEncoding(&len, &encoded)) return false;
  if (!encoded) {
    if (in_.size() < len) return false;
    out->assign(in_.substr(0, len));
    in_.remove_prefix(len);
    return true;
  }
  if (len == kEncLzf) {
    uint64_t clen = 0, plain = 0;
    if (!ReadLength(&clen) || !ReadLength(&plain) || in_.size() < clen) return false;
    if (plain == 0 || plain > UINT32_MAX) return false;
    out->resize(plain);
    const unsigned n = lzf_decompress(in_.data(), unsigned(clen), out->data(), unsigned(plain));
    if (n != plain) return false;
    in_.remove_prefix(clen);
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
  if (in_.size() < size_t(bytes)) return false;
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | uint8_t(in_[size_t(i)]);
  in_.remove_prefix(size_t(bytes));
  // Sign-extend from `bytes` bytes.
  const int shift = 64 - 8 * bytes;
  *out = std::to_string(int64_t(v << shift) >> shift);
  return true;
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
