#include "shard/state/command_line.h"

// `ringcache [file.conf] [--name value ...]`, as redis-server takes them: the file first,
// then flags override it.

#include <fstream>
#include <sstream>

#include "core/strings.h"
#include "shard/state/config_file.h"
#include "shard/state/config_params.h"

namespace rc {

std::string UsageText() {
  return "Usage: ringcache [/path/to/ringcache.conf] [--option value ...]\n"
         "\n"
         "Options (any config file directive works as --directive value):\n"
         "  --port N                 TCP port to listen on (default 6379; 0 picks a free one)\n"
         "  --bind 'ADDR ...'        addresses to listen on, as redis.conf lists them (default\n"
         "                           127.0.0.1; a '-' before one: skipped if missing here)\n"
         "  --threads N              worker threads, one shard each (default: CPU cores)\n"
         "  --io-engine E            io_uring (default; epoll if it cannot be set up) | epoll\n"
         "  --maxclients N           most simultaneous clients (default 10000)\n"
         "  --proto-max-bulk-len N   largest bulk string accepted (default 512mb)\n"
         "  --timeout N              close idle clients after N seconds (0 = never)\n"
         "  --metrics-port N         serve Prometheus metrics on http://BIND:N/metrics (0 = off)\n"
         "  --requirepass PASSWORD   clients must AUTH first (default: no password)\n"
         "  --protected-mode yes|no  with no password, refuse non-loopback peers (yes)\n"
         "  --client-query-buffer-limit N   close clients with more unparsed input (1gb)\n"
         "  --client-output-buffer-limit \"CLASS HARD SOFT SECONDS ...\"\n"
         "                           close clients with too much pending output\n"
         "                           (normal 0 0 0 slave 256mb 64mb 60 pubsub 32mb 8mb 60)\n"
         "  --loglevel LEVEL         debug | verbose | notice | warning | nothing\n"
         "  --help                   print this text\n"
         "  --version                print the version\n";
}

bool ParseCommandLine(int argc, char** argv, Config* config, bool* help, std::string* error) {
  *help = false;
  int i = 1;
  if (i < argc && argv[i][0] != '-') {
    config->config_file = argv[i];
    std::ifstream in(config->config_file);
    if (!in) {
      *error = StrCat("cannot open config file '", config->config_file, "'");
      return false;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    if (!ApplyConfigText(ss.str(), config, error)) {
      *error = StrCat(config->config_file, ": ", *error);
      return false;
    }
    ++i;
  }
  for (; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      *help = true;
      return true;
    }
    if (arg.substr(0, 2) != "--" || arg.size() == 2) {
      *error = StrCat("unexpected argument '", arg, "'");
      return false;
    }
    std::string name(arg.substr(2));
    const ConfigParam* param = FindConfigParam(name);
    if (param == nullptr) {
      *error = StrCat("option '", arg, "': ", UnknownSettingError(name), " (see --help)");
      return false;
    }
    if (i + 1 >= argc) {
      *error = StrCat("option '", arg, "' needs a value");
      return false;
    }
    std::string why = param->set(*config, argv[++i]);
    if (!why.empty()) {
      *error = StrCat("option '", arg, "': ", why);
      return false;
    }
  }
  return true;
}

}  // namespace rc
