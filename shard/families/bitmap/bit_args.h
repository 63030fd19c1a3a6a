#pragma once
// Arguments the bitmap commands share: bit offsets (SETBIT, GETBIT, BITFIELD) and the
// start/end range of BITCOUNT and BITPOS, read as Redis reads them.

#include <cstdint>
#include <string_view>

#include "core/numbers.h"

namespace rc {

namespace err {
inline constexpr std::string_view kBitOffset = "ERR bit offset is not an integer or out of range";
}  // namespace err

// Redis's getBitOffsetFromArgument: a non-negative offset whose byte is below
// proto-max-bulk-len (512 MB by default). With `width` > 0 (BITFIELD), "#n" means
// n * width.
inline bool ParseBitOffset(std::string_view arg, unsigned width, int64_t max_bulk_len,
                           uint64_t* out) {
  const bool scaled = width > 0 && !arg.empty() && arg[0] == '#';
  int64_t v;
  if (!ParseInt64(scaled ? arg.substr(1) : arg, &v)) return false;
  if (scaled) v = int64_t(uint64_t(v) * width);  // wraps as Redis's multiplication does
  if (v < 0 || (v >> 3) >= max_bulk_len) return false;
  *out = uint64_t(v);
  return true;
}

// Redis's start/end normalisation over `len` units (bytes, or bits for BIT): negative
// values count from the end, both are clamped into the string. False when the range is
// empty; else [*first, *last] lies inside [0, len).
inline bool ClampRange(int64_t start, int64_t end, int64_t len, int64_t* first, int64_t* last) {
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= len) end = len - 1;
  *first = start;
  *last = end;
  return start <= end;
}

}  // namespace rc
