#pragma once
// Keyspace notifications (notify-keyspace-events: a class such as x, e, $ or g, and K
// and/or E): expired and evicted keys, and the events commands raise through
// Shard::Notify. A shard collects its events during its loop turn; Flush() then hands the
// batch to every thread, and each thread publishes to its own subscribers, so a
// subscriber to __keyevent@0__:expired hears each expired key exactly once, whichever
// shard expired it.

#include <string>
#include <string_view>
#include <vector>

#include "shard/runtime/shard.h"

namespace rc {

class ShardThread;
class ShardSet;
struct ServerState;

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

class KeyEvents final : public KeyEventListener {
 public:
  explicit KeyEvents(const ServerState* server) : server_(server) {}
  // Shard thread.
  void OnExpired(uint32_t shard, std::string_view key) override {
    Note(kNotifyExpired, "expired", key);
  }
  void OnEvicted(uint32_t shard, std::string_view key) override {
    Note(kNotifyEvicted, "evicted", key);
  }
  void OnKeyEvent(int64_t type_class, std::string_view event, std::string_view key) override {
    Note(type_class, event, key);
  }
  // Owner thread, once per loop turn: publishes this turn's events on every thread.
  void Flush(ShardThread& self, ShardSet& shards);

 private:
  struct Event {
    std::string_view name;  // a literal
    std::string key;
  };
  void Note(int64_t type_class, std::string_view name, std::string_view key);

  const ServerState* server_;
  std::vector<Event> pending_;
};

}  // namespace rc
