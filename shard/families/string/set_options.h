#pragma once
// SET's options, parsed with Redis's precedence: every option is checked for syntax
// first, then the expire value for range, so errors match Redis's byte for byte.

#include <cstdint>
#include <string>
#include <string_view>

#include "shard/command/command.h"

namespace rc {

struct SetOptions {
  bool nx = false;
  bool xx = false;
  bool get = false;
  bool keep_ttl = false;
  bool has_expire = false;
  int64_t expire_at_ms = 0;  // absolute Unix milliseconds when has_expire
};

// Parses args[start..]; `command` names the command in the expire-time error.
bool ParseSetOptions(ArgList args, size_t start, std::string_view command, int64_t now_ms,
                     SetOptions* out, std::string* error);

// Converts an EX/PX/EXAT/PXAT argument to absolute milliseconds with Redis's checks.
bool ParseExpireArg(std::string_view arg, bool seconds, bool relative, int64_t now_ms,
                    std::string_view command, int64_t* at_ms, std::string* error);

}  // namespace rc
