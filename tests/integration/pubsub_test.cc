// Pub/sub against redis-server (1, 2 and 3 threads): SUBSCRIBE/PSUBSCRIBE/UNSUBSCRIBE/
// PUNSUBSCRIBE reply frames and counts, the subscribed-mode rules (errors, PING, QUIT),
// PUBLISH counts and delivered frames with subscribers on many connections (so, with
// several threads, on several threads: SO_REUSEPORT spreads connections), and PUBSUB
// CHANNELS/NUMSUB/NUMPAT. Subscribed connections are RawConns driven in lockstep, one to
// each server (Pair); frames are compared canonically. Only where Redis's order is a hash
// table's (unsubscribe-all, PUBSUB CHANNELS) is the comparison order-insensitive.

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tests/integration/fixtures.h"
#include "tests/integration/polling.h"

namespace rc::it {
namespace {

// A connection to redis-server and one to ringcache, sent the same bytes.
struct Pair {
  std::unique_ptr<RawConn> redis;
  std::unique_ptr<RawConn> rc;
};

// Top-level elements of a canonical flat array ("*[$a,$b,:1]" -> "$a", "$b", ":1"); bulk
// strings escape their commas, so splitting is exact.
std::vector<std::string> Elements(const std::string& canon) {
  if (canon.size() < 3 || canon.rfind("*[", 0) != 0) return {canon};
  return absl::StrSplit(canon.substr(2, canon.size() - 3), ',');
}

class DiffPubSubTest : public DiffTest {
 protected:
  Pair NewPair() { return Pair{NewRaw(redis_->port()), NewRaw(rc_->port())}; }

  // Sends `cmd` on both connections and expects the same `n` replies; returns ringcache's.
  std::vector<std::string> SameOn(Pair& p, const Args& cmd, size_t n = 1) {
    std::string bytes = EncodeCommand(cmd);
    EXPECT_TRUE(p.redis->Send(bytes));
    EXPECT_TRUE(p.rc->Send(bytes));
    return SameFrames(p, n, Describe(cmd));
  }
  // Reads `n` frames from both connections; they must be equal.
  std::vector<std::string> SameFrames(Pair& p, size_t n, const std::string& what) {
    std::vector<std::string> want = p.redis->ReadReplies(n);
    std::vector<std::string> got = p.rc->ReadReplies(n);
    EXPECT_EQ(got, want) << "frames differ from redis-server after: " << what;
    return got;
  }
  // Like SameOn for an unsubscribe of several names, whose order in Redis is its hash
  // table's: the same (verb, name) frames, and the same counts in the same order.
  void SameUnsubscribeAll(Pair& p, const Args& cmd, size_t n) {
    std::string bytes = EncodeCommand(cmd);
    EXPECT_TRUE(p.redis->Send(bytes));
    EXPECT_TRUE(p.rc->Send(bytes));
    std::vector<std::string> want = p.redis->ReadReplies(n), got = p.rc->ReadReplies(n);
    ASSERT_EQ(got.size(), want.size()) << Describe(cmd);
    std::vector<std::string> want_names, got_names, want_counts, got_counts;
    for (size_t i = 0; i < n; ++i) {
      std::vector<std::string> w = Elements(want[i]), g = Elements(got[i]);
      ASSERT_EQ(w.size(), 3u) << want[i];
      ASSERT_EQ(g.size(), 3u) << got[i];
      want_names.push_back(w[0] + "," + w[1]);
      got_names.push_back(g[0] + "," + g[1]);
      want_counts.push_back(w[2]);
      got_counts.push_back(g[2]);
    }
    std::sort(want_names.begin(), want_names.end());
    std::sort(got_names.begin(), got_names.end());
    EXPECT_EQ(got_names, want_names) << Describe(cmd);
    EXPECT_EQ(got_counts, want_counts) << Describe(cmd);
  }
  // A subscribed connection has nothing else queued: its next frame answers a PING.
  void NothingMore(Pair& p) {
    std::vector<std::string> r = SameOn(p, {"PING", "sync"});
    EXPECT_EQ(r, std::vector<std::string>{"*[$pong,$sync]"});
  }
};

TEST_P(DiffPubSubTest, SubscribeAndUnsubscribeFrames) {
  Pair p = NewPair();
  SameOn(p, {"SUBSCRIBE", "a", "b", "a"}, 3);
  SameOn(p, {"subscribe", "c"});
  SameOn(p, {"PSUBSCRIBE", "p*", "q?", "p*"}, 3);
  SameOn(p, {"SUBSCRIBE", "", "bin\r\n\x01,[]"}, 2);
  SameOn(p, {"UNSUBSCRIBE", "b", "nosuch", "b"}, 3);
  SameOn(p, {"PUNSUBSCRIBE", "q?", "nosuch*"}, 2);
  SameOn(p, {"PUNSUBSCRIBE", "a"});  // a channel, not a pattern
  SameOn(p, {"UNSUBSCRIBE", "p*"});  // a pattern, not a channel
  // Every channel (Redis's order is its hash table's): the pattern remains.
  SameUnsubscribeAll(p, {"UNSUBSCRIBE"}, 4);
  // No channel left: one frame with a nil name and the remaining (pattern) count.
  SameOn(p, {"UNSUBSCRIBE"});
  SameOn(p, {"PSUBSCRIBE", "x*"});
  SameUnsubscribeAll(p, {"PUNSUBSCRIBE"}, 2);
  SameOn(p, {"PUNSUBSCRIBE"});
  // Out of subscribed mode: ordinary commands work again.
  SameOn(p, {"SET", "k", "v"});
  SameOn(p, {"GET", "k"});
  SameOn(p, {"PING"});
}

TEST_P(DiffPubSubTest, UnsubscribeWithNothingSubscribed) {
  Pair p = NewPair();
  SameOn(p, {"UNSUBSCRIBE"});
  SameOn(p, {"PUNSUBSCRIBE"});
  SameOn(p, {"UNSUBSCRIBE", "a", "b"}, 2);
  SameOn(p, {"PUNSUBSCRIBE", "a*"});
  // Still not in subscribed mode.
  SameOn(p, {"GET", "k"});
  SameOn(p, {"PING"});
  SameOn(p, {"PING", "x"});
  // The same through hiredis on the fixture's clients.
  Same({"UNSUBSCRIBE"});
  Same({"PUNSUBSCRIBE"});
  Same({"GET", "k"});
}

TEST_P(DiffPubSubTest, SubscribedModeAllowsOnlyPubSubCommandsPingAndQuit) {
  for (const Args& sub : {Args{"SUBSCRIBE", "a"}, Args{"PSUBSCRIBE", "a*"}}) {
    SCOPED_TRACE(Describe(sub));
    Pair p = NewPair();
    SameOn(p, sub);
    for (const Args& cmd : {
             Args{"GET", "k"},
             Args{"SET", "k", "v"},
             Args{"PUBLISH", "a", "x"},
             Args{"ECHO", "x"},
             Args{"DBSIZE"},
             Args{"SELECT", "0"},
             Args{"INFO"},
             Args{"TIME"},
             Args{"EXPIRE", "k", "10"},
             Args{"TTL", "k"},
             Args{"GETEX", "k"},
             Args{"KEYS", "*"},
             Args{"FLUSHALL"},
             // Arity and unknown commands are checked first.
             Args{"GET"},
             Args{"NOSUCHCOMMAND", "x"},
             Args{"SUBSCRIBE"},
             Args{"PSUBSCRIBE"},
             Args{"PING", "a", "b"},
             Args{"PUBLISH", "a"},
         }) {
      SameOn(p, cmd);
    }
    SameOn(p, {"PING"});
    SameOn(p, {"ping", "hello"});
    SameOn(p, {"PING", ""});
    SameOn(p, {"SUBSCRIBE", "b"});
    SameOn(p, {"PING"});
    // QUIT is allowed, answers +OK and closes.
    SameOn(p, {"QUIT"});
    EXPECT_TRUE(p.redis->WaitClosed());
    EXPECT_TRUE(p.rc->WaitClosed());
  }
}

// Redis names subcommands in the subscribed-mode error ('config|get', 'client|id').
TEST_P(DiffPubSubTest, SubscribedModeErrorNamesTheSubcommand) {
  Pair p = NewPair();
  SameOn(p, {"SUBSCRIBE", "a"});
  SameOn(p, {"CONFIG", "GET", "hz"});
  SameOn(p, {"CLIENT", "ID"});
  SameOn(p, {"PUBSUB", "NUMSUB", "a"});
  SameOn(p, {"COMMAND", "COUNT"});
}

TEST_P(DiffPubSubTest, PingInSubscribedMode) {
  Pair p = NewPair();
  SameOn(p, {"PING"});
  SameOn(p, {"PING", "x"});
  SameOn(p, {"SUBSCRIBE", "ch"});
  EXPECT_EQ(SameOn(p, {"PING"}), std::vector<std::string>{"*[$pong,$]"});
  EXPECT_EQ(SameOn(p, {"PING", "x"}), std::vector<std::string>{"*[$pong,$x]"});
  // Pipelined with messages in between.
  std::string pipeline = EncodeCommand({"PING", "1"}) + EncodeCommand({"SUBSCRIBE", "d"}) +
                         EncodeCommand({"PING", "2"}) + EncodeCommand({"UNSUBSCRIBE"}) +
                         EncodeCommand({"PING", "3"});
  ASSERT_TRUE(p.redis->Send(pipeline));
  ASSERT_TRUE(p.rc->Send(pipeline));
  std::vector<std::string> want = p.redis->ReadReplies(3), got = p.rc->ReadReplies(3);
  EXPECT_EQ(got, want);
  // UNSUBSCRIBE's two frames (hash order in Redis), then PING out of subscribed mode.
  want = p.redis->ReadReplies(3);
  got = p.rc->ReadReplies(3);
  ASSERT_EQ(got.size(), 3u);
  ASSERT_EQ(want.size(), 3u);
  EXPECT_EQ(got[2], want[2]);
  EXPECT_EQ(got[2], "$3");
}

// Subscribers on many connections (with several threads, on several of them): PUBLISH
// counts every receiving subscription, and each connection gets the same frames as from
// Redis.
TEST_P(DiffPubSubTest, PublishReachesSubscribersOnEveryConnection) {
  constexpr int kConns = 12;
  std::vector<Pair> subs;
  for (int i = 0; i < kConns; ++i) {
    subs.push_back(NewPair());
    Pair& p = subs.back();
    switch (i % 4) {
      case 0:
        SameOn(p, {"SUBSCRIBE", "news"});
        break;
      case 1:
        SameOn(p, {"PSUBSCRIBE", "n*"});
        break;
      case 2:  // both: gets message and pmessage
        SameOn(p, {"SUBSCRIBE", "news", "sports"}, 2);
        SameOn(p, {"PSUBSCRIBE", "ne?s"});
        break;
      case 3:
        SameOn(p, {"SUBSCRIBE", "sports"});
        break;
    }
  }
  EXPECT_EQ(Same({"PUBLISH", "news", "hello"}), ":12");
  EXPECT_EQ(Same({"PUBLISH", "sports", "goal"}), ":6");
  Same({"PUBLISH", "nothing", "x"});
  Same({"PUBLISH", "nobody", "x"});
  Same({"PUBLISH", "news", std::string("bin\r\n\0,[]", 9)});
  Same({"PUBLISH", "new", ""});
  for (int i = 0; i < kConns; ++i) {
    SCOPED_TRACE(absl::StrCat("subscriber ", i));
    size_t frames = std::vector<size_t>{2, 5, 5, 1}[size_t(i % 4)];
    SameFrames(subs[size_t(i)], frames, "the PUBLISHes");
    NothingMore(subs[size_t(i)]);
  }
  Same({"PUBSUB", "NUMSUB", "news", "sports", "nothing", "news", "n*"});
  Same({"PUBSUB", "NUMSUB"});
  Same({"PUBSUB", "NUMPAT"});
  SameSorted({"PUBSUB", "CHANNELS"});
  SameSorted({"PUBSUB", "CHANNELS", "n*"});
  SameSorted({"PUBSUB", "CHANNELS", "*o*"});
  SameSorted({"PUBSUB", "CHANNELS", "x*"});
  // Connections closing leave their channels (asynchronously in both servers).
  subs.resize(6);
  auto numsub = [](Client& c) { return c.Cmd({"PUBSUB", "NUMSUB", "news", "sports"}); };
  EXPECT_TRUE(PollUntil([&] { return numsub(*redisc_) == "*[$news,:3,$sports,:2]"; }));
  EXPECT_TRUE(PollUntil([&] { return numsub(*rcc_) == "*[$news,:3,$sports,:2]"; }))
      << numsub(*rcc_);
  Same({"PUBSUB", "NUMPAT"});
  EXPECT_EQ(Same({"PUBLISH", "news", "again"}), ":6");
  for (size_t i = 0; i < subs.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("subscriber ", i));
    SameFrames(subs[i], std::vector<size_t>{1, 1, 2, 0}[i % 4], "PUBLISH news again");
    NothingMore(subs[i]);
  }
  // Unsubscribing everyone empties the registry.
  for (Pair& p : subs) {
    SameOn(p, {"PUNSUBSCRIBE"});
    SameOn(p, {"UNSUBSCRIBE", "news", "sports"}, 2);
  }
  Same({"PUBSUB", "NUMSUB", "news", "sports"});
  Same({"PUBSUB", "NUMPAT"});
  Same({"PUBSUB", "CHANNELS"});
  Same({"PUBLISH", "news", "x"});
}

TEST_P(DiffPubSubTest, PatternsMatchLikeRedisGlobs) {
  const std::vector<std::string> patterns = {"h?llo", "h*llo", "h[ae]llo", "h[^e]llo",
                                             "h\\*",  "*",     "",         "h[a-b]llo"};
  std::vector<Pair> subs;
  for (const std::string& pattern : patterns) {
    subs.push_back(NewPair());
    SameOn(subs.back(), {"PSUBSCRIBE", pattern});
  }
  const std::vector<std::string> channels = {"hello", "hallo", "hllo",  "heeeello", "h*",
                                             "hxllo", "",      "HELLO", "hbllo"};
  for (const std::string& ch : channels) Same({"PUBLISH", ch, "m-" + ch});
  Same({"PUBSUB", "NUMPAT"});
  for (size_t i = 0; i < subs.size(); ++i) {
    SCOPED_TRACE("pattern " + patterns[i]);
    // Every frame Redis sent, in order, up to the answer to a PING sent after them.
    const std::string ping = EncodeCommand({"PING", "sync"});
    ASSERT_TRUE(subs[i].redis->Send(ping));
    ASSERT_TRUE(subs[i].rc->Send(ping));
    std::vector<std::string> want;
    for (;;) {
      std::string r = subs[i].redis->ReadReply();
      want.push_back(r);
      if (r == "*[$pong,$sync]" || r[0] == '!') break;
    }
    EXPECT_EQ(subs[i].rc->ReadReplies(want.size()), want);
  }
}

TEST_P(DiffPubSubTest, PubsubIntrospectionAndErrors) {
  Script({
      {"PUBSUB", "NUMSUB"},
      {"PUBSUB", "NUMSUB", "a", "b"},
      {"PUBSUB", "NUMPAT"},
      {"PUBSUB", "CHANNELS"},
      {"PUBSUB", "CHANNELS", "*"},
      {"pubsub", "numsub", "a"},
      {"PUBSUB"},
      {"PUBSUB", "CHANNELS", "a", "b"},
      {"PUBLISH"},
      {"PUBLISH", "a"},
      {"PUBLISH", "a", "b", "c"},
      {"PUBLISH", "a", "b"},
  });
  Pair p = NewPair();
  SameOn(p, {"SUBSCRIBE", "a", "b"}, 2);
  SameOn(p, {"PSUBSCRIBE", "a*", "b*"}, 2);
  Pair q = NewPair();
  SameOn(q, {"SUBSCRIBE", "a"});
  SameOn(q, {"PSUBSCRIBE", "a*"});
  Script({
      {"PUBSUB", "NUMSUB", "a", "b", "c", "a*"},
      {"PUBSUB", "NUMPAT"},
      {"PUBLISH", "a", "x"},
      {"PUBLISH", "ab", "x"},
  });
  SameSorted({"PUBSUB", "CHANNELS"});
  SameSorted({"PUBSUB", "CHANNELS", "a"});
  SameSorted({"PUBSUB", "CHANNELS", "[ab]"});
}

TEST_P(DiffPubSubTest, PubsubUnknownSubcommandErrors) {
  Script({
      {"PUBSUB", "foo"},
      {"PUBSUB", "NUMPAT", "x"},
      {"PUBSUB", "NUMPAT", "x", "y"},
  });
}

// Redis's PUBSUB HELP text, less the SHARDCHANNELS/SHARDNUMSUB entries (no sharded pub/sub
// here): the same lines in the same order.
TEST_P(DiffPubSubTest, PubsubHelp) {
  std::vector<std::string> want = Strings(redisc_->RawCmd({"PUBSUB", "HELP"}).get());
  std::vector<std::string> got = Strings(rcc_->RawCmd({"PUBSUB", "HELP"}).get());
  std::vector<std::string> expected;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i].rfind("SHARD", 0) == 0) {
      ++i;  // and its description line
      continue;
    }
    expected.push_back(want[i]);
  }
  ASSERT_GT(expected.size(), 6u);
  EXPECT_EQ(got, expected);
}

TEST_P(DiffPubSubTest, ContainerSubcommandErrors) {
  for (const Args& cmd :
       {Args{"PUBSUB", "FOO"}, Args{"PUBSUB", "NUMPAT", "x"}, Args{"PUBSUB", "CHANNELS", "a", "b"},
        Args{"PUBSUB", "HELP", "x"}, Args{"CONFIG", "FOO"}, Args{"CONFIG", "GET"},
        Args{"CONFIG", "SET", "hz"}, Args{"CONFIG", "RESETSTAT", "x"},
        Args{"CLIENT", "FOO"}, Args{"CLIENT", "ID", "x"}, Args{"CLIENT", "SETNAME"},
        Args{"COMMAND", "FOO"}, Args{"COMMAND", "COUNT", "x"}, Args{"COMMAND", "GETKEYS", "get"},
        Args{"PUBSUB"}, Args{"CONFIG"}}) {
    Same(cmd);
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffPubSubTest, ::testing::Values(1, 2, 3), ThreadsName);

// Many publishers and subscribers at once (ringcache only): every subscriber receives every
// message, and one publisher's messages in the order it sent them.
class PubSubTest : public RingcacheTest {};

TEST_P(PubSubTest, ConcurrentPublishersKeepPerPublisherOrder) {
  constexpr int kSubscribers = 8, kPublishers = 4, kMessages = 300;
  std::vector<std::unique_ptr<RawConn>> subs;
  for (int i = 0; i < kSubscribers; ++i) {
    subs.push_back(NewRaw(rc_->port()));
    ASSERT_TRUE(subs.back()->Send(
        EncodeCommand(i % 2 ? Args{"SUBSCRIBE", "ch"} : Args{"PSUBSCRIBE", "c?"})));
    ASSERT_EQ(subs.back()->ReadReply().rfind(i % 2 ? "*[$subscribe," : "*[$psubscribe,", 0), 0u);
  }
  std::vector<std::thread> publishers;
  std::vector<int> wrong_counts(kPublishers, 0);
  for (int p = 0; p < kPublishers; ++p) {
    publishers.emplace_back([&, p] {
      std::string error;
      auto c = Client::Connect(rc_->port(), &error);
      if (!c) return;
      for (int m = 0; m < kMessages; ++m) c->Append({"PUBLISH", "ch", absl::StrCat(p, ":", m)});
      for (int m = 0; m < kMessages; ++m) {
        if (c->GetReply() != absl::StrCat(":", kSubscribers)) ++wrong_counts[size_t(p)];
      }
    });
  }
  for (std::thread& t : publishers) t.join();
  for (int p = 0; p < kPublishers; ++p) EXPECT_EQ(wrong_counts[size_t(p)], 0) << "publisher " << p;
  for (int i = 0; i < kSubscribers; ++i) {
    SCOPED_TRACE(absl::StrCat("subscriber ", i));
    std::vector<std::string> frames = subs[size_t(i)]->ReadReplies(kPublishers * kMessages);
    ASSERT_EQ(frames.size(), size_t(kPublishers * kMessages));
    std::vector<int> next(kPublishers, 0);
    for (const std::string& f : frames) {
      std::vector<std::string> e = Elements(f);
      ASSERT_EQ(e.size(), i % 2 ? 3u : 4u) << f;
      std::vector<std::string> pm = absl::StrSplit(e.back().substr(1), ':');
      ASSERT_EQ(pm.size(), 2u) << f;
      int p = std::stoi(pm[0]), m = std::stoi(pm[1]);
      ASSERT_EQ(m, next[size_t(p)]) << "publisher " << p << " out of order: " << f;
      ++next[size_t(p)];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, PubSubTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
