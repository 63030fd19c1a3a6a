#pragma once
// Minimal leveled logging in Redis's line format ("pid:role dd Mon yyyy hh:mm:ss.mmm *
// message"). Startup and shutdown lines only: nothing is logged per request.

#include <string_view>

#include "core/strings.h"

namespace rc {

enum class LogLevel { kDebug = 0, kVerbose = 1, kNotice = 2, kWarning = 3, kNothing = 4 };

void SetLogLevel(LogLevel level);
bool ParseLogLevel(std::string_view name, LogLevel* out);
void LogLine(LogLevel level, std::string_view message);

template <typename... Args>
void Log(LogLevel level, const Args&... args) {
  LogLine(level, StrCat(args...));
}

}  // namespace rc
