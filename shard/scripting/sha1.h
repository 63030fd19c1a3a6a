#pragma once
// SHA-1 as scripts are named by it (EVALSHA, SCRIPT LOAD, redis.sha1hex): the 40 lower-case
// hex digits of a byte string. No thread state.

#include <string>
#include <string_view>

namespace rc {

std::string Sha1Hex(std::string_view data);

}  // namespace rc
