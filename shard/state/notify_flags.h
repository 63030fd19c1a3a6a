#pragma once
// The classes of notify-keyspace-events and the setting's letters for them: the setting's
// row parses them, Shard and the commands raise events of a class (shard/runtime/notify.h
// delivers them).

#include <cstdint>
#include <string>
#include <string_view>

namespace rc {

// Redis's notify-keyspace-events classes.
enum NotifyFlag : int64_t {
  kNotifyKeyspace = 1 << 0,  // K
  kNotifyKeyevent = 1 << 1,  // E
  kNotifyGeneric = 1 << 2,   // g
  kNotifyString = 1 << 3,    // $
  kNotifyList = 1 << 4,      // l
  kNotifySet = 1 << 5,       // s
  kNotifyHash = 1 << 6,      // h
  kNotifyZset = 1 << 7,      // z
  kNotifyExpired = 1 << 8,   // x
  kNotifyEvicted = 1 << 9,   // e
  kNotifyStream = 1 << 10,   // t
  kNotifyKeyMiss = 1 << 11,  // m
  kNotifyModule = 1 << 12,   // d
  kNotifyNew = 1 << 13,      // n
  kNotifyAll = kNotifyGeneric | kNotifyString | kNotifyList | kNotifySet | kNotifyHash |
               kNotifyZset | kNotifyExpired | kNotifyEvicted | kNotifyStream | kNotifyModule,
};

// -1 on a character Redis does not know.
int64_t ParseNotifyFlags(std::string_view classes);
std::string FormatNotifyFlags(int64_t flags);

}  // namespace rc
