#pragma once
// Redis's sdssplitargs: splits a line into arguments the way redis-cli, inline commands
// and redis.conf do ("double quotes" with \n \r \t \b \a \\ \" \xHH escapes, 'single
// quotes' with \' only, and a closing quote must end the argument).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rc {

// Appends the arguments to *args as views into *storage (decoded bytes); false on
// unbalanced quotes. Decoded bytes never outnumber the input, so *storage is reserved once
// and the views stay valid until it is next changed.
bool SplitArgsInto(std::string_view line, std::string* storage,
                   std::vector<std::string_view>* args);

// The same, as owned strings; nullopt on unbalanced quotes.
std::optional<std::vector<std::string>> SplitArgs(std::string_view line);

}  // namespace rc
