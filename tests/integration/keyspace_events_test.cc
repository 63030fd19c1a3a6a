// Keyspace notifications for expired keys (notify-keyspace-events with x): with E every
// subscriber of __keyevent@0__:expired (or of a pattern matching it) hears each expired key
// exactly once, whichever shard expired it and whichever thread the subscriber is on; with
// K __keyspace@0__:<key> hears "expired"; without x, or without K and E, nothing is sent.
// Against redis-server: CONFIG SET/GET parsing and formatting, and the exact frames of a
// few lazily expired keys.
//
// "Nothing else arrived" is checked without sleeping: once every key is gone (DBSIZE 0)
// all events are already on their way to the subscriber, so the test PUBLISHes a marker on
// the subscribed channel and expects it as the very next frame.

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"
#include "tests/integration/polling.h"

namespace rc::it {
namespace {

const std::string kEventChannel = "__keyevent@0__:expired";

class KeyspaceEventsTest : public RingcacheTest {
 protected:
  std::unique_ptr<RawConn> Subscriber(const Args& subscribe) {
    std::unique_ptr<RawConn> c = NewRaw(rc_->port());
    if (!c) return c;
    EXPECT_TRUE(c->Send(EncodeCommand(subscribe)));
    for (size_t i = 1; i < subscribe.size(); ++i) {
      std::string r = c->ReadReply();
      EXPECT_EQ(r.rfind("*[$" + absl::AsciiStrToLower(subscribe[0]) + ",", 0), 0u) << r;
    }
    return c;
  }
  void Config(const std::string& flags) {
    ASSERT_EQ(rcc_->Cmd({"CONFIG", "SET", "notify-keyspace-events", flags}), "+OK");
  }
  // SET key v PXAT `at` for every key, pipelined.
  void SetAll(const std::vector<std::string>& keys, int64_t at) {
    for (const std::string& k : keys) rcc_->Append({"SET", k, "v", "PXAT", std::to_string(at)});
    for (const std::string& k : keys) ASSERT_EQ(rcc_->GetReply(), "+OK") << k;
  }
  bool WaitDbSize(int64_t n) {
    return PollUntil([&] { return IntCmd(*rcc_, {"DBSIZE"}) == n; }, kEventually, milliseconds(5));
  }
  // Reads `n` frames from `c` and returns how often each key was named, checking the frame
  // shape: [message, channel, key] or [pmessage, pattern, channel, key].
  std::map<std::string, int> ReadKeyEvents(RawConn& c, size_t n, const std::string& pattern) {
    std::map<std::string, int> seen;
    std::vector<std::string> frames = c.ReadReplies(n, kEventually);
    EXPECT_EQ(frames.size(), n) << "events missing";
    const std::string prefix = pattern.empty()
                                   ? "*[$message,$" + kEventChannel + ",$"
                                   : "*[$pmessage,$" + pattern + ",$" + kEventChannel + ",$";
    for (const std::string& f : frames) {
      if (f.rfind(prefix, 0) != 0 || f.back() != ']') {
        ADD_FAILURE() << "unexpected frame " << f;
        continue;
      }
      ++seen[f.substr(prefix.size(), f.size() - prefix.size() - 1)];
    }
    return seen;
  }
  // PUBLISHes a marker on `channel` and expects it as `c`'s next frame.
  void ExpectNothingBeforeMarker(const std::vector<RawConn*>& subs, const std::string& channel,
                                 const std::vector<std::string>& frames) {
    std::string marker = absl::StrCat("marker-", ++markers_);
    EXPECT_EQ(rcc_->Cmd({"PUBLISH", channel, marker}), absl::StrCat(":", subs.size()));
    for (size_t i = 0; i < subs.size(); ++i) {
      std::string want = frames[i];
      want.replace(want.find("MARKER"), 6, marker);
      EXPECT_EQ(subs[i]->ReadReply(), want) << "subscriber " << i;
    }
  }
  int markers_ = 0;
};

TEST_P(KeyspaceEventsTest, ExpiredEventOncePerKeyForEverySubscriber) {
  Config("Ex");
  EXPECT_EQ(rcc_->Cmd({"CONFIG", "GET", "notify-keyspace-events"}),
            "*[$notify-keyspace-events,$xE]");
  // Several subscribers of each kind, so that with several threads they sit on several.
  std::vector<std::unique_ptr<RawConn>> subs, psubs;
  for (int i = 0; i < 3; ++i) {
    subs.push_back(Subscriber({"SUBSCRIBE", kEventChannel}));
    psubs.push_back(Subscriber({"PSUBSCRIBE", "__keyevent@0__:*"}));
    ASSERT_TRUE(subs.back() && psubs.back());
  }
  constexpr int kKeys = 1000;
  std::vector<std::string> keys;
  std::vector<int> per_shard(size_t(threads()), 0);
  for (int i = 0; i < kKeys; ++i) {
    keys.push_back(absl::StrCat("ev:", i));
    ++per_shard[size_t(ShardOf(keys.back(), threads()))];
  }
  for (int n : per_shard) ASSERT_GT(n, kKeys / threads() / 2);  // spread over every shard
  ASSERT_NO_FATAL_FAILURE(SetAll(keys, NowUnixMs() + 200));

  std::map<std::string, int> want;
  for (const std::string& k : keys) want[k] = 1;
  for (size_t i = 0; i < subs.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("subscriber ", i));
    EXPECT_EQ(ReadKeyEvents(*subs[i], kKeys, ""), want);
    EXPECT_EQ(ReadKeyEvents(*psubs[i], kKeys, "__keyevent@0__:*"), want);
  }
  ASSERT_TRUE(WaitDbSize(0));
  EXPECT_EQ(InfoInt(*rcc_, "stats", "expired_keys"), kKeys);
  // No duplicates trailing behind.
  std::vector<RawConn*> all;
  std::vector<std::string> frames;
  for (size_t i = 0; i < subs.size(); ++i) {
    all.push_back(subs[i].get());
    frames.push_back("*[$message,$" + kEventChannel + ",$MARKER]");
    all.push_back(psubs[i].get());
    frames.push_back("*[$pmessage,$__keyevent@0__:*,$" + kEventChannel + ",$MARKER]");
  }
  ExpectNothingBeforeMarker(all, kEventChannel, frames);
}

TEST_P(KeyspaceEventsTest, KeyspaceChannelHearsExpired) {
  Config("Kx");
  EXPECT_EQ(rcc_->Cmd({"CONFIG", "GET", "notify-keyspace-events"}),
            "*[$notify-keyspace-events,$xK]");
  std::vector<std::string> keys;
  for (int s = 0; s < threads(); ++s) {
    for (std::string& k : KeysOnShard("ks:", s, threads(), 100)) keys.push_back(std::move(k));
  }
  auto one = Subscriber({"SUBSCRIBE", "__keyspace@0__:" + keys.back()});
  auto all = Subscriber({"PSUBSCRIBE", "__keyspace@0__:*"});
  auto events = Subscriber({"PSUBSCRIBE", "__keyevent@0__:*"});
  ASSERT_TRUE(one && all && events);
  ASSERT_NO_FATAL_FAILURE(SetAll(keys, NowUnixMs() + 100));

  EXPECT_EQ(one->ReadReply(kEventually),
            "*[$message,$__keyspace@0__:" + keys.back() + ",$expired]");
  std::vector<std::string> frames = all->ReadReplies(keys.size(), kEventually);
  ASSERT_EQ(frames.size(), keys.size());
  std::set<std::string> got(frames.begin(), frames.end()), want;
  for (const std::string& k : keys) {
    want.insert("*[$pmessage,$__keyspace@0__:*,$__keyspace@0__:" + k + ",$expired]");
  }
  EXPECT_EQ(got, want);
  ASSERT_TRUE(WaitDbSize(0));
  // Nothing more on the keyspace channels, and nothing at all on the keyevent ones.
  ExpectNothingBeforeMarker(
      {one.get(), all.get()}, "__keyspace@0__:" + keys.back(),
      {"*[$message,$__keyspace@0__:" + keys.back() + ",$MARKER]",
       "*[$pmessage,$__keyspace@0__:*,$__keyspace@0__:" + keys.back() + ",$MARKER]"});
  ExpectNothingBeforeMarker({events.get()}, kEventChannel,
                            {"*[$pmessage,$__keyevent@0__:*,$" + kEventChannel + ",$MARKER]"});
}

TEST_P(KeyspaceEventsTest, KeyspaceAndKeyeventTogether) {
  // Only x: with A the SETs below would raise "set" and "expire" too.
  Config("KEx");
  EXPECT_EQ(rcc_->Cmd({"CONFIG", "GET", "notify-keyspace-events"}),
            "*[$notify-keyspace-events,$xKE]");
  auto sub = Subscriber({"PSUBSCRIBE", "__key*@0__:*"});
  ASSERT_TRUE(sub);
  std::vector<std::string> keys;
  for (int s = 0; s < threads(); ++s) {
    for (std::string& k : KeysOnShard("both:", s, threads(), 20)) keys.push_back(std::move(k));
  }
  ASSERT_NO_FATAL_FAILURE(SetAll(keys, NowUnixMs() + 50));
  std::vector<std::string> frames = sub->ReadReplies(2 * keys.size(), kEventually);
  ASSERT_EQ(frames.size(), 2 * keys.size());
  std::multiset<std::string> got(frames.begin(), frames.end()), want;
  for (const std::string& k : keys) {
    want.insert("*[$pmessage,$__key*@0__:*,$__keyspace@0__:" + k + ",$expired]");
    want.insert("*[$pmessage,$__key*@0__:*,$" + kEventChannel + ",$" + k + "]");
  }
  EXPECT_EQ(got, want);
  ASSERT_TRUE(WaitDbSize(0));
  ExpectNothingBeforeMarker({sub.get()}, kEventChannel,
                            {"*[$pmessage,$__key*@0__:*,$" + kEventChannel + ",$MARKER]"});
}

// Without the x class, or without K and E, expiring keys publishes nothing. (g, $ and n
// are left out where K or E is on: the SETs themselves raise "expire", "set" and "new".)
TEST_P(KeyspaceEventsTest, NothingWithoutExpiredClassOrTarget) {
  auto events = Subscriber({"PSUBSCRIBE", "__key*__:*"});
  ASSERT_TRUE(events);
  int64_t expired = 0;
  for (const char* flags : {"", "E", "K", "KE", "x", "g$lshzetdn", "KElshzetdm"}) {
    SCOPED_TRACE(absl::StrCat("notify-keyspace-events '", flags, "'"));
    Config(flags);
    std::vector<std::string> keys;
    for (int s = 0; s < threads(); ++s) {
      for (std::string& k : KeysOnShard(absl::StrCat("off", flags, ":"), s, threads(), 30)) {
        keys.push_back(std::move(k));
      }
    }
    ASSERT_NO_FATAL_FAILURE(SetAll(keys, NowUnixMs() + 20));
    ASSERT_TRUE(WaitDbSize(0));
    expired += int64_t(keys.size());
    EXPECT_EQ(InfoInt(*rcc_, "stats", "expired_keys"), expired);
    ExpectNothingBeforeMarker({events.get()}, "__keyevent@0__:x",
                              {"*[$pmessage,$__key*__:*,$__keyevent@0__:x,$MARKER]"});
  }
}

// Only expiry is an "expired" event: EXPIRE/GETEX with a past deadline and DEL delete.
TEST_P(KeyspaceEventsTest, DeletionsAreNotExpiredEvents) {
  Config("KEx");
  auto sub = Subscriber({"PSUBSCRIBE", "__key*__:*"});
  ASSERT_TRUE(sub);
  std::vector<std::string> keys;
  for (int s = 0; s < threads(); ++s) keys.push_back(KeysOnShard("del:", s, threads(), 1)[0]);
  for (const std::string& k : keys) {
    ASSERT_EQ(rcc_->Cmd({"SET", k, "v", "EX", "100"}), "+OK");
    ASSERT_EQ(rcc_->Cmd({"EXPIRE", k, "-1"}), ":1");
    ASSERT_EQ(rcc_->Cmd({"SET", k, "v"}), "+OK");
    ASSERT_EQ(rcc_->Cmd({"PEXPIREAT", k, "1"}), ":1");
    ASSERT_EQ(rcc_->Cmd({"SET", k, "v", "EX", "100"}), "+OK");
    ASSERT_EQ(rcc_->Cmd({"GETEX", k, "EXAT", "1"}), "$v");
    ASSERT_EQ(rcc_->Cmd({"SET", k, "v", "EX", "100"}), "+OK");
    ASSERT_EQ(rcc_->Cmd({"DEL", k}), ":1");
  }
  EXPECT_EQ(IntCmd(*rcc_, {"DBSIZE"}), 0);
  EXPECT_EQ(InfoInt(*rcc_, "stats", "expired_keys"), 0);
  ExpectNothingBeforeMarker({sub.get()}, "__keyevent@0__:x",
                            {"*[$pmessage,$__key*__:*,$__keyevent@0__:x,$MARKER]"});
  // A key written already expired (SET ... PXAT in the past) does expire, once.
  ASSERT_EQ(rcc_->Cmd({"SET", keys[0], "v", "PXAT", "1"}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"GET", keys[0]}), "(nil)");
  std::vector<std::string> frames = sub->ReadReplies(2, kEventually);
  std::multiset<std::string> got(frames.begin(), frames.end());
  EXPECT_EQ(got, (std::multiset<std::string>{
                     "*[$pmessage,$__key*__:*,$__keyspace@0__:" + keys[0] + ",$expired]",
                     "*[$pmessage,$__key*__:*,$" + kEventChannel + ",$" + keys[0] + "]"}));
  ExpectNothingBeforeMarker({sub.get()}, "__keyevent@0__:x",
                            {"*[$pmessage,$__key*__:*,$__keyevent@0__:x,$MARKER]"});
}

// Turning notifications off and on again takes effect at once, on every shard.
TEST_P(KeyspaceEventsTest, ConfigChangesApplyImmediately) {
  auto sub = Subscriber({"SUBSCRIBE", kEventChannel});
  ASSERT_TRUE(sub);
  std::vector<std::string> keys;
  for (int s = 0; s < threads(); ++s) keys.push_back(KeysOnShard("cfg:", s, threads(), 1)[0]);
  for (int round = 0; round < 2; ++round) {
    Config("Ex");
    ASSERT_NO_FATAL_FAILURE(SetAll(keys, NowUnixMs() + 20));
    std::vector<std::string> frames = sub->ReadReplies(keys.size(), kEventually);
    std::set<std::string> got(frames.begin(), frames.end()), want;
    for (const std::string& k : keys) want.insert("*[$message,$" + kEventChannel + ",$" + k + "]");
    EXPECT_EQ(got, want);
    ASSERT_TRUE(WaitDbSize(0));
    Config("");
    ASSERT_NO_FATAL_FAILURE(SetAll(keys, NowUnixMs() + 20));
    ASSERT_TRUE(WaitDbSize(0));
    ExpectNothingBeforeMarker({sub.get()}, kEventChannel,
                              {"*[$message,$" + kEventChannel + ",$MARKER]"});
  }
}

// Subscribers that disconnect while events for them are in flight from other threads must
// not break delivery to the others, nor the server (a freed connection must never be
// written to: run under ASan/TSan this is where it would show).
TEST_P(KeyspaceEventsTest, SubscribersLeavingWhileKeysExpire) {
  Config("KEx");
  auto stayer = Subscriber({"SUBSCRIBE", kEventChannel});
  ASSERT_TRUE(stayer);
  std::vector<std::unique_ptr<RawConn>> leavers;
  for (int i = 0; i < 8; ++i) {
    leavers.push_back(Subscriber({"PSUBSCRIBE", i % 2 ? "__key*__:*" : "*"}));
    ASSERT_TRUE(leavers.back());
  }
  std::vector<std::string> keys;
  for (int i = 0; i < 5000; ++i) keys.push_back(absl::StrCat("leave:", i));
  int64_t at = NowUnixMs() + 100;
  ASSERT_NO_FATAL_FAILURE(SetAll(keys, at));
  ASSERT_TRUE(PollUntil([&] { return NowUnixMs() >= at; }));
  // Half leave at once, half after reading a few events (mid-stream).
  for (size_t i = 0; i < leavers.size(); i += 2) leavers[i].reset();
  for (size_t i = 1; i < leavers.size(); i += 2) {
    EXPECT_EQ(leavers[i]->ReadReplies(10, kEventually).size(), 10u);
    leavers[i].reset();
  }
  std::map<std::string, int> want;
  for (const std::string& k : keys) want[k] = 1;
  EXPECT_EQ(ReadKeyEvents(*stayer, keys.size(), ""), want);
  ASSERT_TRUE(WaitDbSize(0));
  EXPECT_TRUE(PollUntil(
      [&] {
        return rcc_->Cmd({"PUBSUB", "NUMPAT"}) == ":0";
      },
      kEventually, milliseconds(5)));
  ExpectNothingBeforeMarker({stayer.get()}, kEventChannel,
                            {"*[$message,$" + kEventChannel + ",$MARKER]"});
  EXPECT_EQ(rcc_->Cmd({"PING"}), "+PONG");
}

INSTANTIATE_TEST_SUITE_P(Threads, KeyspaceEventsTest, ::testing::Values(1, 2, 3), ThreadsName);

class DiffKeyspaceEventsTest : public DiffTest {
 protected:
  // A subscriber to every keyspace and keyevent channel on each server.
  void Subscribe() {
    redis_sub_ = NewRaw(redis_->port());
    rc_sub_ = NewRaw(rc_->port());
    ASSERT_TRUE(redis_sub_ && rc_sub_);
    const std::string psub = EncodeCommand({"PSUBSCRIBE", "__key*@0__:*"});
    ASSERT_TRUE(redis_sub_->Send(psub) && rc_sub_->Send(psub));
    EXPECT_EQ(rc_sub_->ReadReply(), redis_sub_->ReadReply());
  }
  // Every frame each subscriber got so far must be the same: `events` of them.
  void ExpectSameEvents(size_t events) {
    const std::string ping = EncodeCommand({"PING", "sync"});
    // Once the PING's answer is in, every event is (PUBLISH-style delivery, same thread).
    ASSERT_TRUE(redis_sub_->Send(ping));
    std::vector<std::string> want;
    for (;;) {
      std::string r = redis_sub_->ReadReply();
      want.push_back(r);
      if (r == "*[$pong,$sync]" || r[0] == '!') break;
    }
    ASSERT_EQ(want.size(), events + 1);
    // ringcache publishes from the owning shard at the end of its loop turn: wait for all
    // events, then the PING.
    std::vector<std::string> got = rc_sub_->ReadReplies(events, kEventually);
    ASSERT_TRUE(rc_sub_->Send(ping));
    got.push_back(rc_sub_->ReadReply());
    EXPECT_EQ(got, want);
  }

  std::unique_ptr<RawConn> redis_sub_, rc_sub_;
};

TEST_P(DiffKeyspaceEventsTest, ConfigParsingAndFormatting) {
  Same({"CONFIG", "GET", "notify-keyspace-events"});
  for (const char* flags :
       {"KEA",   "Ex",          "xE",         "Kx",  "KEx",  "A",  "AK",  "AE",   "Am", "An",
        "KEAmn", "g$lshzxetdn", "g$lshzxetd", "$g",  "xxKK", "m",  "n",   "KEAx", "E",  "K",
        "",      "Z",           "k",          "kea", "KE A", "x!", "ExZ", "AKEm"}) {
    SCOPED_TRACE(absl::StrCat("'", flags, "'"));
    Same({"CONFIG", "SET", "notify-keyspace-events", flags});
    Same({"CONFIG", "GET", "notify-keyspace-events"});
  }
  Same({"CONFIG", "SET", "notify-keyspace-events"});
  Same({"CONFIG", "GET", "notify-keyspace-*"});
}

// The exact frames, in order, for keys on every shard expired one at a time (each read
// after its deadline, so lazily unless active expiry got there first): the keyspace
// message before the keyevent one, as Redis's notifyKeyspaceEvent publishes them.
TEST_P(DiffKeyspaceEventsTest, ExpiredFramesMatchRedis) {
  Same({"CONFIG", "SET", "notify-keyspace-events", "KEx"});
  ASSERT_NO_FATAL_FAILURE(Subscribe());
  for (int s = 0; s < threads(); ++s) {
    std::string key = KeysOnShard("lazy", s, threads(), 1)[0];
    Same({"SET", key, "v", "PXAT", "1"});
    Same({"GET", key});
    // Deleted, not expired: no event.
    Same({"SET", key, "v"});
    Same({"EXPIRE", key, "-1"});
  }
  ExpectSameEvents(size_t(2 * threads()));
}

// Events of the bitmap commands (setbit, set and del from BITOP) and COPY (copy_to), in
// Redis's order, for keys on every shard. Every other command's events:
// test_keyspace_events_diff.py.
TEST_P(DiffKeyspaceEventsTest, CommandEventFramesMatchRedis) {
  std::vector<std::string> keys;
  for (int s = 0; s < threads(); ++s) keys.push_back(KeysOnShard("cmd", s, threads(), 1)[0]);
  Same({"SET", "src", "abc"});
  Same({"CONFIG", "SET", "notify-keyspace-events", "KEA"});
  ASSERT_NO_FATAL_FAILURE(Subscribe());
  for (const std::string& key : keys) {
    Same({"SETBIT", key, "3", "1"});
    Same({"SETBIT", key, "3", "1"});  // no change, no event
    Same({"SETBIT", key, "3", "0"});
    Same({"SETBIT", key, "100", "0"});  // grows the string: an event
    Same({"BITFIELD", key, "INCRBY", "u8", "8", "1"});
    Same({"BITFIELD", key, "GET", "u8", "8"});
    Same({"BITFIELD", key, "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "100"});  // refused: none
    Same({"BITOP", "OR", key, key, "src"});
    Same({"BITOP", "AND", key, "missing"});
    Same({"BITOP", "AND", key, "missing"});
    Same({"COPY", "src", key});
    Same({"COPY", "src", key, "REPLACE"});
  }
  // Per key: setbit four times, set, del, copy_to twice; each on both channels.
  ExpectSameEvents(size_t(16 * threads()));
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffKeyspaceEventsTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
