#include "core/log.h"

#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <ctime>

namespace rc {

namespace {
std::atomic<int> min_level{int(LogLevel::kNotice)};
}

void SetLogLevel(LogLevel level) { min_level.store(int(level)); }

bool ParseLogLevel(std::string_view name, LogLevel* out) {
  static const std::pair<std::string_view, LogLevel> kNames[] = {
      {"debug", LogLevel::kDebug},
      {"verbose", LogLevel::kVerbose},
      {"notice", LogLevel::kNotice},
      {"warning", LogLevel::kWarning},
      {"nothing", LogLevel::kNothing}};
  for (const auto& [n, l] : kNames) {
    if (n == name) {
      *out = l;
      return true;
    }
  }
  return false;
}

void LogLine(LogLevel level, std::string_view message) {
  if (int(level) < min_level.load(std::memory_order_relaxed) || level == LogLevel::kNothing) {
    return;
  }
  static const char kMarks[] = {'.', '-', '*', '#'};
  timeval tv;
  gettimeofday(&tv, nullptr);
  tm t;
  localtime_r(&tv.tv_sec, &t);
  char when[64];
  size_t n = strftime(when, sizeof(when), "%d %b %Y %H:%M:%S", &t);
  std::snprintf(when + n, sizeof(when) - n, ".%03d", int(tv.tv_usec / 1000));
  std::fprintf(stdout, "%d:M %s %c %.*s\n", int(getpid()), when, kMarks[int(level)],
               int(message.size()), message.data());
  std::fflush(stdout);
}

}  // namespace rc
