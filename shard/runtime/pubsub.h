#pragma once
// Pub/sub subscriptions of one worker thread's connections. A PUBLISH, or a keyspace
// event raised on any shard, runs Publish() on every thread; each thread delivers to its
// own subscribers, so a connection is only ever touched by its own thread.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace rc {

class ReplySink;

class PubSub {
 public:
  // Owner thread. Each returns whether the subscription changed.
  bool Subscribe(ReplySink* s, std::string_view channel);
  bool Unsubscribe(ReplySink* s, std::string_view channel);
  bool PSubscribe(ReplySink* s, std::string_view pattern);
  bool PUnsubscribe(ReplySink* s, std::string_view pattern);

  // Pushes `message` to every local subscriber of `channel` and of a pattern matching it;
  // returns how many deliveries were made.
  size_t Publish(std::string_view channel, std::string_view message);

  // PUBSUB introspection, local part.
  void Channels(std::string_view pattern, bool all, std::vector<std::string>* out) const;
  size_t NumSub(std::string_view channel) const;
  void Patterns(std::vector<std::string>* out) const {
    for (const auto& [p, subs] : patterns_) out->push_back(p);
  }

 private:
  using Subscribers = std::vector<ReplySink*>;
  static bool Add(Subscribers& list, ReplySink* s);
  static bool Remove(Subscribers& list, ReplySink* s);

  absl::flat_hash_map<std::string, Subscribers> channels_;
  absl::flat_hash_map<std::string, Subscribers> patterns_;
};

class PubSub;
struct ClientState;
struct ServerState;
// Connection's thread, when it closes: leaves every channel and pattern.
void DropSubscriptions(PubSub& ps, ClientState& client, ReplySink* sink, ServerState& server);

// RESP2 frames of pub/sub.
std::string SubscriptionReply(std::string_view kind, std::string_view name, size_t count,
                              bool resp3);
std::string MessageFrame(std::string_view channel, std::string_view message);
std::string PMessageFrame(std::string_view pattern, std::string_view channel,
                          std::string_view message);

}  // namespace rc
