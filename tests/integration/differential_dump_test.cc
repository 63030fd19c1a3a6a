// DUMP and RESTORE against redis-server 7.0.15 (1, 2 and 3 threads): payloads of every
// type and encoding go both ways (redis-server's into ringcache; ringcache's into
// redis-server, which checks them deeply with sanitize-dump-payload yes, and back again
// from redis-server's DUMP of what they became) and give equal values in the encoding
// Redis gives them; compact encodings' payloads are byte for byte Redis's. Every reply and
// error of RESTORE's options, TTLs and malformed payloads is compared too.

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/dump_test_util.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class DiffDumpTest : public DiffTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(DiffTest::SetUp());
    ASSERT_EQ(redisc_->Cmd({"CONFIG", "SET", "sanitize-dump-payload", "yes"}), "+OK");
  }
};

// A byte string from a literal, NULs included.
template <size_t N>
std::string B(const char (&s)[N]) {
  return std::string(s, N - 1);
}

struct Case {
  std::string name;
  std::vector<Args> setup;  // builds key "k" on both servers
  bool same_bytes;          // a compact encoding: the payloads must be identical
};

Args Push(std::string cmd, const std::string& key, const std::vector<std::string>& items) {
  Args a = {std::move(cmd), key};
  a.insert(a.end(), items.begin(), items.end());
  return a;
}

std::vector<std::string> Numbered(const std::string& prefix, int n, int step = 1) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i * step));
  return out;
}

// Pairs for HSET / ZADD: (score or field, member or value).
std::vector<std::string> Pairs(int n, const std::string& a, const std::string& b) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(a + std::to_string(i));
    out.push_back(b + std::to_string(i * 7));
  }
  return out;
}

std::string Noise(size_t n) {
  std::string s;
  uint32_t x = 12345;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1103515245 + 12345;
    s.push_back(char(x >> 24));
  }
  return s;
}

std::vector<Case> Cases() {
  std::vector<std::string> scores;
  for (int i = 0; i < 200; ++i) {
    scores.push_back(std::to_string(i * 1.5 - 40));
    scores.push_back("m" + std::to_string(i));
  }
  return {
      {"string", {{"SET", "k", "hello"}}, true},
      {"int", {{"SET", "k", "-12345"}}, true},
      {"long int", {{"SET", "k", "123456789012"}}, true},
      {"lzf string", {{"SET", "k", std::string(300, 'a') + "tail"}}, true},
      {"binary string", {{"SET", "k", Noise(5000)}}, true},
      {"string with ttl", {{"SET", "k", "v", "PX", "100000"}}, true},
      {"small list",
       {{"RPUSH", "k", "a", "1", "-1", "300", "-5000", "70000", "3000000000", "x y"}},
       true},
      {"big list", {Push("RPUSH", "k", Numbered("element", 3000))}, true},
      {"list of big elements",
       {{"RPUSH", "k", std::string(9000, 'b'), "small", Noise(20000), "9"}},
       true},
      {"intset", {{"SADD", "k", "1", "2", "-3", "100000"}}, true},
      {"64-bit intset", {{"SADD", "k", "1", "-9223372036854775808", "9223372036854775807"}}, true},
      {"intset past its limit", {Push("SADD", "k", Numbered("", 600, 3))}, false},
      {"one-member set", {{"SADD", "k", "member"}}, true},
      {"small string set", {Push("SADD", "k", Numbered("s", 100))}, false},
      {"big set", {Push("SADD", "k", Numbered("s", 1000))}, false},
      {"listpack zset",
       {{"ZADD", "k", "1", "a", "1.1", "b", "-0", "c", "inf", "d", "5e18", "e"}},
       true},
      {"skiplist zset", {Push("ZADD", "k", scores)}, true},
      {"zset with a long member", {{"ZADD", "k", "1", std::string(70, 'm'), "2", "n"}}, true},
      {"listpack hash", {{"HSET", "k", "f", "v", "n", "123", "neg", "-70000", "e", ""}}, true},
      {"big hash", {Push("HSET", "k", Pairs(600, "field", "value"))}, false},
      {"hash with a long value", {{"HSET", "k", "f", std::string(100, 'v'), "g", "h"}}, false},
  };
}

TEST_P(DiffDumpTest, PayloadsInterchangeForEveryTypeAndEncoding) {
  int n = 0;
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    Same({"DEL", "k"});
    Script(c.setup);
    const std::string theirs = DumpOf(*redisc_, "k"), ours = DumpOf(*rcc_, "k");
    ASSERT_FALSE(theirs.empty());
    ASSERT_FALSE(ours.empty());
    if (c.same_bytes) {
      EXPECT_EQ(ours, theirs);
    }
    // Each payload into the other server, under a key of its own that both then hold.
    const std::string from_redis = absl::StrCat("from_redis", n),
                      from_rc = absl::StrCat("from_rc", n++);
    EXPECT_EQ(rcc_->Cmd({"RESTORE", from_redis, "0", theirs}), "+OK");
    EXPECT_EQ(redisc_->Cmd({"RESTORE", from_rc, "0", ours}), "+OK");
    EXPECT_EQ(redisc_->Cmd({"RESTORE", from_redis, "0", theirs}), "+OK");
    EXPECT_EQ(rcc_->Cmd({"RESTORE", from_rc, "0", ours}), "+OK");
    const std::string want = ValueOf(*redisc_, "k");
    EXPECT_EQ(ValueOf(*rcc_, "k"), want);
    for (const std::string& key : {from_redis, from_rc}) {
      Same({"OBJECT", "ENCODING", key});
      EXPECT_EQ(ValueOf(*rcc_, key), want);
      EXPECT_EQ(ValueOf(*redisc_, key), want);
    }
    // What redis-server made of our payload, dumped by it, reads back here the same.
    const std::string again = absl::StrCat("again", n);
    EXPECT_EQ(rcc_->Cmd({"RESTORE", again, "0", DumpOf(*redisc_, from_rc)}), "+OK");
    EXPECT_EQ(ValueOf(*rcc_, again), want);
  }
}

TEST_P(DiffDumpTest, TtlsAndOptions) {
  const std::string payload = DumpOf(*redisc_, "none");
  EXPECT_EQ(payload, "");
  Same({"SET", "src", "value"});
  const std::string p = DumpOf(*redisc_, "src");
  ASSERT_EQ(DumpOf(*rcc_, "src"), p);
  Script({
      {"RESTORE", "a", "100000", p},
      {"RESTORE", "b", "0", p},
      {"TTL", "b"},
      {"RESTORE", "b", "0", p},
      {"RESTORE", "b", "5000", p, "REPLACE"},
      {"RESTORE", "c", "1", p, "ABSTTL"},  // long past: OK, nothing created
      {"EXISTS", "c"},
      {"RESTORE", "b", "1", p, "ABSTTL", "REPLACE"},  // past: the old key goes
      {"EXISTS", "b"},
      {"RESTORE", "d", "99999999999999", p, "ABSTTL"},
      {"PEXPIRETIME", "d"},
      {"RESTORE", "e", "0", p, "IDLETIME", "100"},
      {"RESTORE", "f", "0", p, "FREQ", "100"},
      {"RESTORE", "g", "0", p, "idletime", "0", "replace", "absttl"},
      {"GET", "g"},
  });
  const int64_t ttl = IntCmd(*rcc_, {"PTTL", "a"});
  EXPECT_GT(ttl, 90000);
  EXPECT_LE(ttl, 100000);
}

TEST_P(DiffDumpTest, Errors) {
  Same({"SET", "k", "v"});
  const std::string p = DumpOf(*redisc_, "k");
  std::string flipped = p;
  flipped[1] ^= 1;
  std::string crc_zero = p.substr(0, p.size() - 8) + std::string(8, '\0');
  Script({
      {"DUMP"},
      {"DUMP", "a", "b"},
      {"RESTORE", "k", "0"},
      {"RESTORE", "k", "0", p},  // BUSYKEY
      {"RESTORE", "n", "-1", p},
      {"RESTORE", "n", "x", p},
      {"RESTORE", "k", "x", p},  // BUSYKEY first
      {"RESTORE", "k", "x", p, "REPLACE"},
      {"RESTORE", "n", "0", "short"},
      {"RESTORE", "n", "0", ""},
      {"RESTORE", "n", "0", flipped},
      {"RESTORE", "n", "0", crc_zero},
      {"RESTORE", "n", "0",
       WithFooter(B("\x00\x01"
                    "a"),
                  11)},                                  // a later RDB version
      {"RESTORE", "n", "0", WithFooter(B("\x00\xc5"))},  // bad string encoding
      {"RESTORE", "n", "0", WithFooter(B("\x0f\x00"))},  // a stream: not ours
      {"RESTORE", "n", "0", WithFooter(B("\x02\x00"))},  // empty set
      {"RESTORE", "n", "0",
       WithFooter(B("\x02\x02\x01"
                    "a\x01"
                    "a"))},  // duplicate
      {"RESTORE", "n", "0",
       WithFooter(B("\x00\x01"
                    "abc"))},  // trailing bytes: accepted
      {"GET", "n"},
      {"RESTORE", "n2", "0",
       WithFooter(B("\x00\x05"
                    "hello"),
                  9)},  // an older version
      {"GET", "n2"},
      {"RESTORE", "m", "0", p, "IDLETIME", "5", "FREQ", "3"},
      {"RESTORE", "m", "0", p, "FREQ", "3", "IDLETIME", "5"},
      {"RESTORE", "m", "0", p, "IDLETIME", "-1"},
      {"RESTORE", "m", "0", p, "IDLETIME", "x"},
      {"RESTORE", "m", "0", p, "IDLETIME"},
      {"RESTORE", "m", "0", p, "FREQ", "256"},
      {"RESTORE", "m", "0", p, "FREQ", "-1"},
      {"RESTORE", "m", "0", p, "NOSUCH"},
      {"RESTORE", "m", "0", p, "REPLACE", "REPLACE", "ABSTTL", "ABSTTL"},
      {"EXISTS", "m"},
  });
}

// RESTORE is a write: WATCH hears it, across threads too.
TEST_P(DiffDumpTest, RestoreTouchesWatchers) {
  Same({"SET", "k", "v"});
  const std::string p = DumpOf(*redisc_, "k");
  for (Client* c : {rcc_.get(), redisc_.get()}) {
    const bool ours = c == rcc_.get();
    std::unique_ptr<Client> other = ours ? NewClient() : nullptr;
    std::string error;
    if (!ours) other = Client::Connect(redis_->port(), &error);
    ASSERT_TRUE(other) << error;
    EXPECT_EQ(c->Cmd({"WATCH", "w"}), "+OK");
    EXPECT_EQ(other->Cmd({"RESTORE", "w", "0", p}), "+OK");
    EXPECT_EQ(c->Cmd({"MULTI"}), "+OK");
    EXPECT_EQ(c->Cmd({"GET", "w"}), "+QUEUED");
    EXPECT_EQ(c->Cmd({"EXEC"}), "(nil-array)") << (ours ? "ringcache" : "redis");
  }
}

// Events of one server's commands, up to the "set" of key {t}end, the marker.
std::vector<std::string> EventsUntilMarker(RawConn& sub) {
  std::vector<std::string> events;
  for (int i = 0; i < 100; ++i) {
    std::string ev = sub.ReadReply();
    if (ev.find("{t}end") != std::string::npos || ev[0] == '!') break;
    events.push_back(ev);
  }
  return events;
}

// RESTORE raises "new" and "restore"; a TTL already past raises nothing, or "del" when
// REPLACE removed a key. Keys share a shard ({t}), so their order is the shard's.
TEST_P(DiffDumpTest, KeyspaceEvents) {
  std::vector<std::unique_ptr<RawConn>> subs;
  for (Client* c : {redisc_.get(), rcc_.get()}) {
    ASSERT_EQ(c->Cmd({"CONFIG", "SET", "notify-keyspace-events", "KEAn"}), "+OK");
    subs.push_back(NewRaw(c == rcc_.get() ? rc_->port() : redis_->port()));
    ASSERT_TRUE(subs.back()->Send(EncodeCommand({"PSUBSCRIBE", "__key*__:*"})));
    ASSERT_NE(subs.back()->ReadReply(), "!TIMEOUT");
  }
  Same({"SET", "{t}src", "v"});
  const std::string p = DumpOf(*redisc_, "{t}src");
  Script({
      {"RESTORE", "{t}a", "0", p},
      {"RESTORE", "{t}a", "0", p},
      {"RESTORE", "{t}a", "100000", p, "REPLACE"},
      {"RESTORE", "{t}a", "1", p, "ABSTTL", "REPLACE"},
      {"RESTORE", "{t}b", "1", p, "ABSTTL"},
      {"RESTORE", "{t}b", "0", "bad"},
      {"SET", "{t}end", "x"},
  });
  const std::vector<std::string> want = EventsUntilMarker(*subs[0]);
  EXPECT_EQ(EventsUntilMarker(*subs[1]), want);
  EXPECT_EQ(want.size(), 14u);  // new+set, new+restore twice, del: each on two channels
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffDumpTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
