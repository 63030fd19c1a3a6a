#include "core/numbers.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/strings.h"

namespace rc {
namespace {

// Digits of a non-zero magnitude: no sign, no leading zero. False on overflow.
bool ParseNonZeroDigits(std::string_view d, uint64_t* out) {
  if (d.empty() || d[0] < '1' || d[0] > '9') return false;
  uint64_t v = 0;
  for (char c : d) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *out = v;
  return true;
}

// Shared body of string2d and string2ld. strtod/strtold need a NUL-terminated string and
// arguments are views into a network buffer, so copy, on the stack for any sane input.
template <typename T, typename StrTo>
bool ParseFloating(std::string_view s, StrTo strto, T* out) {
  // strtod would skip a leading space; Redis refuses it, so " 1" is not a float.
  if (s.empty() || IsCSpace(s[0])) return false;
  char small[64];
  std::string large;
  const char* cstr = small;
  if (s.size() < sizeof(small)) {
    std::memcpy(small, s.data(), s.size());
    small[s.size()] = '\0';
  } else {
    large.assign(s);
    cstr = large.c_str();
  }
  char* end = nullptr;
  errno = 0;
  const T v = strto(cstr, &end);
  // An embedded NUL stops strtod early, so this also rejects "1\0junk".
  if (end != cstr + s.size() || std::isnan(v)) return false;
  // ERANGE also flags denormal results, which Redis keeps; only a result that collapsed
  // to infinity or zero means the input was out of range. A literal "inf" sets no ERANGE.
  if (errno == ERANGE && (std::isinf(v) || v == 0)) return false;
  *out = v;
  return true;
}

}  // namespace

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > kMaxInt64Chars) return false;
  if (s == "0") {
    *out = 0;
    return true;
  }
  const bool negative = s[0] == '-';
  uint64_t magnitude;
  if (!ParseNonZeroDigits(s.substr(negative ? 1 : 0), &magnitude)) return false;
  constexpr uint64_t kMinMagnitude = uint64_t{1} << 63;  // |INT64_MIN|
  if (magnitude > (negative ? kMinMagnitude : kMinMagnitude - 1)) return false;
  // Negate in unsigned arithmetic so INT64_MIN does not overflow; C++20 defines the cast.
  *out = static_cast<int64_t>(negative ? 0 - magnitude : magnitude);
  return true;
}

bool ParseUint64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > kMaxInt64Chars) return false;
  if (s == "0") {
    *out = 0;
    return true;
  }
  return ParseNonZeroDigits(s, out);
}

bool ParseDouble(std::string_view s, double* out) {
  return ParseFloating(
      s, [](const char* p, char** end) { return std::strtod(p, end); }, out);
}

bool ParseLongDouble(std::string_view s, long double* out) {
  if (s.size() >= kMaxLongDoubleInputChars) return false;
  return ParseFloating(
      s, [](const char* p, char** end) { return std::strtold(p, end); }, out);
}

char* FormatInt64(int64_t v, char* buf) { return std::to_chars(buf, buf + kMaxInt64Chars, v).ptr; }

char* FormatDouble(double v, char* buf) {
  // Spelled out rather than left to the library: Redis does the same, and printf would
  // give "-nan" for some NaNs.
  if (std::isnan(v)) return std::copy_n("nan", 3, buf);
  if (std::isinf(v)) return v > 0 ? std::copy_n("inf", 3, buf) : std::copy_n("-inf", 4, buf);
  // to_chars with a precision is specified to print exactly what printf("%.17g") does,
  // without the locale lookup and format parsing.
  return std::to_chars(buf, buf + kMaxDoubleChars, v, std::chars_format::general, 17).ptr;
}

std::string FormatDouble(double v) {
  char buf[kMaxDoubleChars];
  return std::string(buf, FormatDouble(v, buf));
}

std::string FormatLongDouble(long double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // "%.17Lf" of the largest long double is about 4,950 bytes; INCRBYFLOAT values are
  // usually short, so try a small buffer first.
  char small[64];
  const int n = std::snprintf(small, sizeof(small), "%.17Lf", v);
  if (n < 0) return "";
  std::string out;
  if (static_cast<size_t>(n) < sizeof(small)) {
    out.assign(small, n);
  } else {
    out.resize(n + 1);
    std::snprintf(out.data(), out.size(), "%.17Lf", v);
    out.resize(n);
  }
  // With a 64-bit mantissa, 17 decimals round most short decimals back to what the user
  // typed plus zeros (10.5 + 0.1 gives "10.60000000000000000"); trimming shows "10.6".
  if (out.find('.') != std::string::npos) {
    const size_t last = out.find_last_not_of('0');
    out.resize(out[last] == '.' ? last : last + 1);
  }
  // A tiny negative result rounds to "-0.000..."; Redis never shows "-0" here.
  if (out == "-0") out = "0";
  return out;
}

bool ParseScanCursor(std::string_view s, uint64_t* out) {
  std::string buf(s);
  if (!buf.empty() && std::isspace(static_cast<unsigned char>(buf[0]))) return false;
  char* end = nullptr;
  errno = 0;
  *out = std::strtoull(buf.c_str(), &end, 10);
  return errno != ERANGE && end == buf.c_str() + buf.size();
}

std::string FormatTrimmedDouble(double d) {
  char buf[64];
  int n = std::snprintf(buf, sizeof(buf), "%f", d);
  std::string s(buf, size_t(std::max(n, 0)));
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  return s;
}

bool ParseMemory(std::string_view s, int64_t* out) {
  std::string lower = ToLower(s);
  struct Unit {
    const char* suffix;
    int64_t mult;
  };
  static const Unit kUnits[] = {{"kb", 1024}, {"mb", 1024 * 1024}, {"gb", 1024LL << 20},
                                {"k", 1000},  {"m", 1000000},      {"g", 1000000000},
                                {"b", 1}};
  int64_t mult = 1;
  std::string_view digits = lower;
  for (const auto& u : kUnits) {
    std::string_view suf = u.suffix;
    if (digits.size() > suf.size() && digits.substr(digits.size() - suf.size()) == suf) {
      digits.remove_suffix(suf.size());
      mult = u.mult;
      break;
    }
  }
  int64_t v;
  if (!ParseInt64(digits, &v) || v < 0 || (mult > 1 && v > INT64_MAX / mult)) return false;
  *out = v * mult;
  return true;
}

}  // namespace rc
