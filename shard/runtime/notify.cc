#include "shard/runtime/notify.h"

#include <memory>

#include "core/strings.h"
#include "shard/runtime/pubsub.h"
#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"

namespace rc {

namespace {

// Redis's order: the keyspace channel first, then the keyevent one.
void Publish(PubSub& subs, int64_t flags, std::string_view name, std::string_view key) {
  if (flags & kNotifyKeyspace) subs.Publish(StrCat("__keyspace@0__:", key), name);
  if (flags & kNotifyKeyevent) subs.Publish(StrCat("__keyevent@0__:", name), key);
}

}  // namespace

void KeyEvents::Note(int64_t type_class, std::string_view name, std::string_view key, bool now) {
  int64_t flags = server_->config.notify_keyspace_events;
  if (!(flags & type_class) || !(flags & (kNotifyKeyspace | kNotifyKeyevent))) return;
  // Nobody anywhere listens: skip the work (the common case).
  if (server_->pubsub_subscriptions.load(std::memory_order_relaxed) == 0) return;
  pending_.push_back(Event{name, std::string(key)});
  if (now) PublishLocal();
}

void KeyEvents::PublishLocal() {
  const int64_t flags = server_->config.notify_keyspace_events;
  for (; published_ < pending_.size(); ++published_) {
    Publish(*local_, flags, pending_[published_].name, pending_[published_].key);
  }
}

void KeyEvents::Flush(ShardThread& self, ShardSet& shards) {
  if (pending_.empty()) return;
  PublishLocal();
  published_ = 0;
  if (shards.size() == 1) {
    pending_.clear();
    return;
  }
  auto events = std::make_shared<const std::vector<Event>>(std::move(pending_));
  pending_.clear();
  for (uint32_t t = 0; t < shards.size(); ++t) {
    if (t == self.id()) continue;
    self.PostAhead(t, [events, there = &shards.thread(t), server = server_] {
      const int64_t flags = server->config.notify_keyspace_events;
      for (const Event& e : *events) Publish(there->pubsub(), flags, e.name, e.key);
    });
  }
}

}  // namespace rc
