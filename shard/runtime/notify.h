#pragma once
// Keyspace notifications (notify-keyspace-events: a class such as x, e, $ or g, and K
// and/or E): expired and evicted keys, read misses, the "new" of every key created, and
// the events commands raise through Shard::Notify, each from the thread owning the key.
//
// Delivery keeps Redis's order for every key. The owning thread's own subscribers hear a
// command's event at once, as Redis publishes inside the command, so a RESP3 client
// subscribed on that thread gets it before or after the command's reply just as from
// Redis (the call sites follow Redis's notifyKeyspaceEvent calls relative to its
// addReply). Expired and evicted keys and read misses wait for the next command event or
// the end of the turn instead: a lazy expiry or a miss may happen in the middle of a
// reply (MGET), where a push would break the frame. At the end of the loop turn Flush() hands the
// turn's events to every other thread in one task each, in the order they were raised, so every
// subscriber hears each event exactly once, whichever shard raised it. Those tasks leave
// in the same outbox flush as the command's reply or earlier, so every thread has the
// events queued before the client can have the reply.

#include <string>
#include <string_view>
#include <vector>

#include "shard/runtime/shard.h"
#include "shard/state/notify_flags.h"

namespace rc {

class PubSub;
class ShardThread;
class ShardSet;
struct ServerState;

class KeyEvents final : public KeyEventListener {
 public:
  // `local`: the subscriptions of the thread that owns this object.
  KeyEvents(const ServerState* server, PubSub* local) : server_(server), local_(local) {}
  // Shard thread.
  void OnExpired(uint32_t shard, std::string_view key) override {
    Note(kNotifyExpired, "expired", key, /*now=*/false);
  }
  void OnEvicted(uint32_t shard, std::string_view key) override {
    Note(kNotifyEvicted, "evicted", key, /*now=*/false);
  }
  void OnKeyMiss(std::string_view key) override {
    Note(kNotifyKeyMiss, "keymiss", key, /*now=*/false);
  }
  void OnKeyEvent(int64_t type_class, std::string_view event, std::string_view key) override {
    Note(type_class, event, key, /*now=*/true);
  }
  // Owner thread, once per loop turn: this thread's subscribers hear what they have not
  // yet, and every other thread gets the turn's events.
  void Flush(ShardThread& self, ShardSet& shards);

 private:
  struct Event {
    std::string_view name;  // a literal
    std::string key;
  };
  // `now`: a command raised it between two replies' frames, so this thread's subscribers
  // may hear it (and any event still held before it) at once.
  void Note(int64_t type_class, std::string_view name, std::string_view key, bool now);
  void PublishLocal();

  const ServerState* server_;
  PubSub* local_;
  std::vector<Event> pending_;  // this turn's events
  size_t published_ = 0;        // how many of them local_'s subscribers heard
};

}  // namespace rc
