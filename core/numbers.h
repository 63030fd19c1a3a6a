#pragma once
// Number parsing and formatting with Redis 7.0's exact rules, so that clients see the same
// accepted inputs, the same errors and the same reply bytes as from redis-server.
//
// Parsers take the whole argument and fail unless every byte is consumed: Redis arguments
// are binary-safe, so "1\0x" must not parse as 1. The floating-point parsers go through
// strtod/strtold and so assume the process keeps the default "C" LC_NUMERIC locale (Redis
// makes the same assumption).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rc {

// Longest output of FormatInt64: "-9223372036854775808".
inline constexpr size_t kMaxInt64Chars = 20;
// Longest output of the buffer form of FormatDouble: "-2.2250738585072014e-308".
inline constexpr size_t kMaxDoubleChars = 24;
// ParseLongDouble rejects inputs this long or longer (Redis MAX_LONG_DOUBLE_CHARS), which
// bounds the work one INCRBYFLOAT argument can cause.
inline constexpr size_t kMaxLongDoubleInputChars = 5 * 1024;

// Redis string2ll: optional '-', then "0" or a digit 1-9 followed by digits, in range.
// Rejects '+', spaces, leading zeros, "-0", and anything longer than 20 bytes. This is the
// parser behind INCRBY, EXPIRE, LRANGE indexes, and every other integer argument.
bool ParseInt64(std::string_view s, int64_t* out);

// The same grammar without the sign, over [0, 2^64-1]. Stricter than Redis's string2ull
// above INT64_MAX (that falls back to strtoull, which takes '+' and spaces), so every value
// has exactly one accepted spelling.
bool ParseUint64(std::string_view s, uint64_t* out);

// A SCAN/ZSCAN cursor as Redis parses it: strtoull over the whole argument, so any
// unsigned 64-bit value is accepted, and so is an empty string (cursor 0); leading
// whitespace is not.
bool ParseScanCursor(std::string_view s, uint64_t* out);

// Redis string2d, used for ZADD scores, ZRANGEBYSCORE bounds and other float arguments.
// Accepts whatever strtod does over the whole input (decimal, exponent, hex floats, '+',
// case-insensitive "inf"/"infinity") but rejects the empty string, leading whitespace,
// NaN, overflow to +-inf ("1e400"), and underflow to zero ("1e-400"); denormals pass.
bool ParseDouble(std::string_view s, double* out);

// Redis string2ld, used by INCRBYFLOAT and HINCRBYFLOAT: the ParseDouble rules in long
// double precision, and inputs of kMaxLongDoubleInputChars or more are rejected. "inf" is
// accepted here; INCRBYFLOAT itself refuses a NaN or infinite result.
bool ParseLongDouble(std::string_view s, long double* out);

// Redis ll2string. Writes the decimal digits of v (no terminating NUL) into buf, which must
// hold kMaxInt64Chars bytes, and returns one past the last byte written.
char* FormatInt64(int64_t v, char* buf);

// Redis 7.0 addReplyDouble (ZSCORE, ZINCRBY, WITHSCORES): "%.17g", so 1.1 prints as
// "1.1000000000000001", plus "inf", "-inf" and "nan". Negative zero prints as "-0".
std::string FormatDouble(double v);
// As above into buf, which must hold kMaxDoubleChars bytes; returns one past the end.
char* FormatDouble(double v, char* buf);

// Redis ld2string(LD_STR_HUMAN), the INCRBYFLOAT reply and stored value: "%.17Lf" with
// trailing zeros and a trailing '.' removed and "-0" turned into "0". Never uses an
// exponent, so 1e20 prints as "100000000000000000000"; infinities print as "inf"/"-inf".
std::string FormatLongDouble(long double v);

// Redis's "%f" with trailing zeros (and a bare '.') trimmed: 50 -> "50", 99.9 -> "99.9"
// (latency-tracking-info-percentiles, INFO latencystats).
std::string FormatTrimmedDouble(double d);

// Redis's memory units (memtoull): 1k = 1000, 1kb = 1024, and so on, case-insensitive; a
// bare number is bytes. Rejects negatives and overflow.
bool ParseMemory(std::string_view s, int64_t* out);

}  // namespace rc
