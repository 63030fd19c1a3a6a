#pragma once
// Redis's sdssplitargs: splits a line into arguments the way redis-cli, inline commands
// and redis.conf do ("double quotes" with \n \r \t \b \a \\ \" \xHH escapes, 'single
// quotes' with \' only, and a closing quote must end the argument).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rc {

// nullopt on unbalanced quotes.
std::optional<std::vector<std::string>> SplitArgs(std::string_view line);

}  // namespace rc
