#pragma once
// The config file, in redis.conf syntax: read at start-up, rewritten by CONFIG REWRITE.

#include <string>
#include <string_view>

#include "shard/state/config.h"

namespace rc {

// Applies redis.conf-syntax text (one directive per line, # comments, quoted values).
// Directives ringcache does not know are skipped, so any redis.conf loads.
bool ApplyConfigText(std::string_view text, Config* config, std::string* error);
// CONFIG REWRITE: rewrites config.config_file with the current values. False with the
// OS's reason on failure.
bool RewriteConfigFile(const Config& config, std::string* error);

}  // namespace rc
