#pragma once
// Server settings: defaults, a redis.conf-syntax file, then command-line flags on top.
// Names and units follow Redis so an existing redis.conf line means the same here.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rc {

struct Config {
  int port = 6379;
  std::string bind = "127.0.0.1";
  int threads = 0;  // 0: one per core
  int maxclients = 10000;
  int64_t proto_max_bulk_len = 512LL * 1024 * 1024;
  int tcp_backlog = 511;
  int timeout = 0;
  int hz = 10;
  std::string loglevel = "notice";
  std::string config_file;

  int EffectiveThreads() const;
};

// One row per setting: how CONFIG GET prints it and how a file line or flag sets it.
struct ConfigParam {
  std::string_view name;
  std::function<std::string(const Config&)> get;
  // Returns an empty string on success, else the reason the value is bad.
  std::function<std::string(Config&, std::string_view)> set;
  // Redis settings ringcache accepts so existing files load, but has no use for.
  bool ignored = false;
};
const std::vector<ConfigParam>& ConfigParams();

// Parses `ringcache [file.conf] [--name value ...]`. On failure returns false with a
// message in *error. `--help` sets *help.
bool ParseCommandLine(int argc, char** argv, Config* config, bool* help, std::string* error);
// Applies redis.conf-syntax text (one directive per line, # comments, quoted values).
bool ApplyConfigText(std::string_view text, Config* config, std::string* error);
std::string UsageText();

// Redis's memory units: 1k = 1000, 1kb = 1024, and so on.
bool ParseMemory(std::string_view s, int64_t* out);

}  // namespace rc
