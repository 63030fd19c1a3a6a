#pragma once
// Reads a command's arguments from a position onward and keeps the first error, so a
// handler checks every argument before it changes anything and answers with the error
// Redis gives first:
//
//   ArgParser p(cmd.args, 3);
//   while (p.HasNext()) {
//     if (!xx && p.Flag("NX")) {
//       nx = true;
//     } else if (p.Option("COUNT")) {
//       count = p.Next<int64_t>();
//     } else if (p.Option("AGGREGATE")) {
//       agg = p.NextOneOf<Agg>({{"SUM", kSum}, {"MIN", kMin}, {"MAX", kMax}});
//     } else {
//       p.Fail(err::kSyntax);
//     }
//   }
//   if (!p.Finish()) return cmd.reply.Error(p.error());
//
// Once it has failed, every read returns a default value and consumes nothing and
// HasNext() is false, so a loop like the one above stops by itself. A match consumes its
// argument, so conditions on what was already parsed go first (`!xx && p.Flag("NX")`),
// as Redis's own `else if` chains put them. Where Redis checks something only after the
// whole loop (ZADD's flag combinations, SET's expire value), the handler does the same
// with what the loop collected.
//
// Runs on the thread of the handler that owns it; holds views into `args` only.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/errors.h"
#include "shard/wire/command.h"

namespace rc {

class ArgParser {
 public:
  ArgParser(ArgList args, size_t start) : args_(args), pos_(start) {}

  bool HasNext() const { return ok() && pos_ < args_.size(); }
  // Arguments not consumed yet; 0 once failed.
  size_t Remaining() const { return HasNext() ? args_.size() - pos_ : 0; }
  // The next argument, not consumed (for errors that name it); empty when there is none.
  std::string_view Peek() const { return HasNext() ? args_[pos_] : std::string_view(); }

  // Consumes the next argument if it equals `name`, case-insensitively.
  bool Flag(std::string_view name) {
    if (!HasNext() || !EqualsIgnoreCase(args_[pos_], name)) return false;
    ++pos_;
    return true;
  }
  // A keyword followed by `values` arguments, which the caller then reads with Next<T>().
  // Consumes `name` only when that many follow it: else it is not this option (Redis's
  // `!strcasecmp(opt, "count") && moreargs`), usually a syntax error in the caller's
  // final `else`.
  bool Option(std::string_view name, size_t values = 1) {
    if (Remaining() <= values) return false;
    return Flag(name);
  }
  // If the next argument names one of `choices`, consumes it and returns its value.
  template <typename E>
  std::optional<E> Choice(std::initializer_list<std::pair<std::string_view, E>> choices) {
    for (const auto& [name, value] : choices) {
      if (Flag(name)) return value;
    }
    return std::nullopt;
  }
  // The next argument, which must name one of `choices`; else fails with `error`.
  template <typename E>
  E NextOneOf(std::initializer_list<std::pair<std::string_view, E>> choices,
              std::string_view error = err::kSyntax) {
    if (!HasNext()) {
      Fail(err::kSyntax);
    } else if (std::optional<E> v = Choice(choices)) {
      return *v;
    } else {
      Fail(error);
    }
    return E{};
  }

  // The next argument as std::string_view, int64_t (Redis string2ll) or double (Redis
  // string2d). A missing argument is a syntax error; a malformed one fails with
  // `malformed`, by default Redis's text for the type ("value is not an integer or out of
  // range", "value is not a valid float").
  template <typename T>
  T Next(std::string_view malformed = DefaultError<T>()) {
    std::string_view s = NextArg();
    if constexpr (std::is_same_v<T, std::string_view>) {
      return s;
    } else {
      T v{};
      if (ok() && !ParseNumber(s, &v)) Fail(malformed);
      return ok() ? v : T{};
    }
  }
  // Redis getRangeLongFromObjectOrReply: an integer in [min, max]. With `error`, that is
  // the text for a malformed and for an out-of-range value alike (Redis's `msg`);
  // without, Redis's two texts.
  int64_t NextInRange(int64_t min, int64_t max, std::string_view error = {});

  // Ends the parse: an argument left over fails with `error` (Redis: a syntax error).
  // Returns ok().
  bool Finish(std::string_view error = err::kSyntax) {
    if (HasNext()) Fail(error);
    return ok();
  }

  // Records `error` unless an earlier one is kept.
  void Fail(std::string_view error) {
    if (ok()) error_ = std::string(error);
  }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  size_t pos() const { return pos_; }

 private:
  std::string_view NextArg() {
    if (!ok()) return {};
    if (pos_ >= args_.size()) {
      Fail(err::kSyntax);
      return {};
    }
    return args_[pos_++];
  }
  static bool ParseNumber(std::string_view s, int64_t* v) { return ParseInt64(s, v); }
  static bool ParseNumber(std::string_view s, double* v) { return ParseDouble(s, v); }
  template <typename T>
  static constexpr std::string_view DefaultError() {
    if constexpr (std::is_same_v<T, double>) {
      return err::kNotFloat;
    } else {
      return err::kNotInteger;
    }
  }

  ArgList args_;
  size_t pos_;
  std::string error_;
};

}  // namespace rc
