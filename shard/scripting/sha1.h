#pragma once
// SHA-1 as scripts are named by it (EVALSHA, SCRIPT LOAD, redis.sha1hex): the 40 lower-case
// hex digits of a byte string. No thread state.

#include <string>
#include <string_view>

namespace rc {

std::string Sha1Hex(std::string_view data);
// The same written into `out`, without allocating; returns a view of it.
std::string_view Sha1Hex(std::string_view data, char (&out)[40]);
// A 40-character SHA-1 as given (EVALSHA accepts upper case) lowered into `out`.
std::string_view LowerSha(std::string_view sha, char (&out)[40]);

}  // namespace rc
