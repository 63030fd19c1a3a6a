#include "shard/state/notify_flags.h"

namespace rc {

namespace {

struct FlagChar {
  char c;
  int64_t flag;
};
// In the order Redis prints them.
constexpr FlagChar kClassChars[] = {
    {'g', kNotifyGeneric}, {'$', kNotifyString}, {'l', kNotifyList},    {'s', kNotifySet},
    {'h', kNotifyHash},    {'z', kNotifyZset},   {'x', kNotifyExpired}, {'e', kNotifyEvicted},
    {'t', kNotifyStream},  {'d', kNotifyModule}, {'n', kNotifyNew}};

}  // namespace

int64_t ParseNotifyFlags(std::string_view classes) {
  int64_t flags = 0;
  for (char c : classes) {
    switch (c) {
      case 'A':
        flags |= kNotifyAll;
        continue;
      case 'K':
        flags |= kNotifyKeyspace;
        continue;
      case 'E':
        flags |= kNotifyKeyevent;
        continue;
      case 'm':
        flags |= kNotifyKeyMiss;
        continue;
      default:
        break;
    }
    int64_t found = 0;
    for (const auto& fc : kClassChars) {
      if (fc.c == c) found = fc.flag;
    }
    if (found == 0) return -1;
    flags |= found;
  }
  return flags;
}

std::string FormatNotifyFlags(int64_t flags) {
  std::string out;
  if ((flags & kNotifyAll) == kNotifyAll) {
    out += 'A';
  } else {
    for (const auto& fc : kClassChars) {
      if (flags & fc.flag) out += fc.c;
    }
  }
  if (flags & kNotifyKeyspace) out += 'K';
  if (flags & kNotifyKeyevent) out += 'E';
  if (flags & kNotifyKeyMiss) out += 'm';
  return out;
}

}  // namespace rc
