#pragma once
// The options every SCAN-like command takes (Redis scanGenericCommand's one loop serves
// SCAN, ZSCAN and, later, HSCAN and SSCAN): MATCH pattern, COUNT n, and for SCAN itself
// TYPE name.

#include <cstdint>
#include <string_view>

#include "shard/command/arg_parser.h"

namespace rc {

struct ScanOptions {
  std::string_view pattern;  // views into the parsed arguments
  bool use_pattern = false;  // MATCH given and not "*"
  std::string_view type;
  bool use_type = false;
  int64_t count = 10;
};

// Reads the rest of `p`'s arguments; `keyspace` (SCAN) accepts TYPE. Errors as Redis's:
// a malformed COUNT is "not an integer", a COUNT below 1 a syntax error.
void ParseScanOptions(ArgParser& p, bool keyspace, ScanOptions* out);

}  // namespace rc
