#pragma once
// SET's and GETEX's options, which Redis parses with one function
// (parseExtendedStringArgumentsOrReply): every option is checked for syntax first, the
// expire value for range afterwards (SetOptions::Deadline; GETEX only after the key's
// lookup), so errors match Redis's byte for byte.

#include <cstdint>
#include <string>
#include <string_view>

#include "shard/command/arg_parser.h"

namespace rc {

enum class ExpireUnit { kNone, kEx, kPx, kExAt, kPxAt, kPersist };

struct SetOptions {
  bool nx = false;
  bool xx = false;
  bool get = false;
  bool keep_ttl = false;
  ExpireUnit unit = ExpireUnit::kNone;  // kPersist: GETEX only
  std::string_view expire_arg;          // EX/PX/EXAT/PXAT's value, not yet converted

  bool has_expire() const { return unit != ExpireUnit::kNone && unit != ExpireUnit::kPersist; }
  // The expire value as absolute Unix milliseconds (left alone without one); false with
  // Redis's error when it is malformed or out of range. `command` names the command in
  // the error.
  bool Deadline(int64_t now_ms, std::string_view command, int64_t* at_ms, std::string* error) const;
};

enum class SetCommand { kSet, kGetEx };

// Reads the rest of `p`'s arguments as `command`'s options:
// SET [NX|XX] [GET] [EX|PX|EXAT|PXAT v|KEEPTTL], GETEX [EX|PX|EXAT|PXAT v|PERSIST].
void ParseSetOptions(ArgParser& p, SetCommand command, SetOptions* out);

// Converts an EX/PX/EXAT/PXAT argument to absolute milliseconds with Redis's checks.
bool ParseExpireArg(std::string_view arg, bool seconds, bool relative, int64_t now_ms,
                    std::string_view command, int64_t* at_ms, std::string* error);

}  // namespace rc
