#include "shard/state/config_params.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <utility>

#include "core/numbers.h"
#include "core/split_args.h"
#include "core/strings.h"
#include "core/zset_compact.h"
#include "shard/state/default_only_settings.h"
#include "shard/state/notify_flags.h"

namespace rc {

namespace {

using Setter = std::function<std::string(Config&, std::string_view)>;

std::string RangeError(int64_t lo, int64_t hi) {
  return StrCat("argument must be between ", lo, " and ", hi, " inclusive");
}

template <typename Field>
Setter IntSetter(Field Config::*field, int64_t lo, int64_t hi) {
  return [field, lo, hi](Config& c, std::string_view v) -> std::string {
    int64_t x;
    if (!ParseInt64(v, &x)) return "argument couldn't be parsed into an integer";
    if (x < lo || x > hi) return RangeError(lo, hi);
    c.*field = x;
    return "";
  };
}

// An integer setting whose only value is `fixed`, what ringcache does: others in [lo, hi]
// are refused with `why`, out-of-range ones with Redis's error.
ConfigParam OnlyDefault(std::string_view name, int64_t lo, int64_t hi, int64_t fixed,
                        std::string_view why) {
  return ConfigParam{name, [fixed](const Config&) { return std::to_string(fixed); },
                     [lo, hi, fixed, why](Config&, std::string_view v) -> std::string {
                       int64_t x;
                       if (!ParseInt64(v, &x)) return "argument couldn't be parsed into an integer";
                       if (x < lo || x > hi) return RangeError(lo, hi);
                       if (x != fixed) return StrCat(why, ": only ", fixed, " is supported");
                       return "";
                     }};
}

template <typename Field>
std::function<std::string(const Config&)> IntGetter(Field Config::*field) {
  return [field](const Config& c) { return std::to_string(int64_t(c.*field)); };
}

std::string YesNo(bool b) { return b ? "yes" : "no"; }

std::string SetYesNo(std::string_view v, bool* out) {
  const std::string l = ToLower(v);
  if (l != "yes" && l != "no") return "argument must be 'yes' or 'no'";
  *out = l == "yes";
  return "";
}

// Settings fixed at start (CONFIG SET refuses them), of the plain kinds.
ConfigParam StartupBool(std::string_view name, bool Config::*field) {
  return {name, [field](const Config& c) { return YesNo(c.*field); },
          [field](Config& c, std::string_view v) { return SetYesNo(v, &(c.*field)); }, false};
}
ConfigParam StartupString(std::string_view name, std::string Config::*field) {
  return {name, [field](const Config& c) { return c.*field; },
          [field](Config& c, std::string_view v) {
            c.*field = std::string(v);
            return std::string();
          },
          false};
}

// Redis 7's no | yes | local settings (ClientState::AdmittedBy reads them).
ConfigParam StartupNoYesLocal(std::string_view name, std::string Config::*field) {
  return {name, [field](const Config& c) { return c.*field; },
          [field](Config& c, std::string_view v) {
            std::string l = ToLower(v);
            if (l != "yes" && l != "no" && l != "local") {
              return std::string("argument(s) must be one of the following: no, yes, local");
            }
            c.*field = l;
            return std::string();
          },
          false};
}

Setter BoolSetter(Tunable<bool> Config::*field) {
  return [field](Config& c, std::string_view v) -> std::string {
    std::string l = ToLower(v);
    if (l != "yes" && l != "no") return "argument must be 'yes' or 'no'";
    (c.*field) = l == "yes";
    return "";
  };
}

// Redis's order and class names: "normal H S N slave H S N pubsub H S N".
constexpr std::string_view kClassNames[Config::kClientClasses] = {"normal", "slave", "pubsub"};

std::string FormatOutputLimits(const Config& c) {
  std::string out;
  for (int i = 0; i < Config::kClientClasses; ++i) {
    const Config::OutputLimit& l = c.output_limits[i];
    StrAppend(&out, i ? " " : "", kClassNames[i], " ", l.hard.get(), " ", l.soft.get(), " ",
              l.soft_seconds.get());
  }
  return out;
}

// "<class> <hard> <soft> <soft seconds>" repeated; sizes take memory units. Every group is
// checked before any is applied. Texts are Redis's.
std::string SetOutputLimits(Config& c, std::string_view v) {
  auto words = SplitArgs(v);
  if (!words || words->size() % 4 != 0) {
    return "Wrong number of arguments in buffer limit configuration.";
  }
  struct Parsed {
    int cls;
    int64_t hard, soft, seconds;
  };
  std::vector<Parsed> parsed;
  for (size_t i = 0; i < words->size(); i += 4) {
    std::string name = ToLower((*words)[i]);
    int cls = name == "normal"                       ? Config::kNormal
              : name == "slave" || name == "replica" ? Config::kReplica
              : name == "pubsub"                     ? Config::kPubSub
                                                     : -1;
    if (cls < 0) return "Invalid client class specified in buffer limit configuration.";
    Parsed p{cls, 0, 0, 0};
    if (!ParseMemory((*words)[i + 1], &p.hard) || !ParseMemory((*words)[i + 2], &p.soft) ||
        !ParseInt64((*words)[i + 3], &p.seconds) || p.seconds < 0) {
      return "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
    }
    parsed.push_back(p);
  }
  for (const Parsed& p : parsed) {
    c.output_limits[p.cls].hard = p.hard;
    c.output_limits[p.cls].soft = p.soft;
    c.output_limits[p.cls].soft_seconds = p.seconds;
  }
  return "";
}

// The byte count a memory value (`64`, `1kb`) stands for, as CONFIG GET shows it; sets
// `error` to Redis's reason when it would refuse it.
std::string NormalizeMemory(std::string_view v, std::string* error) {
  int64_t x = 0;
  if (!ParseMemory(v, &x) || x < 0) *error = "argument must be a memory value";
  return std::to_string(x);
}

// "<seconds> <changes>" pairs, or "" for none, as Redis checks them.
std::string SetSavePoints(Config& c, std::string_view v) {
  auto words = SplitArgs(v);
  if (!words || words->size() % 2 != 0) return "Invalid save parameters";
  std::vector<Config::SavePoint> points;
  for (size_t i = 0; i < words->size(); i += 2) {
    Config::SavePoint point;
    if (!ParseInt64((*words)[i], &point.seconds) || point.seconds < 0 ||
        !ParseInt64((*words)[i + 1], &point.changes) || point.changes < 0) {
      return "Invalid save parameters";
    }
    points.push_back(point);
  }
  c.save_points = std::move(points);
  return "";
}

std::string FormatSavePoints(const Config& c) {
  std::string out;
  for (const Config::SavePoint& p : c.save_points) {
    StrAppend(&out, out.empty() ? "" : " ", p.seconds, " ", p.changes);
  }
  return out;
}

std::string CurrentDir() {
  char buf[PATH_MAX];
  return ::getcwd(buf, sizeof(buf)) != nullptr ? std::string(buf) : std::string(".");
}

// As Redis's chdir: the directory must exist; CONFIG GET shows it absolute.
std::string SetDir(Config& c, std::string_view v) {
  char resolved[PATH_MAX];
  const std::string path(v);
  struct stat st;
  if (::realpath(path.c_str(), resolved) == nullptr) return std::strerror(errno);
  if (::stat(resolved, &st) != 0 || !S_ISDIR(st.st_mode)) return std::strerror(ENOTDIR);
  c.dir = resolved;
  return "";
}

// Redis's CONFIG_BINDADDR_MAX.
constexpr size_t kMaxBindAddresses = 16;

std::vector<ConfigParam> MakeParams() {
  std::vector<ConfigParam> p;
  p.push_back({"port", IntGetter(&Config::port), IntSetter(&Config::port, 0, 65535), false});
  p.push_back({"bind", [](const Config& c) { return c.bind; },
               [](Config& c, std::string_view v) {
                 auto parts = SplitArgs(v);
                 if (!parts || parts->empty()) return std::string("bind needs an address");
                 if (parts->size() > kMaxBindAddresses) {
                   return std::string("Too many bind addresses specified.");
                 }
                 std::string joined;
                 for (const std::string& a : *parts) {
                   if (a == "-") return std::string("Invalid bind address");
                   StrAppend(&joined, joined.empty() ? "" : " ", a);
                 }
                 c.bind = std::move(joined);
                 return std::string();
               },
               false});
  p.push_back(
      {"threads", IntGetter(&Config::threads), IntSetter(&Config::threads, 0, 1024), false});
  p.push_back({"metrics-port", IntGetter(&Config::metrics_port),
               IntSetter(&Config::metrics_port, 0, 65535), false});
  p.push_back({"io-engine", [](const Config& c) { return c.io_engine; },
               [](Config& c, std::string_view v) {
                 std::string e = ToLower(v);
                 if (e != "io_uring" && e != "epoll") {
                   return std::string("argument must be 'io_uring' or 'epoll'");
                 }
                 c.io_engine = e;
                 return std::string();
               },
               false});
  p.push_back({"lazyfree-threads", IntGetter(&Config::lazyfree_threads),
               IntSetter(&Config::lazyfree_threads, 1, 64), false});
  p.push_back({"lazyfree-threshold", IntGetter(&Config::lazyfree_threshold),
               IntSetter(&Config::lazyfree_threshold, 0, INT32_MAX)});
  using LazyRow = std::pair<std::string_view, Tunable<bool> Config::*>;
  for (const LazyRow& row : std::initializer_list<LazyRow>{
           {"lazyfree-lazy-eviction", &Config::lazyfree_lazy_eviction},
           {"lazyfree-lazy-expire", &Config::lazyfree_lazy_expire},
           {"lazyfree-lazy-server-del", &Config::lazyfree_lazy_server_del},
           {"lazyfree-lazy-user-del", &Config::lazyfree_lazy_user_del},
           {"lazyfree-lazy-user-flush", &Config::lazyfree_lazy_user_flush}}) {
    auto field = row.second;
    p.push_back({row.first, [field](const Config& c) { return YesNo(c.*field); },
                 BoolSetter(field)});
  }
  p.push_back({"tcp-backlog", IntGetter(&Config::tcp_backlog),
               IntSetter(&Config::tcp_backlog, 0, 65535), false});
  p.push_back({"maxclients", IntGetter(&Config::maxclients),
               IntSetter(&Config::maxclients, 1, 4294967295LL)});
  p.push_back({"proto-max-bulk-len",
               [](const Config& c) { return std::to_string(c.proto_max_bulk_len.get()); },
               [](Config& c, std::string_view v) {
                 int64_t x;
                 if (!ParseMemory(v, &x)) return std::string("argument must be a memory value");
                 if (x < 1024 * 1024) return RangeError(1024 * 1024, INT64_MAX);
                 c.proto_max_bulk_len = x;
                 return std::string();
               }});
  p.push_back({"timeout", IntGetter(&Config::timeout), IntSetter(&Config::timeout, 0, INT32_MAX)});
  p.push_back({"hz", IntGetter(&Config::hz), [](Config& c, std::string_view v) {
                 int64_t x;
                 if (!ParseInt64(v, &x))
                   return std::string("argument couldn't be parsed into an integer");
                 if (x < 0 || x > INT32_MAX) return RangeError(0, INT32_MAX);
                 // Redis clamps to 1..500.
                 c.hz = std::clamp<int64_t>(x, 1, 500);
                 return std::string();
               }});
  p.push_back({"dynamic-hz", [](const Config& c) { return YesNo(c.dynamic_hz); },
               BoolSetter(&Config::dynamic_hz)});
  p.push_back({"active-expire-keys-per-turn", IntGetter(&Config::active_expire_keys_per_turn),
               IntSetter(&Config::active_expire_keys_per_turn, 1, INT32_MAX)});
  p.push_back({"active-expire-us-per-turn", IntGetter(&Config::active_expire_us_per_turn),
               IntSetter(&Config::active_expire_us_per_turn, 1, 1000000)});
  p.push_back({"notify-keyspace-events",
               [](const Config& c) { return FormatNotifyFlags(c.notify_keyspace_events); },
               [](Config& c, std::string_view v) {
                 int64_t flags = ParseNotifyFlags(v);
                 if (flags < 0) {
                   return std::string("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
                 }
                 c.notify_keyspace_events = flags;
                 return std::string();
               }});
  p.push_back({"slowlog-log-slower-than", IntGetter(&Config::slowlog_log_slower_than),
               IntSetter(&Config::slowlog_log_slower_than, -1, INT64_MAX)});
  p.push_back({"slowlog-max-len", IntGetter(&Config::slowlog_max_len),
               IntSetter(&Config::slowlog_max_len, 0, INT64_MAX)});
  p.push_back({"busy-reply-threshold", IntGetter(&Config::busy_reply_threshold),
               IntSetter(&Config::busy_reply_threshold, 0, INT64_MAX), true, "lua-time-limit"});
  p.push_back({"latency-monitor-threshold", IntGetter(&Config::latency_monitor_threshold),
               IntSetter(&Config::latency_monitor_threshold, 0, INT64_MAX)});
  p.push_back({"latency-tracking",
               [](const Config& c) { return std::string(c.latency_tracking ? "yes" : "no"); },
               [](Config& c, std::string_view v) {
                 std::string l = ToLower(v);
                 if (l != "yes" && l != "no") return std::string("argument must be 'yes' or 'no'");
                 c.latency_tracking = l == "yes";
                 return std::string();
               }});
  p.push_back({"latency-tracking-info-percentiles",
               [](const Config& c) {
                 std::string out;
                 for (double d : c.latency_tracking_info_percentiles) {
                   StrAppend(&out, out.empty() ? "" : " ", FormatTrimmedDouble(d));
                 }
                 return out;
               },
               [](Config& c, std::string_view v) {
                 auto parts = SplitArgs(v);
                 if (!parts)
                   return std::string("Invalid latency-tracking-info-percentiles parameters");
                 std::vector<double> values;
                 for (const std::string& part : *parts) {
                   double d;
                   if (!ParseDouble(part, &d)) {
                     return std::string("Invalid latency-tracking-info-percentiles parameters");
                   }
                   if (d < 0 || d > 100) {
                     return std::string(
                         "latency-tracking-info-percentiles parameters should "
                         "sit between [0.0,100.0]");
                   }
                   values.push_back(d);
                 }
                 c.latency_tracking_info_percentiles = std::move(values);
                 return std::string();
               }});
  p.push_back({"loglevel", [](const Config& c) { return c.loglevel; },
               [](Config& c, std::string_view v) {
                 std::string l = ToLower(v);
                 if (l != "debug" && l != "verbose" && l != "notice" && l != "warning" &&
                     l != "nothing") {
                   return std::string(
                       "argument(s) must be one of the following: debug, "
                       "verbose, notice, warning, nothing");
                 }
                 c.loglevel = l;
                 return std::string();
               }});
  p.push_back({"requirepass", [](const Config& c) { return c.requirepass; },
               [](Config& c, std::string_view v) {
                 c.requirepass = std::string(v);
                 c.auth_required = !v.empty();
                 return std::string();
               }});
  p.push_back({"protected-mode", [](const Config& c) { return YesNo(c.protected_mode); },
               BoolSetter(&Config::protected_mode)});
  p.push_back(StartupNoYesLocal("enable-protected-configs", &Config::enable_protected_configs));
  p.push_back(StartupNoYesLocal("enable-debug-command", &Config::enable_debug_command));
  p.push_back({"client-query-buffer-limit",
               [](const Config& c) { return std::to_string(c.client_query_buffer_limit.get()); },
               [](Config& c, std::string_view v) {
                 int64_t x;
                 if (!ParseMemory(v, &x)) return std::string("argument must be a memory value");
                 if (x < 1024 * 1024) return RangeError(1024 * 1024, INT64_MAX);
                 c.client_query_buffer_limit = x;
                 return std::string();
               }});
  p.push_back({"client-output-buffer-limit", FormatOutputLimits, SetOutputLimits});
  p.push_back({"maxmemory", IntGetter(&Config::maxmemory), [](Config& c, std::string_view v) {
                 int64_t x;
                 if (!ParseMemory(v, &x)) return std::string("argument must be a memory value");
                 c.maxmemory = x;
                 return std::string();
               }});
  p.push_back({"maxmemory-policy",
               [](const Config& c) { return std::string(PolicyName(c.maxmemory_policy)); },
               [](Config& c, std::string_view v) {
                 EvictionPolicy policy;
                 if (!ParsePolicy(v, &policy)) return std::string(PolicyChoices());
                 c.maxmemory_policy = policy;
                 return std::string();
               }});
  p.push_back({"maxmemory-samples", IntGetter(&Config::maxmemory_samples),
               IntSetter(&Config::maxmemory_samples, 1, INT32_MAX)});
  p.push_back({"maxmemory-eviction-tenacity", IntGetter(&Config::maxmemory_eviction_tenacity),
               IntSetter(&Config::maxmemory_eviction_tenacity, 0, 100)});
  // The LFU policy keeps a 2-bit hit counter that the eviction clock ages, not Redis's
  // logarithmic counter decayed by minutes: nothing for these to tune (docs/EVICTION.md).
  p.push_back(OnlyDefault("lfu-log-factor", 0, INT32_MAX, 10,
                          "ringcache's LFU counter is not logarithmic"));
  p.push_back(OnlyDefault("lfu-decay-time", 0, INT32_MAX, 1,
                          "ringcache's LFU counter is aged by its eviction clock, not by time"));
  // Snapshots (docs/PERSISTENCE.md).
  p.push_back({"save", FormatSavePoints, SetSavePoints});
  ConfigParam dir{"dir", [](const Config& c) { return c.dir.empty() ? CurrentDir() : c.dir; },
                  SetDir};
  dir.is_protected = true;
  p.push_back(dir);
  ConfigParam dbfilename{"dbfilename", [](const Config& c) { return c.dbfilename; },
                         [](Config& c, std::string_view v) {
                           if (v.find('/') != std::string_view::npos) {
                             return std::string("dbfilename can't be a path, just a filename");
                           }
                           c.dbfilename = std::string(v);
                           return std::string();
                         }};
  dbfilename.is_protected = true;
  p.push_back(dbfilename);
  p.push_back({"rdbcompression", [](const Config& c) { return YesNo(c.rdbcompression); },
               BoolSetter(&Config::rdbcompression)});
  p.push_back({"rdbchecksum", [](const Config& c) { return YesNo(c.rdbchecksum); },
               BoolSetter(&Config::rdbchecksum)});
  p.push_back({"stop-writes-on-bgsave-error",
               [](const Config& c) { return YesNo(c.stop_writes_on_bgsave_error); },
               BoolSetter(&Config::stop_writes_on_bgsave_error)});
  p.push_back({"rdb-key-save-delay", IntGetter(&Config::rdb_key_save_delay),
               IntSetter(&Config::rdb_key_save_delay, 0, INT32_MAX)});
  p.push_back({"appendonly", [](const Config& c) { return YesNo(c.appendonly); },
               BoolSetter(&Config::appendonly)});
  p.push_back({"appendfsync",
               [](const Config& c) {
                 switch (c.appendfsync.get()) {
                   case Config::kFsyncNo: return std::string("no");
                   case Config::kFsyncAlways: return std::string("always");
                   default: return std::string("everysec");
                 }
               },
               [](Config& c, std::string_view v) {
                 const std::string l = ToLower(v);
                 if (l == "no") c.appendfsync = Config::kFsyncNo;
                 else if (l == "everysec") c.appendfsync = Config::kFsyncEverysec;
                 else if (l == "always") c.appendfsync = Config::kFsyncAlways;
                 else return std::string("argument(s) must be one of the following: always, everysec, no");
                 return std::string();
               }});
  // Redis: "appendfilename can't be a path, just a filename", fixed at start.
  p.push_back({"appendfilename", [](const Config& c) { return c.appendfilename; },
               [](Config& c, std::string_view v) {
                 if (v.empty() || v.find('/') != std::string_view::npos) {
                   return std::string("appendfilename can't be a path, just a filename");
                 }
                 // Redis writes such a name into the manifest unquoted and cannot read it
                 // back at its next start.
                 if (v.find_first_of(" \t\r\n'\"\\") != std::string_view::npos) {
                   return std::string("appendfilename can't hold quotes, backslashes or spaces");
                 }
                 c.appendfilename = std::string(v);
                 return std::string();
               },
               false});
  p.push_back({"appenddirname", [](const Config& c) { return c.appenddirname; },
               [](Config& c, std::string_view v) {
                 if (v.empty() || v.find('/') != std::string_view::npos) {
                   return std::string("appenddirname can't be a path, just a dirname");
                 }
                 c.appenddirname = std::string(v);
                 return std::string();
               },
               false});
  p.push_back({"aof-load-truncated", [](const Config& c) { return YesNo(c.aof_load_truncated); },
               BoolSetter(&Config::aof_load_truncated)});
  // The base is always an RDB snapshot (a rewrite is one): "no" is refused.
  p.push_back({"aof-use-rdb-preamble", [](const Config&) { return std::string("yes"); },
               [](Config&, std::string_view v) {
                 const std::string l = ToLower(v);
                 if (l == "yes") return std::string();
                 if (l != "no") return std::string("argument must be 'yes' or 'no'");
                 return std::string("ringcache writes the log's base as an RDB snapshot only");
               }});
  p.push_back({"auto-aof-rewrite-percentage", IntGetter(&Config::auto_aof_rewrite_percentage),
               IntSetter(&Config::auto_aof_rewrite_percentage, 0, INT32_MAX)});
  p.push_back({"auto-aof-rewrite-min-size", IntGetter(&Config::auto_aof_rewrite_min_size),
               [](Config& c, std::string_view v) {
                 int64_t x;
                 if (!ParseMemory(v, &x) || x < 0) return std::string("argument must be a memory value");
                 c.auto_aof_rewrite_min_size = x;
                 return std::string();
               }});
  p.push_back({"no-appendfsync-on-rewrite",
               [](const Config& c) { return YesNo(c.no_appendfsync_on_rewrite); },
               BoolSetter(&Config::no_appendfsync_on_rewrite)});
  // Timestamp annotations in the log are not written: only "no" is taken.
  p.push_back({"aof-timestamp-enabled", [](const Config&) { return std::string("no"); },
               [](Config&, std::string_view v) {
                 const std::string l = ToLower(v);
                 if (l == "no") return std::string();
                 if (l != "yes") return std::string("argument must be 'yes' or 'no'");
                 return std::string("ringcache does not write timestamp annotations to the log");
               }});
  // What clients and tools ask about; ringcache has one database.
  ConfigParam databases =
      OnlyDefault("databases", 1, INT32_MAX, 1, "ringcache has one database");
  databases.runtime = false;
  p.push_back(databases);
  p.push_back(StartupBool("daemonize", &Config::daemonize));
  p.push_back(StartupString("pidfile", &Config::pidfile));
  p.push_back(StartupString("logfile", &Config::logfile));
  p.push_back({"supervised", [](const Config& c) { return c.supervised; },
               [](Config& c, std::string_view v) {
                 const std::string l = ToLower(v);
                 if (l != "no" && l != "upstart" && l != "systemd" && l != "auto") {
                   return std::string(
                       "argument(s) must be one of the following: upstart, systemd, auto, no");
                 }
                 c.supervised = l;
                 return std::string();
               },
               false});
  p.push_back(StartupBool("disable-thp", &Config::disable_thp));
  p.push_back({"tcp-keepalive", IntGetter(&Config::tcp_keepalive),
               IntSetter(&Config::tcp_keepalive, 0, INT32_MAX)});
  p.push_back({"activerehashing", [](const Config& c) { return YesNo(c.activerehashing); },
               BoolSetter(&Config::activerehashing)});
  // Redis's I/O threads: ringcache's worker threads (--threads) do every client's I/O.
  ConfigParam io_threads = OnlyDefault(
      "io-threads", 1, 128, 1, "ringcache's worker threads do all I/O (set threads instead)");
  io_threads.runtime = false;
  p.push_back(io_threads);
  for (const DefaultOnlySetting& d : DefaultOnlySettings()) {
    p.push_back({d.name, [&d](const Config&) { return std::string(d.value); },
                 [&d](Config&, std::string_view v) {
                   if (MeansDefault(d, v)) return std::string();
                   return StrCat(d.why, ": only Redis's default '", d.value, "' is accepted");
                 },
                 d.runtime});
  }
  p.push_back(StartupBool("cluster-enabled", &Config::cluster_enabled));
  p.push_back(StartupString("cluster-config-file", &Config::cluster_config_file));
  p.push_back(StartupString("cluster-announce-ip", &Config::cluster_announce_ip));
  p.push_back({"cluster-port-base", IntGetter(&Config::cluster_port_base),
               IntSetter(&Config::cluster_port_base, 0, 65535), false});
  // "host port" from the file or the command line; REPLICAOF changes it afterwards, as
  // CONFIG SET may not (Redis's "immutable").
  p.push_back({"replicaof", [](const Config& c) { return c.replicaof; },
               [](Config& c, std::string_view v) {
                 std::vector<std::string> parts = SplitArgs(v).value_or(std::vector<std::string>{});
                 int64_t port = 0;
                 if (parts.size() != 2 || !ParseInt64(parts[1], &port) || port <= 0 ||
                     port > 65535) {
                   return std::string("Invalid master port");
                 }
                 c.replicaof = StrCat(parts[0], " ", parts[1]);
                 return std::string();
               },
               false, "slaveof"});
  p.push_back({"masterauth", [](const Config& c) { return c.masterauth; },
               [](Config& c, std::string_view v) {
                 c.masterauth = std::string(v);
                 return std::string();
               },
               true, {}, false});
  p.push_back({"masteruser", [](const Config& c) { return c.masteruser; },
               [](Config& c, std::string_view v) {
                 c.masteruser = std::string(v);
                 return std::string();
               }});
  p.push_back({"replica-read-only", [](const Config& c) { return YesNo(c.replica_read_only); },
               BoolSetter(&Config::replica_read_only), true, "slave-read-only"});
  constexpr int64_t kSizeMax = INT64_MAX;
  // Encoding thresholds of hashes, sets and sorted sets (core/hash.h, core/set.h,
  // core/zset.h), read by every write.
  p.push_back({"hash-max-listpack-entries", IntGetter(&Config::hash_max_listpack_entries),
               IntSetter(&Config::hash_max_listpack_entries, 0, kSizeMax), true,
               "hash-max-ziplist-entries"});
  p.push_back({"hash-max-listpack-value", IntGetter(&Config::hash_max_listpack_value),
               [](Config& c, std::string_view v) {
                 std::string error;
                 const std::string bytes = NormalizeMemory(v, &error);
                 if (error.empty()) c.hash_max_listpack_value = std::stoll(bytes);
                 return error;
               },
               true, "hash-max-ziplist-value"});
  p.push_back({"set-max-intset-entries", IntGetter(&Config::set_max_intset_entries),
               IntSetter(&Config::set_max_intset_entries, 0, kSizeMax)});
  p.push_back({"list-max-listpack-size", IntGetter(&Config::list_max_listpack_size),
               IntSetter(&Config::list_max_listpack_size, INT32_MIN, INT32_MAX), true,
               "list-max-ziplist-size"});
  // Lists are never compressed (docs/LISTS.md).
  p.push_back(OnlyDefault("list-compress-depth", 0, INT32_MAX, 0,
                          "ringcache does not compress lists"));
  p.push_back({"zset-max-listpack-entries", IntGetter(&Config::zset_max_listpack_entries),
               IntSetter(&Config::zset_max_listpack_entries, 0, kSizeMax), true,
               "zset-max-ziplist-entries"});
  p.push_back({"zset-max-listpack-value", IntGetter(&Config::zset_max_listpack_value),
               [](Config& c, std::string_view v) {
                 std::string error;
                 const std::string bytes = NormalizeMemory(v, &error);
                 if (!error.empty()) return error;
                 if (std::stoll(bytes) > int64_t(zset_internal::kCompactMaxMember)) {
                   return StrCat("ringcache's compact sorted sets hold members of at most ",
                                 zset_internal::kCompactMaxMember, " bytes");
                 }
                 c.zset_max_listpack_value = std::stoll(bytes);
                 return error;
               },
               true, "zset-max-ziplist-value"});
  return p;
}

}  // namespace

const ConfigParam* FindConfigParam(std::string_view name) {
  for (const auto& p : ConfigParams()) {
    if (EqualsIgnoreCase(p.name, name) || (!p.alias.empty() && EqualsIgnoreCase(p.alias, name))) {
      return &p;
    }
  }
  return nullptr;
}

std::string UnknownSettingError(std::string_view name) {
  for (std::string_view redis : RedisSettingNames()) {
    if (EqualsIgnoreCase(redis, name)) return "ringcache does not implement this Redis setting";
  }
  return "Bad directive or wrong number of arguments";
}

std::string_view NameAsCalled(const ConfigParam& p, std::string_view spelled) {
  return !p.alias.empty() && EqualsIgnoreCase(p.alias, spelled) ? p.alias : p.name;
}

std::vector<BindAddress> BindAddresses(std::string_view bind) {
  std::vector<BindAddress> out;
  auto parts = SplitArgs(bind);
  if (!parts) return out;
  for (std::string_view a : *parts) {
    BindAddress addr;
    if (a.size() > 1 && a[0] == '-') {
      addr.optional = true;
      a.remove_prefix(1);
    }
    addr.host = a == "*" ? "0.0.0.0" : a == "::*" ? "::" : std::string(a);
    out.push_back(std::move(addr));
  }
  return out;
}

const std::vector<ConfigParam>& ConfigParams() {
  static const std::vector<ConfigParam> params = MakeParams();
  return params;
}

}  // namespace rc
