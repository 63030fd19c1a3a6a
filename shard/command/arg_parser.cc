#include "shard/command/arg_parser.h"

namespace rc {

int64_t ArgParser::NextInRange(int64_t min, int64_t max, std::string_view error) {
  int64_t v = Next<int64_t>(error.empty() ? err::kNotInteger : error);
  if (ok() && (v < min || v > max)) {
    Fail(error.empty() ? StrCat("ERR value is out of range, value must between ", min, " and ", max)
                       : std::string(error));
  }
  return ok() ? v : 0;
}

}  // namespace rc
