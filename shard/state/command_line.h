#pragma once
// `ringcache [file.conf] [--name value ...]`, as redis-server takes them.

#include <string>

#include "shard/state/config.h"

namespace rc {

// Parses the command line into *config: the file first, then flags override it. On
// failure returns false with a message in *error. `--help` sets *help.
bool ParseCommandLine(int argc, char** argv, Config* config, bool* help, std::string* error);
std::string UsageText();

}  // namespace rc
