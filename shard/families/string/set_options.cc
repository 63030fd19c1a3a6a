#include "shard/families/string/set_options.h"

#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/errors.h"

namespace rc {

bool ParseExpireArg(std::string_view arg, bool seconds, bool relative, int64_t now_ms,
                    std::string_view command, int64_t* at_ms, std::string* error) {
  int64_t v;
  if (!ParseInt64(arg, &v)) {
    *error = std::string(err::kNotInteger);
    return false;
  }
  auto invalid = [&] {
    *error = StrCat("ERR invalid expire time in '", command, "' command");
    return false;
  };
  if (v <= 0 || (seconds && v > INT64_MAX / 1000)) return invalid();
  if (seconds) v *= 1000;
  if (relative) {
    if (v > INT64_MAX - now_ms) return invalid();
    v += now_ms;
  }
  *at_ms = v;
  return true;
}

bool ParseSetOptions(ArgList args, size_t start, std::string_view command, int64_t now_ms,
                     SetOptions* out, std::string* error) {
  enum Unit { kNone, kEx, kPx, kExAt, kPxAt } unit = kNone;
  std::string_view expire_arg;
  for (size_t j = start; j < args.size(); ++j) {
    std::string_view opt = args[j];
    bool has_next = j + 1 < args.size();
    if (EqualsIgnoreCase(opt, "NX") && !out->xx) {
      out->nx = true;
    } else if (EqualsIgnoreCase(opt, "XX") && !out->nx) {
      out->xx = true;
    } else if (EqualsIgnoreCase(opt, "GET")) {
      out->get = true;
    } else if (EqualsIgnoreCase(opt, "KEEPTTL") && (unit == kNone)) {
      out->keep_ttl = true;
    } else if (has_next && !out->keep_ttl &&
               ((EqualsIgnoreCase(opt, "EX") && (unit == kNone || unit == kEx)) ||
                (EqualsIgnoreCase(opt, "PX") && (unit == kNone || unit == kPx)) ||
                (EqualsIgnoreCase(opt, "EXAT") && (unit == kNone || unit == kExAt)) ||
                (EqualsIgnoreCase(opt, "PXAT") && (unit == kNone || unit == kPxAt)))) {
      // Repeating the same unit is allowed (the last one wins), mixing units is not.
      if (EqualsIgnoreCase(opt, "EX"))
        unit = kEx;
      else if (EqualsIgnoreCase(opt, "PX"))
        unit = kPx;
      else if (EqualsIgnoreCase(opt, "EXAT"))
        unit = kExAt;
      else
        unit = kPxAt;
      expire_arg = args[++j];
    } else {
      *error = std::string(err::kSyntax);
      return false;
    }
  }
  if (unit != kNone) {
    out->has_expire = true;
    return ParseExpireArg(expire_arg, unit == kEx || unit == kExAt, unit == kEx || unit == kPx,
                          now_ms, command, &out->expire_at_ms, error);
  }
  return true;
}

}  // namespace rc
