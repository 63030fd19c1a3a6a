#pragma once
// String helpers over std::string_view. Debian's Abseil is built with its own
// absl::string_view, so absl::StrCat and friends do not take std::string_view; these do.

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/strings/string_view.h"

namespace rc {

// The same bytes as Abseil's string_view: heterogeneous lookup in Abseil's containers.
inline absl::string_view AbslView(std::string_view s) { return {s.data(), s.size()}; }

// isspace in the "C" locale, without a locale lookup.
inline bool IsCSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

namespace strings_internal {

inline void AppendPiece(std::string* out, std::string_view s) { out->append(s); }
inline void AppendPiece(std::string* out, const char* s) { out->append(s); }
inline void AppendPiece(std::string* out, const std::string& s) { out->append(s); }
inline void AppendPiece(std::string* out, char c) { out->push_back(c); }
template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
void AppendPiece(std::string* out, T v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, res.ptr);
}
inline void AppendPiece(std::string* out, bool) = delete;

}  // namespace strings_internal

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  (strings_internal::AppendPiece(out, args), ...);
}

template <typename... Args>
std::string StrCat(const Args&... args) {
  std::string out;
  StrAppend(&out, args...);
  return out;
}

inline char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? char(c + ('a' - 'A')) : c; }

inline std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

}  // namespace rc
