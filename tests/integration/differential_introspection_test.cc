// Introspection commands against redis-server 7.0.15, reply for reply: OBJECT, MEMORY
// USAGE errors, SLOWLOG/LATENCY/CLIENT/FUNCTION argument errors, the new CONFIG settings,
// and which INFO sections each selector returns (values differ, names and order must not).

#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class DiffIntrospectionTest : public DiffTest {
 protected:
  // The "# Section" headers of INFO <args> on one server, in order.
  static std::vector<std::string> Sections(Client& c, const Args& args) {
    Client::ReplyPtr r = c.RawCmd(args);
    EXPECT_TRUE(r && r->type == REDIS_REPLY_STRING) << Describe(args);
    std::vector<std::string> out;
    if (!r || r->type != REDIS_REPLY_STRING) return out;
    std::string text(r->str, r->len);
    size_t pos = 0;
    while ((pos = text.find("# ", pos)) != std::string::npos) {
      if (pos == 0 || text[pos - 1] == '\n') out.push_back(text.substr(pos, text.find('\r', pos) - pos));
      pos += 2;
    }
    return out;
  }
};

TEST_P(DiffIntrospectionTest, InfoSectionSelectors) {
  const std::vector<Args> selectors = {
      {"INFO"},          {"INFO", "default"},        {"INFO", "all"},
      {"INFO", "everything"}, {"INFO", "server", "clients"}, {"INFO", "CPU"},
      {"INFO", "commandstats", "cpu"}, {"INFO", "default", "commandstats"},
      {"INFO", "Keyspace"}, {"INFO", "errorstats"}, {"INFO", "latencystats"},
      {"INFO", "modules"},  {"INFO", "cluster"},  {"INFO", "bogus"}};
  rcc_->Cmd({"GET", "k"});
  redisc_->Cmd({"GET", "k"});
  for (const Args& args : selectors) {
    EXPECT_EQ(Sections(*rcc_, args), Sections(*redisc_, args)) << Describe(args);
  }
  Same({"INFO", "bogus"});
  Same({"INFO", "cluster"});
}

TEST_P(DiffIntrospectionTest, ObjectEncodingAndErrors) {
  Script({{"SET", "i", "12345"},
          {"SET", "neg", "-42"},
          {"SET", "lead", "007"},
          {"SET", "negzero", "-0"},
          {"SET", "plus", "+5"},
          {"SET", "big", "99999999999999999999"},
          {"SET", "max", "9223372036854775807"},
          {"SET", "short", "hello"},
          {"SET", "e44", std::string(44, 'x')},
          {"SET", "e45", std::string(45, 'x')},
          {"ZADD", "zs", "1", "a", "2", "b"},
          {"ZADD", "zlong", "1", std::string(65, 'm')},
          {"ZADD", "z64", "1", std::string(64, 'm')}});
  for (const char* k : {"i", "neg", "lead", "negzero", "plus", "big", "max", "short", "e44",
                        "e45", "zs", "zlong", "z64", "missing"}) {
    Same({"OBJECT", "ENCODING", k});
  }
  Args zadd = {"ZADD", "zbig"};
  for (int i = 0; i < 129; ++i) {
    zadd.push_back(std::to_string(i));
    zadd.push_back("m" + std::to_string(i));
  }
  Same(zadd);
  Same({"OBJECT", "ENCODING", "zbig"});
  Script({{"SET", "small", "100"},
          {"OBJECT", "REFCOUNT", "small"},
          {"OBJECT", "REFCOUNT", "i"},
          {"OBJECT", "REFCOUNT", "short"},
          {"OBJECT", "REFCOUNT", "missing"},
          {"OBJECT", "FREQ", "i"},
          {"OBJECT", "FREQ", "missing"},
          {"OBJECT", "IDLETIME", "missing"},
          {"OBJECT", "ENCODING"},
          {"OBJECT", "ENCODING", "a", "b"},
          {"OBJECT", "FOO", "k"},
          {"OBJECT", "HELP"},
          {"OBJECT"}});
}

// MEMORY STATS names Redis 7.0's fields in its order, but its per-database "db.N" maps
// (ringcache has one keyspace per shard, not Redis's databases).
TEST_P(DiffIntrospectionTest, MemoryStatsFields) {
  auto fields = [](Client& c) {
    std::vector<std::string> out;
    Client::ReplyPtr r = c.RawCmd({"MEMORY", "STATS"});
    EXPECT_TRUE(r && r->type == REDIS_REPLY_ARRAY);
    if (!r || r->type != REDIS_REPLY_ARRAY) return out;
    for (size_t i = 0; i + 1 < r->elements; i += 2) {
      std::string name(r->element[i]->str, r->element[i]->len);
      if (name.rfind("db.", 0) != 0) out.push_back(name);
    }
    return out;
  };
  EXPECT_EQ(fields(*rcc_), fields(*redisc_));
}

TEST_P(DiffIntrospectionTest, MemoryUsageArguments) {
  Script({{"SET", "k", "v"},
          {"MEMORY", "USAGE", "missing"},
          {"MEMORY", "USAGE", "k", "SAMPLES"},
          {"MEMORY", "USAGE", "k", "SAMPLES", "x"},
          {"MEMORY", "USAGE", "k", "BOGUS"},
          {"MEMORY", "USAGE"},
          {"MEMORY", "STATS", "x"},
          {"MEMORY", "PURGE"},
          {"MEMORY", "PURGE", "x"},
          {"MEMORY", "MALLOC-STATS", "x"},
          {"MEMORY", "HELP"},
          {"MEMORY", "FOO"}});
  Client::ReplyPtr r = rcc_->RawCmd({"MEMORY", "USAGE", "k", "SAMPLES", "0"});
  ASSERT_TRUE(r && r->type == REDIS_REPLY_INTEGER);
  EXPECT_GT(r->integer, 2);
}

TEST_P(DiffIntrospectionTest, SlowlogLatencyFunctionArguments) {
  Script({{"SLOWLOG", "GET", "abc"},
          {"SLOWLOG", "GET", "-5"},
          {"SLOWLOG", "RESET"},
          {"SLOWLOG", "LEN", "x"},
          {"SLOWLOG", "HELP"},
          {"SLOWLOG", "FOO"},
          {"LATENCY", "RESET"},
          {"LATENCY", "LATEST"},
          {"LATENCY", "FOO"},
          {"LATENCY", "HISTOGRAM", "nosuchcommand"},
          {"FUNCTION", "LIST"},
          {"FUNCTION", "FLUSH"},
          {"FUNCTION", "FLUSH", "ASYNC"},
          {"FUNCTION", "FLUSH", "SYNC"},
          {"FUNCTION", "FLUSH", "bogus"},
          // Redis lists pattern matches in hash order: ask for each name.
          {"CONFIG", "GET", "slowlog-log-slower-than"},
          {"CONFIG", "GET", "slowlog-max-len"},
          {"CONFIG", "GET", "latency-monitor-threshold"},
          {"CONFIG", "GET", "latency-tracking"},
          {"CONFIG", "SET", "slowlog-log-slower-than", "-2"},
          {"CONFIG", "SET", "slowlog-max-len", "-1"},
          {"CONFIG", "SET", "latency-tracking-info-percentiles", "50 abc"},
          {"CONFIG", "SET", "latency-tracking-info-percentiles", "50 101"},
          {"CONFIG", "SET", "latency-tracking-info-percentiles", "50.5 99.99"},
          {"CONFIG", "GET", "latency-tracking-info-percentiles"},
          {"CONFIG", "SET", "slowlog-max-len", "5"},
          {"CONFIG", "GET", "slowlog-max-len"}});
}

TEST_P(DiffIntrospectionTest, ClientArgumentErrors) {
  Script({{"CLIENT", "LIST", "TYPE", "bogus"},
          {"CLIENT", "LIST", "ID", "abc"},
          {"CLIENT", "LIST", "ID", "0"},
          {"CLIENT", "LIST", "ID", "-5", "999999"},
          {"CLIENT", "LIST", "FOO"},
          {"CLIENT", "KILL", "1.2.3.4:5"},
          {"CLIENT", "KILL", "ID", "0"},
          {"CLIENT", "KILL", "ID", "abc"},
          {"CLIENT", "KILL", "ID", "999999"},
          {"CLIENT", "KILL", "TYPE", "bogus"},
          {"CLIENT", "KILL", "TYPE", "pubsub"},
          {"CLIENT", "KILL", "USER", "nosuchuser"},
          {"CLIENT", "KILL", "SKIPME", "maybe"},
          {"CLIENT", "KILL", "ADDR"},
          {"CLIENT", "KILL", "BOGUS", "x"},
          {"CLIENT", "KILL", "ADDR", "1.2.3.4:5", "SKIPME", "yes"},
          {"CLIENT", "PAUSE", "abc"},
          {"CLIENT", "PAUSE", "-1"},
          {"CLIENT", "PAUSE", "10", "bogus"},
          {"CLIENT", "PAUSE"},
          {"CLIENT", "UNPAUSE"},
          {"CLIENT", "UNPAUSE", "x"},
          {"CLIENT", "NO-EVICT", "maybe"},
          {"CLIENT", "NO-EVICT", "on"},
          {"CLIENT", "NO-EVICT", "OFF"},
          {"CLIENT", "REPLY", "maybe"},
          {"CLIENT", "REPLY", "ON"},
          {"CLIENT", "GETREDIR"}});
}

// Redis's command stats for rejected and failed calls; the values that are timings differ,
// so only the counters are compared.
TEST_P(DiffIntrospectionTest, CommandStatsCounters) {
  const std::vector<Args> cmds = {
      {"CONFIG", "RESETSTAT"}, {"SET", "k", "v"}, {"GET", "k"},     {"GET"},
      {"INCR", "k"},           {"CONFIG", "FOO"}, {"CONFIG", "GET"}, {"NOSUCH"},
      {"ZADD", "k", "1", "a"}, {"GET", "k"},      {"CLIENT", "PAUSE", "1", "bogus"},
      // Commands inside EXEC count as calls of their own; a queued one that is refused
      // counts as rejected.
      {"MULTI"}, {"SET", "t", "1"}, {"INCR", "t"}, {"ZADD", "t", "1", "a"}, {"CONFIG", "GET", "port"},
      {"EXEC"}, {"MULTI"}, {"GET"}, {"EXEC"}};
  auto counters = [](Client& c) {
    Client::ReplyPtr r = c.RawCmd({"INFO", "commandstats"});
    std::string text(r->str, r->len);
    // cmdstat_x:calls=N,usec=N,usec_per_call=N,rejected_calls=N,failed_calls=N
    std::regex line(R"(cmdstat_([^:]+):calls=(\d+),usec=\d+,usec_per_call=[\d.]+,rejected_calls=(\d+),failed_calls=(\d+))");
    std::set<std::string> out;
    for (std::sregex_iterator it(text.begin(), text.end(), line), end; it != end; ++it) {
      if ((*it)[1] == "info") continue;
      out.insert(absl::StrCat((*it)[1].str(), " ", (*it)[2].str(), " ", (*it)[3].str(), " ",
                              (*it)[4].str()));
    }
    return out;
  };
  for (const Args& c : cmds) {
    redisc_->Cmd(c);
    rcc_->Cmd(c);
  }
  EXPECT_EQ(counters(*rcc_), counters(*redisc_));
  Same({"INFO", "errorstats"});
}

// LATENCY DOCTOR / HISTORY / GRAPH against a redis-server that allows DEBUG SLEEP. The
// measured milliseconds and the period differ run to run: digits are compared as '#'.
TEST_P(DiffIntrospectionTest, LatencyDoctorHistoryGraph) {
  std::string error;
  redisc_.reset();
  redis_ = ServerProcess::StartRedis(&error, {"--enable-debug-command", "yes"});
  ASSERT_TRUE(redis_) << error;
  redisc_ = Client::Connect(redis_->port(), &error);
  ASSERT_TRUE(redisc_) << error;
  const std::regex digits("[0-9]+");
  auto same_text = [&](const Args& cmd) {
    std::string want = std::regex_replace(redisc_->Cmd(cmd), digits, "#");
    std::string got = std::regex_replace(rcc_->Cmd(cmd), digits, "#");
    EXPECT_EQ(got, want) << Describe(cmd);
  };
  Same({"LATENCY", "DOCTOR"});  // monitoring off, no events
  Script({{"LATENCY", "HISTORY", "command"}, {"LATENCY", "GRAPH", "command"},
          {"LATENCY", "HISTORY"}, {"LATENCY", "GRAPH"}, {"LATENCY", "DOCTOR", "x"},
          {"CONFIG", "SET", "latency-monitor-threshold", "5"}});
  Same({"LATENCY", "DOCTOR"});  // on, nothing observed yet
  Same({"DEBUG", "SLEEP", "0.02"});
  same_text({"LATENCY", "DOCTOR"});  // slowlog-log-slower-than 10000 > 5 ms: tuning advice
  Same({"CONFIG", "SET", "slowlog-log-slower-than", "-1"});
  same_text({"LATENCY", "DOCTOR"});  // the "enable the Slow Log" advice
  Same({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
  same_text({"LATENCY", "DOCTOR"});  // logs everything: no slow log advice
  for (Client* c : {redisc_.get(), rcc_.get()}) {
    Client::ReplyPtr h = c->RawCmd({"LATENCY", "HISTORY", "command"});
    ASSERT_TRUE(h && h->type == REDIS_REPLY_ARRAY && h->elements == 1);
    ASSERT_EQ(h->element[0]->elements, 2u);
    EXPECT_GE(h->element[0]->element[1]->integer, 20);
    Client::ReplyPtr g = c->RawCmd({"LATENCY", "GRAPH", "command"});
    ASSERT_TRUE(g && g->type == REDIS_REPLY_STRING);
    std::string graph(g->str, g->len);
    // The header line is Redis's; the chart under it is drawn in ringcache's own way. (A
    // loaded machine may stretch the 20 ms sleep: the history above checks its floor.)
    EXPECT_TRUE(std::regex_search(
        graph, std::regex(R"(^command - high \d+ ms, low \d+ ms \(all time high \d+ ms\)\n-{80}\n)")))
        << graph;
  }
  Same({"LATENCY", "RESET"});
  Same({"LATENCY", "HISTORY", "command"});
}

// As Redis, the slow log has each command EXEC or a script ran, not EXEC itself; a
// script's commands have Redis's script client "?:0" as their peer. On 3 threads the
// transaction's and the script's commands run on other shards and as coordinators too.
TEST_P(DiffIntrospectionTest, SlowlogHasTheCommandsExecAndScriptsRan) {
  // The log, oldest first: each entry's arguments and whose they were.
  auto logged = [](Client& c) {
    std::vector<std::string> out;
    Client::ReplyPtr r = c.RawCmd({"SLOWLOG", "GET", "-1"});
    EXPECT_TRUE(r && r->type == REDIS_REPLY_ARRAY);
    if (!r || r->type != REDIS_REPLY_ARRAY) return out;
    for (size_t i = r->elements; i-- > 0;) {
      const redisReply* e = r->element[i];
      std::string line;
      for (size_t a = 0; a < e->element[3]->elements; ++a) {
        line += std::string(e->element[3]->element[a]->str, e->element[3]->element[a]->len) + " ";
      }
      const std::string peer(e->element[4]->str, e->element[4]->len);
      out.push_back(line + "@ " + (peer == "?:0" ? peer : "client"));
    }
    return out;
  };
  const std::vector<Args> run = {
      {"CONFIG", "SET", "slowlog-log-slower-than", "0"},
      {"SLOWLOG", "RESET"},
      {"MULTI"},
      {"SET", "a", "1"},
      {"GET", "b"},
      {"MSET", "x", "1", "y", "2", "z", "3"},
      {"INCR", "n"},
      {"EXEC"},
      {"EVAL", "redis.call('set', KEYS[1], 'v') return redis.call('mget', KEYS[1], KEYS[2])",
       "2", "{s}1", "{s}2"},
      {"CONFIG", "SET", "slowlog-log-slower-than", "10000"}};
  Script(run);
  const std::vector<std::string> want = logged(*redisc_);
  EXPECT_EQ(logged(*rcc_), want);
  // SLOWLOG RESET, MULTI, the four queued commands, the script's SET and MGET, then EVAL.
  ASSERT_EQ(want.size(), 9u);
  EXPECT_EQ(want[5], "INCR n @ client");
  EXPECT_EQ(want[6], "set {s}1 v @ ?:0");
  Script({{"SLOWLOG", "RESET"}, {"DEL", "a", "x", "y", "z", "n", "{s}1"}});
}

// A MONITOR connection is a replica to Redis: it may not touch the keyspace or publish,
// sees its own commands after their replies, leaves monitor mode on RESET, and MONITOR
// inside EXEC is refused (EXEC owes one reply per command).
TEST_P(DiffIntrospectionTest, MonitorClientsOwnCommands) {
  const std::vector<Args> pipeline = {
      {"MULTI"}, {"MONITOR"}, {"EXEC"}, {"MONITOR"}, {"SET", "a", "1"}, {"GET", "a"},
      {"PUBLISH", "ch", "m"}, {"PING"}, {"SELECT", "0"}, {"MONITOR"},
      // A container's subcommand decides: MEMORY USAGE reads the keyspace, OBJECT HELP
      // does not; CLIENT SETNAME is shown, CLIENT LIST (admin) is not.
      {"MEMORY", "USAGE", "a"}, {"OBJECT", "HELP"}, {"CLIENT", "SETNAME", "m"},
      {"CLIENT", "LIST", "ID", "0"}, {"RESET"}, {"GET", "a"}, {"PING", "after"}};
  std::string bytes;
  for (const Args& cmd : pipeline) bytes += EncodeCommand(cmd);
  // Replies and monitor lines: MULTI..EXEC 3, MONITOR 1, SET/GET/PUBLISH 3, PING and
  // SELECT 2 each (reply, line), the second MONITOR none, MEMORY USAGE 1, OBJECT HELP 2,
  // CLIENT SETNAME 2, CLIENT LIST 1, RESET 1 (no line: no longer a monitor), then 2.
  const size_t expected = 3 + 1 + 3 + 2 + 2 + 1 + 2 + 2 + 1 + 1 + 2;
  const std::regex stamp(R"re(^\+\d+\.\d{6} \[0 127\.0\.0\.1:\d+\] )re");
  auto run = [&](int port) {
    auto conn = NewRaw(port);
    std::vector<std::string> out;
    if (!conn) return out;
    conn->Send(bytes);
    out = conn->ReadReplies(expected);
    // Nothing more may follow.
    out.push_back(conn->ReadReply(std::chrono::milliseconds(200)));
    for (std::string& line : out) line = std::regex_replace(line, stamp, "+<monitor> ");
    return out;
  };
  std::vector<std::string> want = run(redis_->port());
  std::vector<std::string> got = run(rc_->port());
  ASSERT_EQ(want.size(), expected + 1);
  EXPECT_EQ(want.back(), "!TIMEOUT");
  EXPECT_EQ(got, want);
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffIntrospectionTest, ::testing::Values(1, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
