#pragma once
// Reads a command's optional arguments in order and keeps the first error, so handlers
// validate everything before they change anything:
//
//   ArgParser p(args, 3);
//   while (p.HasNext()) {
//     if (p.Flag("NX")) nx = true;
//     else if (p.Flag("EX")) ex = p.Next<int64_t>();
//     else p.Fail(err::kSyntax);
//   }
//   if (!p.Ok()) return reply.Error(p.error());

#include <cstdint>
#include <string>
#include <string_view>

#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/command.h"
#include "shard/command/errors.h"

namespace rc {

class ArgParser {
 public:
  ArgParser(ArgList args, size_t start) : args_(args), pos_(start) {}

  bool HasNext() const { return ok() && pos_ < args_.size(); }
  // Consumes the next argument if it equals `name`, case-insensitively.
  bool Flag(std::string_view name) {
    if (!HasNext() || !EqualsIgnoreCase(args_[pos_], name)) return false;
    ++pos_;
    return true;
  }
  std::string_view NextString() {
    if (!ok()) return {};
    if (pos_ >= args_.size()) {
      Fail(err::kSyntax);
      return {};
    }
    return args_[pos_++];
  }
  // A following integer argument; a missing one is a syntax error, a malformed one
  // Redis's "not an integer" error.
  int64_t NextInt() {
    std::string_view s = NextString();
    int64_t v = 0;
    if (ok() && !ParseInt64(s, &v)) Fail(err::kNotInteger);
    return v;
  }
  void Fail(std::string_view error) {
    if (ok()) error_ = std::string(error);
  }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  size_t pos() const { return pos_; }

 private:
  ArgList args_;
  size_t pos_;
  std::string error_;
};

}  // namespace rc
