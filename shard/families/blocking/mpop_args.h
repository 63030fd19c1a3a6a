#pragma once
// The argument grammar ZMPOP, BZMPOP, LMPOP and BLMPOP share: `numkeys key [key ...]
// <end> [COUNT count]`, where <end> names the side to pop from (MIN|MAX, LEFT|RIGHT).
// Checked in Redis 7.0's order (zmpopGenericCommand, lmpopGenericCommand): numkeys, the
// side, then the options; a blocking command's timeout comes after all of them.

#include <cstdint>
#include <string>
#include <string_view>

#include "shard/command/command.h"

namespace rc {

struct MPopArgs {
  ArgList keys;         // views into the command's arguments
  bool second = false;  // the side named `second` (MAX, RIGHT) rather than `first`
  int64_t count = 1;
};

// Parses args[numkeys_idx...]. False with Redis's error text in *error.
bool ParseMPop(ArgList args, size_t numkeys_idx, std::string_view first, std::string_view second,
               MPopArgs* out, std::string* error);

}  // namespace rc
