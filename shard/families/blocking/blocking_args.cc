#include "shard/families/blocking/blocking_args.h"

#include "shard/command/arg_parser.h"
#include "shard/command/blocking_call.h"

namespace rc {

bool ParseTimeoutArg(ArgList args, size_t pos, int64_t now_ms, ReplyBuilder& reply,
                     int64_t* deadline_ms) {
  std::string_view error;
  if (ParseBlockTimeout(args[pos], now_ms, deadline_ms, &error)) return true;
  reply.Error(error);
  return false;
}

bool ParseMPop(ArgList args, size_t numkeys_idx, std::string_view first, std::string_view second,
               MPopArgs* out, std::string* error) {
  ArgParser p(args, numkeys_idx);
  const int64_t numkeys = p.NextInRange(1, INT64_MAX, "ERR numkeys should be greater than 0");
  if (!p.ok()) {
    *error = p.error();
    return false;
  }
  // The side follows the keys; a numkeys past the arguments leaves it missing.
  const size_t side = numkeys_idx + 1 + size_t(numkeys);
  if (uint64_t(numkeys) >= args.size() || side >= args.size()) {
    *error = std::string(err::kSyntax);
    return false;
  }
  out->keys = args.subspan(numkeys_idx + 1, size_t(numkeys));
  ArgParser rest(args, side);
  out->second = rest.NextOneOf<bool>({{first, false}, {second, true}});
  bool counted = false;
  while (rest.HasNext()) {
    if (!counted && rest.Option("COUNT")) {
      out->count = rest.NextInRange(1, INT64_MAX, "ERR count should be greater than 0");
      counted = true;
    } else {
      rest.Fail(err::kSyntax);
    }
  }
  if (!rest.ok()) *error = rest.error();
  return rest.ok();
}

}  // namespace rc
