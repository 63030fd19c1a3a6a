#pragma once
// Glob matching for KEYS, SCAN MATCH, PSUBSCRIBE and CONFIG GET, byte for byte the rules of
// Redis 7.0's stringmatchlen, quirks included, so that a pattern selects the same keys here
// as on redis-server:
//
//   *        any run of bytes, including none
//   ?        exactly one byte
//   [abc]    one byte from the set; [^abc] one byte not in it
//   [a-z]    a range; reversed ends ([z-a]) are swapped; ends compare as signed chars, as
//            Redis does on x86-64, so a range ending in a byte >= 0x80 wraps below '\0'
//   \x       the byte x literally, outside and inside brackets
//
// Malformed patterns are not errors: a '[' with no closing ']' still matches one byte from
// the bytes that follow it, and a trailing '\' is a literal backslash.
//
// Cost is bounded for hostile patterns: once the text after a '*' fails at every position,
// no earlier '*' is retried at a longer length (so "a*a*a*a*b" against a long run of 'a' is
// linear, not exponential), and a pattern that would nest more than 1000 '*'s deep fails
// to match, which also caps the recursion depth.

#include <string_view>

namespace rc {

// nocase folds ASCII letters only, as Redis's tolower does in the "C" locale.
bool GlobMatch(std::string_view pattern, std::string_view str, bool nocase = false);

}  // namespace rc
