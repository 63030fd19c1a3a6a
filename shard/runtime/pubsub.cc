#include "shard/runtime/pubsub.h"

#include <algorithm>

#include "core/glob.h"
#include "core/reply_builder.h"
#include "core/strings.h"
#include "shard/wire/reply_sink.h"

namespace rc {

bool PubSub::Add(Subscribers& list, ReplySink* s) {
  if (std::find(list.begin(), list.end(), s) != list.end()) return false;
  list.push_back(s);
  return true;
}

bool PubSub::Remove(Subscribers& list, ReplySink* s) {
  auto it = std::find(list.begin(), list.end(), s);
  if (it == list.end()) return false;
  *it = list.back();
  list.pop_back();
  return true;
}

bool PubSub::Subscribe(ReplySink* s, std::string_view channel) {
  return Add(channels_[AbslView(channel)], s);
}

bool PubSub::Unsubscribe(ReplySink* s, std::string_view channel) {
  auto it = channels_.find(AbslView(channel));
  if (it == channels_.end() || !Remove(it->second, s)) return false;
  if (it->second.empty()) channels_.erase(it);
  return true;
}

bool PubSub::PSubscribe(ReplySink* s, std::string_view pattern) {
  return Add(patterns_[AbslView(pattern)], s);
}

bool PubSub::PUnsubscribe(ReplySink* s, std::string_view pattern) {
  auto it = patterns_.find(AbslView(pattern));
  if (it == patterns_.end() || !Remove(it->second, s)) return false;
  if (it->second.empty()) patterns_.erase(it);
  return true;
}

size_t PubSub::Publish(std::string_view channel, std::string_view message) {
  size_t n = 0;
  if (auto it = channels_.find(AbslView(channel)); it != channels_.end()) {
    std::string frame = MessageFrame(channel, message);
    for (ReplySink* s : it->second) s->Push(frame);
    n += it->second.size();
  }
  for (const auto& [pattern, subs] : patterns_) {
    if (!GlobMatch(pattern, channel)) continue;
    std::string frame = PMessageFrame(pattern, channel, message);
    for (ReplySink* s : subs) s->Push(frame);
    n += subs.size();
  }
  return n;
}

void PubSub::Channels(std::string_view pattern, bool all, std::vector<std::string>* out) const {
  for (const auto& [channel, subs] : channels_) {
    if (all || GlobMatch(pattern, channel)) out->push_back(channel);
  }
}

size_t PubSub::NumSub(std::string_view channel) const {
  auto it = channels_.find(AbslView(channel));
  return it == channels_.end() ? 0 : it->second.size();
}

std::string SubscriptionReply(std::string_view kind, std::string_view name, size_t count,
                              bool resp3) {
  std::string out;
  ReplyBuilder rb(&out, resp3);
  rb.PushLen(3);
  rb.Bulk(kind);
  rb.Bulk(name);
  rb.Integer(int64_t(count));
  return out;
}

std::string MessageFrame(std::string_view channel, std::string_view message) {
  std::string out;
  ReplyBuilder rb(&out);
  rb.ArrayLen(3);
  rb.Bulk("message");
  rb.Bulk(channel);
  rb.Bulk(message);
  return out;
}

std::string PMessageFrame(std::string_view pattern, std::string_view channel,
                          std::string_view message) {
  std::string out;
  ReplyBuilder rb(&out);
  rb.ArrayLen(4);
  rb.Bulk("pmessage");
  rb.Bulk(pattern);
  rb.Bulk(channel);
  rb.Bulk(message);
  return out;
}

}  // namespace rc
