#pragma once
// The arguments the blocking commands share: the timeout (a float of seconds), the keys
// before it (BLPOP, BZPOPMIN), and the grammar of ZMPOP, BZMPOP and BLMPOP: `numkeys key
// [key ...] <end> [COUNT count]`, where <end> names the side to pop from (MIN|MAX,
// LEFT|RIGHT), checked in Redis 7.0's order (zmpopGenericCommand, lmpopGenericCommand):
// numkeys, the side, then the options; the blocking ones' timeout comes after all of them.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/reply_builder.h"
#include "shard/wire/command.h"

namespace rc {

// args[pos] as a timeout (ParseBlockTimeout): the deadline in Unix ms (0: none) from
// `now_ms`, or false having replied Redis's error.
bool ParseTimeoutArg(ArgList args, size_t pos, int64_t now_ms, ReplyBuilder& reply,
                     int64_t* deadline_ms);

// BLPOP key [key ...] timeout: the keys.
inline ArgList KeysBeforeTimeout(ArgList args) { return args.subspan(1, args.size() - 2); }

struct MPopArgs {
  ArgList keys;         // views into the command's arguments
  bool second = false;  // the side named `second` (MAX, RIGHT) rather than `first`
  int64_t count = 1;
};

// Parses args[numkeys_idx...]. False with Redis's error text in *error.
bool ParseMPop(ArgList args, size_t numkeys_idx, std::string_view first, std::string_view second,
               MPopArgs* out, std::string* error);

}  // namespace rc
