#include "shard/families/string/set_options.h"

#include <utility>

#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/errors.h"

namespace rc {

namespace {

// EX/PX/EXAT/PXAT and its value. Giving the same unit again replaces the value; any
// other expiry option before it (KEEPTTL, PERSIST, another unit) makes it a syntax error.
bool ExpireOption(ArgParser& p, SetOptions* out) {
  static constexpr std::pair<std::string_view, ExpireUnit> kUnits[] = {
      {"EX", ExpireUnit::kEx},
      {"PX", ExpireUnit::kPx},
      {"EXAT", ExpireUnit::kExAt},
      {"PXAT", ExpireUnit::kPxAt},
  };
  if (out->keep_ttl) return false;
  for (const auto& [name, unit] : kUnits) {
    if ((out->unit == ExpireUnit::kNone || out->unit == unit) && p.Option(name)) {
      out->unit = unit;
      out->expire_arg = p.Next<std::string_view>();
      return true;
    }
  }
  return false;
}

}  // namespace

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

bool SetOptions::Deadline(int64_t now_ms, std::string_view command, int64_t* at_ms,
                          std::string* error) const {
  if (!has_expire()) return true;
  const bool seconds = unit == ExpireUnit::kEx || unit == ExpireUnit::kExAt;
  const bool relative = unit == ExpireUnit::kEx || unit == ExpireUnit::kPx;
  return ParseExpireArg(expire_arg, seconds, relative, now_ms, command, at_ms, error);
}

void ParseSetOptions(ArgParser& p, SetCommand command, SetOptions* out) {
  const bool set = command == SetCommand::kSet;
  const auto none = ExpireUnit::kNone, persist = ExpireUnit::kPersist;
  while (p.HasNext()) {
    if (set && !out->xx && p.Flag("NX")) {
      out->nx = true;
    } else if (set && !out->nx && p.Flag("XX")) {
      out->xx = true;
    } else if (set && p.Flag("GET")) {
      out->get = true;
    } else if (set && out->unit == none && p.Flag("KEEPTTL")) {
      out->keep_ttl = true;
    } else if (!set && (out->unit == none || out->unit == persist) && p.Flag("PERSIST")) {
      out->unit = persist;
    } else if (!ExpireOption(p, out)) {
      p.Fail(err::kSyntax);
    }
  }
}

}  // namespace rc
