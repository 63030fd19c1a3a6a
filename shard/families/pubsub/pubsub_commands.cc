// Pub/sub: SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH, PUBSUB. A client's
// subscriptions live in its thread's PubSub; PUBLISH asks every thread to deliver.

#include <set>

#include "core/strings.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/dispatcher.h"
#include "shard/command/errors.h"
#include "shard/runtime/fanout.h"
#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"

namespace rc {

namespace {

enum class Kind { kChannel, kPattern };

std::set<std::string>& Names(ClientState& c, Kind k) {
  return k == Kind::kChannel ? c.channels : c.patterns;
}

// Redis sends (un)subscribe confirmations as pushes, which CLIENT REPLY OFF/SKIP do not
// silence (they silence replies only): a silenced client still gets them, queued like a
// message. Otherwise they stay the command's reply, in EXEC's array too.
void Confirm(CoordCmd& cmd, std::string frame) {
  if (cmd.client.reply_bits & (ClientState::kReplyOff | ClientState::kReplySkip)) {
    cmd.sink.Push(std::move(frame));
  } else {
    cmd.reply.Raw(frame);
  }
}

void SubscribeGeneric(CoordCmd& cmd, Kind kind) {
  PubSub& ps = cmd.self.pubsub();
  for (size_t i = 1; i < cmd.args.size(); ++i) {
    std::string name(cmd.args[i]);
    if (Names(cmd.client, kind).insert(name).second) {
      if (kind == Kind::kChannel) {
        ps.Subscribe(&cmd.sink, name);
      } else {
        ps.PSubscribe(&cmd.sink, name);
      }
      cmd.server.pubsub_subscriptions.fetch_add(1, std::memory_order_relaxed);
    }
    Confirm(cmd, SubscriptionReply(kind == Kind::kChannel ? "subscribe" : "psubscribe", name,
                                   cmd.client.Subscriptions(), cmd.client.resp3));
  }
}

// Removes one subscription; returns whether it existed.
bool Drop(PubSub& ps, ClientState& client, ReplySink* sink, ServerState& server, Kind kind,
          const std::string& name) {
  if (Names(client, kind).erase(name) == 0) return false;
  if (kind == Kind::kChannel) {
    ps.Unsubscribe(sink, name);
  } else {
    ps.PUnsubscribe(sink, name);
  }
  server.pubsub_subscriptions.fetch_sub(1, std::memory_order_relaxed);
  return true;
}

void UnsubscribeGeneric(CoordCmd& cmd, Kind kind) {
  PubSub& ps = cmd.self.pubsub();
  std::string_view verb = kind == Kind::kChannel ? "unsubscribe" : "punsubscribe";
  std::vector<std::string> names;
  if (cmd.args.size() == 1) {
    const auto& all = Names(cmd.client, kind);
    names.assign(all.begin(), all.end());
    if (names.empty()) {
      // Nothing to leave: Redis still answers once, with a nil name.
      std::string frame;
      ReplyBuilder rb(&frame, cmd.client.resp3);
      rb.PushLen(3);
      rb.Bulk(verb);
      rb.NullBulk();
      rb.Integer(int64_t(cmd.client.Subscriptions()));
      return Confirm(cmd, std::move(frame));
    }
  } else {
    for (size_t i = 1; i < cmd.args.size(); ++i) names.emplace_back(cmd.args[i]);
  }
  for (const std::string& name : names) {
    Drop(ps, cmd.client, &cmd.sink, cmd.server, kind, name);
    Confirm(cmd, SubscriptionReply(verb, name, cmd.client.Subscriptions(), cmd.client.resp3));
  }
}

void Subscribe(CoordCmd& cmd) { SubscribeGeneric(cmd, Kind::kChannel); }
void PSubscribe(CoordCmd& cmd) { SubscribeGeneric(cmd, Kind::kPattern); }
void Unsubscribe(CoordCmd& cmd) { UnsubscribeGeneric(cmd, Kind::kChannel); }
void PUnsubscribe(CoordCmd& cmd) { UnsubscribeGeneric(cmd, Kind::kPattern); }

void Publish(CoordCmd& cmd) {
  // This thread's subscribers hear it before the reply's place is taken: Redis 7.0 sends
  // a subscribed publisher its own message before the reply.
  const int64_t here = int64_t(cmd.self.pubsub().Publish(cmd.args[1], cmd.args[2]));
  std::vector<uint32_t> others;
  for (uint32_t t : AllShards(cmd.shards)) {
    if (t != cmd.self.id()) others.push_back(t);
  }
  if (others.empty()) return cmd.reply.Integer(here);
  auto msg = std::make_shared<const std::pair<std::string, std::string>>(cmd.args[1], cmd.args[2]);
  DeferredReply out(cmd);
  FanOutThreads<int64_t>(
      cmd.self, cmd.shards, others,
      [msg](ShardThread& thread, size_t) {
        return int64_t(thread.pubsub().Publish(msg->first, msg->second));
      },
      [out, here](std::vector<int64_t>& counts) {
        int64_t total = here;
        for (int64_t c : counts) total += c;
        out.Send([total](ReplyBuilder& rb) { rb.Integer(total); });
      });
}

// PUBSUB CHANNELS [pattern]
void Channels(CoordCmd& cmd) {
  const size_t argc = cmd.args.size();
  if (argc > 3) {
    return cmd.reply.Error(StrCat("ERR unknown subcommand or wrong number of arguments for '",
                                  cmd.args[1].substr(0, 128), "'. Try PUBSUB HELP."));
  }
  auto pattern = std::make_shared<const std::string>(argc == 3 ? cmd.args[2] : "");
  bool all = argc == 2;
  DeferredReply out(cmd);
  FanOutThreads<std::vector<std::string>>(
      cmd.self, cmd.shards, AllShards(cmd.shards),
      [pattern, all](ShardThread& thread, size_t) {
        std::vector<std::string> names;
        thread.pubsub().Channels(*pattern, all, &names);
        return names;
      },
      [out](std::vector<std::vector<std::string>>& parts) {
        std::set<std::string> names;
        for (auto& p : parts) names.insert(p.begin(), p.end());
        out.Send([&](ReplyBuilder& rb) {
          rb.ArrayLen(names.size());
          for (const auto& n : names) rb.Bulk(n);
        });
      });
}

void NumSub(CoordCmd& cmd) {
  auto channels =
      std::make_shared<const std::vector<std::string>>(cmd.args.begin() + 2, cmd.args.end());
  DeferredReply out(cmd);
  FanOutThreads<std::vector<int64_t>>(
      cmd.self, cmd.shards, AllShards(cmd.shards),
      [channels](ShardThread& thread, size_t) {
        std::vector<int64_t> n;
        for (const auto& c : *channels) n.push_back(int64_t(thread.pubsub().NumSub(c)));
        return n;
      },
      [out, channels](std::vector<std::vector<int64_t>>& parts) {
        out.Send([&](ReplyBuilder& rb) {
          rb.ArrayLen(channels->size() * 2);
          for (size_t i = 0; i < channels->size(); ++i) {
            int64_t total = 0;
            for (const auto& p : parts) total += p[i];
            rb.Bulk((*channels)[i]);
            rb.Integer(total);
          }
        });
      });
}

void NumPat(CoordCmd& cmd) {
  DeferredReply out(cmd);
  FanOutThreads<std::vector<std::string>>(
      cmd.self, cmd.shards, AllShards(cmd.shards),
      [](ShardThread& thread, size_t) {
        // Patterns are counted once however many clients use them.
        std::vector<std::string> names;
        thread.pubsub().Patterns(&names);
        return names;
      },
      [out](std::vector<std::vector<std::string>>& parts) {
        std::set<std::string> names;
        for (auto& p : parts) names.insert(p.begin(), p.end());
        out.Send([n = names.size()](ReplyBuilder& rb) { rb.Integer(int64_t(n)); });
      });
}

void PubsubHelp(CoordCmd& cmd) {
  static const char* const kLines[] = {
      "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CHANNELS [<pattern>]",
      "    Return the currently active channels matching a <pattern> (default: '*').",
      "NUMPAT",
      "    Return number of subscriptions to patterns.",
      "NUMSUB [<channel> ...]",
      "    Return the number of subscribers for the specified channels, excluding",
      "    pattern subscriptions(default: no channels).",
      "HELP",
      "    Prints this help.",
  };
  cmd.reply.HelpLines(kLines);
}

}  // namespace

void DropSubscriptions(PubSub& ps, ClientState& client, ReplySink* sink, ServerState& server) {
  for (Kind kind : {Kind::kChannel, Kind::kPattern}) {
    std::vector<std::string> names(Names(client, kind).begin(), Names(client, kind).end());
    for (const auto& n : names) Drop(ps, client, sink, server, kind, n);
  }
}

void RegisterPubSubCommands(CommandTable& t) {
  // @pubsub follows kCmdPubSub, as in Redis (setImplicitACLCategories): PUBSUB HELP has
  // neither.
  const uint32_t kPs = kCmdPubSub | kCmdNoScript | kCmdLoading | kCmdStale | kCmdSubscribeOk;
  const uint32_t kIntrospect = kCmdPubSub | kCmdLoading | kCmdStale;
  CommandTable::Family f = t.StartFamily();
  f.Add({.name = "subscribe", .arity = -2, .flags = kPs, .on_coord = Subscribe});
  f.Add({.name = "psubscribe", .arity = -2, .flags = kPs, .on_coord = PSubscribe});
  f.Add({.name = "unsubscribe", .arity = -1, .flags = kPs, .on_coord = Unsubscribe});
  f.Add({.name = "punsubscribe", .arity = -1, .flags = kPs, .on_coord = PUnsubscribe});
  f.Add(
      {.name = "publish",
       .arity = 3,
       .flags = kCmdPubSub | kCmdLoading | kCmdStale | kCmdFast | kCmdMayReplicate | kCmdAllThreads,
       .on_coord = Publish});
  f.Add({.name = "pubsub",
         .arity = -2,
         .flags = kIntrospect,
         .subcommands = {
             {.name = "channels",
              .arity = -2,
              .flags = kIntrospect | kCmdAllThreads,
              .on_coord = Channels},
             {.name = "numsub",
              .arity = -2,
              .flags = kIntrospect | kCmdAllThreads,
              .on_coord = NumSub},
             {.name = "numpat",
              .arity = 2,
              .flags = kIntrospect | kCmdAllThreads,
              .on_coord = NumPat},
             {.name = "help", .arity = 2, .flags = kHelpFlags, .on_coord = PubsubHelp},
         }});
}

}  // namespace rc
