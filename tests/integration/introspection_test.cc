// Introspection that cannot be byte-equal to Redis (counters, timings, connections):
// INFO fields and values across threads, CLIENT LIST/KILL/PAUSE/REPLY across threads,
// SLOWLOG entries, LATENCY events, MEMORY, DEBUG SLEEP.

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"
#include "tests/integration/fixtures.h"
#include "tests/integration/polling.h"

namespace rc::it {
namespace {

// Redis 7.0.15's CLIENT LIST fields, in order (ringcache appends 7.2's lib-name, lib-ver).
const std::vector<std::string> kClientFields = {
    "id",   "addr", "laddr", "fd",       "name",      "age",      "idle",      "flags",
    "db",   "sub",  "psub",  "ssub",     "multi",     "qbuf",     "qbuf-free", "argv-mem",
    "multi-mem", "rbs", "rbp", "obl",    "oll",       "omem",     "tot-mem",   "events",
    "cmd",  "user", "redir", "resp",     "lib-name",  "lib-ver"};

std::string Bulk(Client& c, const Args& args) {
  Client::ReplyPtr r = c.RawCmd(args);
  if (!r || r->type != REDIS_REPLY_STRING) return "";
  return std::string(r->str, r->len);
}

// field -> value of one INFO reply.
std::map<std::string, std::string> InfoFields(Client& c, const Args& args = {"INFO", "all"}) {
  std::map<std::string, std::string> out;
  for (absl::string_view line : absl::StrSplit(Bulk(c, args), "\r\n")) {
    size_t colon = line.find(':');
    if (line.empty() || line[0] == '#' || colon == absl::string_view::npos) continue;
    out[std::string(line.substr(0, colon))] = std::string(line.substr(colon + 1));
  }
  return out;
}

// One parsed CLIENT LIST line: fields in order.
using ClientLine = std::vector<std::pair<std::string, std::string>>;
std::vector<ClientLine> ClientList(Client& c, const Args& args = {"CLIENT", "LIST"}) {
  std::vector<ClientLine> out;
  for (absl::string_view line : absl::StrSplit(Bulk(c, args), '\n', absl::SkipEmpty())) {
    ClientLine fields;
    for (absl::string_view kv : absl::StrSplit(line, ' ')) {
      size_t eq = kv.find('=');
      fields.emplace_back(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
    }
    out.push_back(std::move(fields));
  }
  return out;
}

std::string Field(const ClientLine& line, const std::string& name) {
  for (const auto& [k, v] : line) {
    if (k == name) return v;
  }
  return "<missing>";
}

using IntrospectionTest = RingcacheTest;

TEST_P(IntrospectionTest, CommandStatsCountEveryThread) {
  ASSERT_EQ(rcc_->Cmd({"CONFIG", "RESETSTAT"}), "+OK");
  // Keys on every shard, from clients on (probably) different threads.
  RunClients(4, [](int i, Client& c) {
    for (int j = 0; j < 50; ++j) c.Cmd({"SET", "k" + std::to_string(i * 100 + j), "v"});
    for (int j = 0; j < 50; ++j) c.Cmd({"GET", "k" + std::to_string(i * 100 + j)});
    c.Cmd({"GET", "missing"});
    c.Cmd({"ZADD", "k" + std::to_string(i * 100), "1", "m"});  // WRONGTYPE
  });
  auto info = InfoFields(*rcc_);
  EXPECT_EQ(info["cmdstat_set"].substr(0, 10), "calls=200,");
  EXPECT_EQ(info["cmdstat_get"].substr(0, 10), "calls=204,");
  EXPECT_NE(info["cmdstat_zadd"].find("failed_calls=4"), std::string::npos) << info["cmdstat_zadd"];
  EXPECT_EQ(info["errorstat_WRONGTYPE"], "count=4");
  EXPECT_EQ(info["total_error_replies"], "4");
  EXPECT_EQ(info["keyspace_hits"], "200");
  EXPECT_EQ(info["keyspace_misses"], "4");
  std::regex latency(R"(p50=\d+\.\d{3},p99=\d+\.\d{3},p99\.9=\d+\.\d{3})");
  EXPECT_TRUE(std::regex_match(info["latency_percentiles_usec_get"], latency))
      << info["latency_percentiles_usec_get"];
  for (const char* f : {"used_memory", "used_memory_rss", "used_memory_human", "mem_allocator",
                        "connected_clients", "total_commands_processed",
                        "instantaneous_ops_per_sec", "expired_keys", "evicted_keys",
                        "used_cpu_user", "used_cpu_sys", "cluster_enabled"}) {
    EXPECT_TRUE(info.count(f)) << f;
  }
  EXPECT_EQ(info["mem_allocator"], "libc");
  EXPECT_GT(std::stoll(info["used_memory"]), 0);
  // What maxmemory is compared with: used_memory and glibc's chunk headers.
  EXPECT_GE(std::stoll(info["mem_counted_for_evict"]), std::stoll(info["used_memory"]));
  // CONFIG RESETSTAT clears every thread's counters.
  ASSERT_EQ(rcc_->Cmd({"CONFIG", "RESETSTAT"}), "+OK");
  info = InfoFields(*rcc_);
  EXPECT_EQ(info.count("cmdstat_get"), 0u);
  EXPECT_EQ(info.count("errorstat_WRONGTYPE"), 0u);
  EXPECT_EQ(info["total_error_replies"], "0");
  // LATENCY HISTOGRAM after one more GET: calls=1 in a power-of-two bucket.
  rcc_->Cmd({"GET", "k1"});
  std::string h = rcc_->Cmd({"LATENCY", "HISTOGRAM", "get", "nosuch"});
  EXPECT_TRUE(std::regex_match(h, std::regex(R"(\*\[\$get,\*\[\$calls,:1,\$histogram_usec,\*\[:\d+,:1\]\]\])")))
      << h;
  // A read per request and a write per reply since RESETSTAT (whose own reply may be
  // counted either side of the reset).
  info = InfoFields(*rcc_);
  EXPECT_EQ(info["total_reads_processed"], "4");  // INFO, GET, LATENCY, INFO
  const std::string writes = info["total_writes_processed"];
  EXPECT_TRUE(writes == "3" || writes == "4") << writes;
}

TEST_P(IntrospectionTest, ClientListShowsEveryThread) {
  ASSERT_EQ(rcc_->Cmd({"CLIENT", "SETNAME", "main"}), "+OK");
  std::vector<std::unique_ptr<Client>> others;
  for (int i = 0; i < 5; ++i) {
    others.push_back(NewClient());
    others.back()->Cmd({"PING"});
  }
  auto list = ClientList(*rcc_);
  ASSERT_EQ(list.size(), 6u);
  for (const auto& line : list) {
    std::vector<std::string> names;
    for (const auto& [k, v] : line) names.push_back(k);
    EXPECT_EQ(names, kClientFields);
  }
  // Ascending ids; this connection's own line says what it runs now.
  const ClientLine* me = nullptr;
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(std::stoull(Field(list[i - 1], "id")), std::stoull(Field(list[i], "id")));
    }
    if (Field(list[i], "name") == "main") me = &list[i];
  }
  ASSERT_NE(me, nullptr);
  EXPECT_EQ(Field(*me, "cmd"), "client|list");
  EXPECT_EQ(Field(*me, "argv-mem"), "10");
  EXPECT_EQ(Field(*me, "flags"), "N");
  EXPECT_EQ(Field(*me, "laddr"), "127.0.0.1:" + std::to_string(rc_->port()));
  EXPECT_EQ(InfoFields(*rcc_, Args{"INFO", "clients"})["connected_clients"], "6");
  // CLIENT INFO is this connection's line; CLIENT LIST ID filters.
  auto info = ClientList(*rcc_, {"CLIENT", "INFO"});
  ASSERT_EQ(info.size(), 1u);
  EXPECT_EQ(Field(info[0], "name"), "main");
  std::string other_id = rcc_->Cmd({"CLIENT", "ID"});
  auto by_id = ClientList(*rcc_, {"CLIENT", "LIST", "ID", Field(list[0], "id"), "12345678"});
  ASSERT_EQ(by_id.size(), 1u);
  EXPECT_EQ(Field(by_id[0], "id"), Field(list[0], "id"));
  // A subscriber is TYPE pubsub with flag P.
  others[0]->Cmd({"SUBSCRIBE", "ch"});
  auto pubsub = ClientList(*rcc_, {"CLIENT", "LIST", "TYPE", "pubsub"});
  ASSERT_EQ(pubsub.size(), 1u);
  EXPECT_EQ(Field(pubsub[0], "flags"), "P");
  EXPECT_EQ(Field(pubsub[0], "sub"), "1");
  EXPECT_EQ(ClientList(*rcc_, {"CLIENT", "LIST", "TYPE", "normal"}).size(), 5u);
}

TEST_P(IntrospectionTest, ClientKillClosesClientsOnTheirThreads) {
  std::vector<std::unique_ptr<Client>> others;
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    others.push_back(NewClient());
    Client::ReplyPtr r = others.back()->RawCmd({"CLIENT", "ID"});
    ids.push_back(std::to_string(r->integer));
  }
  // New form by ID: an integer count; the victim's next command finds the socket closed.
  EXPECT_EQ(rcc_->Cmd({"CLIENT", "KILL", "ID", ids[0]}), ":1");
  EXPECT_EQ(others[0]->Cmd({"PING"}).substr(0, 4), "!IO:");
  EXPECT_EQ(rcc_->Cmd({"CLIENT", "KILL", "ID", ids[0]}), ":0");
  // Old form by address: +OK.
  std::string addr;
  for (const auto& line : ClientList(*rcc_)) {
    if (Field(line, "id") == ids[1]) addr = Field(line, "addr");
  }
  ASSERT_FALSE(addr.empty());
  EXPECT_EQ(rcc_->Cmd({"CLIENT", "KILL", addr}), "+OK");
  EXPECT_EQ(others[1]->Cmd({"PING"}).substr(0, 4), "!IO:");
  // LADDR matches every client; SKIPME (default yes) spares the caller.
  std::string laddr = "127.0.0.1:" + std::to_string(rc_->port());
  EXPECT_EQ(rcc_->Cmd({"CLIENT", "KILL", "LADDR", laddr}), ":2");
  EXPECT_EQ(others[2]->Cmd({"PING"}).substr(0, 4), "!IO:");
  EXPECT_EQ(others[3]->Cmd({"PING"}).substr(0, 4), "!IO:");
  EXPECT_EQ(rcc_->Cmd({"PING"}), "+PONG");
  EXPECT_TRUE(PollUntil([&] {
    return InfoFields(*rcc_, Args{"INFO", "clients"})["connected_clients"] == "1";
  }));
  // SKIPME no: the caller gets its reply, then is closed.
  EXPECT_EQ(rcc_->Cmd({"CLIENT", "KILL", "LADDR", laddr, "SKIPME", "no"}), ":1");
  EXPECT_EQ(rcc_->Cmd({"PING"}).substr(0, 4), "!IO:");
}

TEST_P(IntrospectionTest, ClientPauseHoldsWritesUntilUnpause) {
  auto writer = NewClient();
  auto reader = NewClient();
  ASSERT_EQ(rcc_->Cmd({"SET", "k", "old"}), "+OK");
  ASSERT_EQ(rcc_->Cmd({"CLIENT", "PAUSE", "60000", "WRITE"}), "+OK");
  std::atomic<bool> done{false};
  std::string set_reply;
  std::thread t([&] {
    set_reply = writer->Cmd({"SET", "k", "new"});
    done = true;
  });
  // Reads go through; the write waits.
  EXPECT_EQ(reader->Cmd({"GET", "k"}), "$old");
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_FALSE(done.load());
  EXPECT_EQ(reader->Cmd({"GET", "k"}), "$old");
  EXPECT_EQ(rcc_->Cmd({"CLIENT", "UNPAUSE"}), "+OK");
  t.join();
  EXPECT_EQ(set_reply, "+OK");
  EXPECT_EQ(reader->Cmd({"GET", "k"}), "$new");
  // A pause that times out lets held commands go on by itself.
  ASSERT_EQ(rcc_->Cmd({"CLIENT", "PAUSE", "300"}), "+OK");
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(reader->Cmd({"GET", "k"}), "$new");
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(250));
}

TEST_P(IntrospectionTest, ClientReplyOffSkipOn) {
  auto raw = NewRaw(rc_->port());
  ASSERT_TRUE(raw);
  raw->Send("*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$3\r\nOFF\r\n"
            "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n"
            "*2\r\n$3\r\nGET\r\n$1\r\na\r\n"
            "*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$2\r\nON\r\n"
            "*2\r\n$3\r\nGET\r\n$1\r\na\r\n"
            "*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$4\r\nSKIP\r\n"
            "*2\r\n$4\r\nECHO\r\n$1\r\nx\r\n"
            "*2\r\n$4\r\nECHO\r\n$1\r\ny\r\n");
  EXPECT_EQ(raw->ReadReplies(3), (std::vector<std::string>{"+OK", "$1", "$y"}));
}

TEST_P(IntrospectionTest, SlowlogRecordsTruncatedArguments) {
  ASSERT_EQ(rcc_->Cmd({"CLIENT", "SETNAME", "slowpoke"}), "+OK");
  ASSERT_EQ(rcc_->Cmd({"CONFIG", "SET", "slowlog-log-slower-than", "0"}), "+OK");
  ASSERT_EQ(rcc_->Cmd({"SLOWLOG", "RESET"}), "+OK");
  Args many = {"DEL"};
  for (int i = 0; i < 40; ++i) many.push_back("key" + std::to_string(i));
  rcc_->Cmd(many);
  rcc_->Cmd({"SET", "k", std::string(200, 'v')});
  rcc_->Cmd({"GET", "k"});  // on some shard, maybe another thread's
  ASSERT_EQ(rcc_->Cmd({"CONFIG", "SET", "slowlog-log-slower-than", "10000"}), "+OK");
  Client::ReplyPtr r = rcc_->RawCmd({"SLOWLOG", "GET", "-1"});
  ASSERT_TRUE(r && r->type == REDIS_REPLY_ARRAY);
  // Newest first: GET, SET, DEL, SLOWLOG RESET (the CONFIG SET that raised the threshold
  // back was not slow enough for it).
  ASSERT_EQ(r->elements, 4u);
  auto args_of = [&](size_t i) { return Strings(r->element[i]->element[3]); };
  EXPECT_EQ(args_of(0), (std::vector<std::string>{"GET", "k"}));
  EXPECT_EQ(args_of(3), (std::vector<std::string>{"SLOWLOG", "RESET"}));
  auto set = args_of(1);
  ASSERT_EQ(set.size(), 3u);
  EXPECT_EQ(set[2], std::string(128, 'v') + "... (72 more bytes)");
  auto del = args_of(2);
  ASSERT_EQ(del.size(), 32u);
  EXPECT_EQ(del[30], "key29");
  EXPECT_EQ(del[31], "... (10 more arguments)");
  const redisReply* e = r->element[0];
  ASSERT_EQ(e->elements, 6u);
  EXPECT_EQ(e->element[0]->integer, r->element[1]->element[0]->integer + 1);  // ids ascend
  EXPECT_GT(e->element[1]->integer, 1600000000);
  EXPECT_GE(e->element[2]->integer, 0);
  EXPECT_EQ(std::string(e->element[5]->str), "slowpoke");
  EXPECT_EQ(std::string(e->element[4]->str).rfind("127.0.0.1:", 0), 0u);
  EXPECT_EQ(rcc_->Cmd({"SLOWLOG", "GET", "1"}).substr(0, 4), "*[*[");
  // slowlog-max-len trims to the newest.
  ASSERT_EQ(rcc_->Cmd({"CONFIG", "SET", "slowlog-max-len", "2"}), "+OK");
  ASSERT_EQ(rcc_->Cmd({"CONFIG", "SET", "slowlog-log-slower-than", "0"}), "+OK");
  rcc_->Cmd({"PING"});
  EXPECT_EQ(rcc_->Cmd({"SLOWLOG", "LEN"}), ":2");
  ASSERT_EQ(rcc_->Cmd({"CONFIG", "SET", "slowlog-log-slower-than", "-1"}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"SLOWLOG", "RESET"}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"SLOWLOG", "LEN"}), ":0");
}

TEST_P(IntrospectionTest, LatencyMonitorAndDebugSleep) {
  EXPECT_EQ(rcc_->Cmd({"LATENCY", "LATEST"}), "*[]");
  ASSERT_EQ(rcc_->Cmd({"CONFIG", "SET", "latency-monitor-threshold", "5"}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"DEBUG", "SLEEP", "0.02"}), "+OK");
  Client::ReplyPtr r = rcc_->RawCmd({"LATENCY", "LATEST"});
  ASSERT_TRUE(r && r->type == REDIS_REPLY_ARRAY);
  ASSERT_EQ(r->elements, 1u);
  const redisReply* e = r->element[0];
  ASSERT_EQ(e->elements, 4u);
  EXPECT_EQ(std::string(e->element[0]->str), "command");
  EXPECT_GE(e->element[2]->integer, 20);
  EXPECT_GE(e->element[3]->integer, 20);
  EXPECT_EQ(rcc_->Cmd({"LATENCY", "RESET", "command", "nosuch"}), ":1");
  EXPECT_EQ(rcc_->Cmd({"LATENCY", "LATEST"}), "*[]");
  EXPECT_EQ(rcc_->Cmd({"DEBUG", "FOO"}),
            "-ERR unknown subcommand or wrong number of arguments for 'FOO'. Try DEBUG HELP.");
  EXPECT_EQ(rcc_->Cmd({"DEBUG", "SLEEP", "x"}), "-ERR value is not a valid float");
}

TEST_P(IntrospectionTest, MemoryUsageAndStats) {
  rcc_->Cmd({"SET", "small", "v"});
  rcc_->Cmd({"SET", "large", std::string(10000, 'x')});
  Args zadd = {"ZADD", "z"};
  for (int i = 0; i < 1000; ++i) {
    zadd.push_back(std::to_string(i));
    zadd.push_back("member" + std::to_string(i));
  }
  rcc_->Cmd(zadd);
  auto usage = [&](const std::string& k) { return rcc_->RawCmd({"MEMORY", "USAGE", k})->integer; };
  EXPECT_GT(usage("small"), 8);
  EXPECT_GT(usage("large"), 10000);
  EXPECT_GT(usage("z"), 1000 * 16);
  Client::ReplyPtr r = rcc_->RawCmd({"MEMORY", "STATS"});
  ASSERT_TRUE(r && r->type == REDIS_REPLY_ARRAY);
  std::map<std::string, long long> stats;
  for (size_t i = 0; i + 1 < r->elements; i += 2) {
    stats[r->element[i]->str] = r->element[i + 1]->type == REDIS_REPLY_INTEGER ? r->element[i + 1]->integer : -1;
  }
  EXPECT_EQ(stats["keys.count"], 3);
  EXPECT_GT(stats["dataset.bytes"], 10000);
  EXPECT_GT(stats["total.allocated"], stats["dataset.bytes"]);
  EXPECT_EQ(rcc_->Cmd({"MEMORY", "DOCTOR"}).substr(0, 7), "$Hi Sam");
  // glibc's malloc_info XML, and a trim that answers OK.
  std::string malloc_stats = rcc_->Cmd({"MEMORY", "MALLOC-STATS"});
  EXPECT_EQ(malloc_stats.substr(0, 17), "$<malloc version=") << malloc_stats.substr(0, 80);
  EXPECT_NE(malloc_stats.find("</malloc>"), std::string::npos);
  EXPECT_EQ(rcc_->Cmd({"MEMORY", "PURGE"}), "+OK");
}

// MEMORY STATS' figures are measured: the footprint at start, the highest used_memory
// seen, and what clients' buffers hold; MEMORY DOCTOR reports from them as Redis's does.
TEST_P(IntrospectionTest, MemoryStatsTrackStartupPeakAndClients) {
  auto stats = [&] {
    std::map<std::string, long long> out;
    Client::ReplyPtr r = rcc_->RawCmd({"MEMORY", "STATS"});
    if (!r || r->type != REDIS_REPLY_ARRAY) return out;
    for (size_t i = 0; i + 1 < r->elements; i += 2) {
      const redisReply* v = r->element[i + 1];
      out[r->element[i]->str] = v->type == REDIS_REPLY_INTEGER ? v->integer : -1;
    }
    return out;
  };
  auto doctor = [&] { return rcc_->Cmd({"MEMORY", "DOCTOR"}); };
  std::map<std::string, long long> s = stats();
  for (const char* f : {"peak.allocated", "total.allocated", "startup.allocated", "clients.normal",
                        "lua.caches", "functions.caches", "overhead.total", "keys.count",
                        "dataset.bytes", "peak.percentage", "fragmentation"}) {
    EXPECT_TRUE(s.count(f)) << f;
  }
  EXPECT_GT(s["startup.allocated"], 0);
  EXPECT_LE(s["startup.allocated"], s["total.allocated"]);
  EXPECT_GE(s["peak.allocated"], s["total.allocated"]);
  // A client with 6 MB of a command still on its way: its query buffer is client memory,
  // far above the 200 KB per client at which the doctor speaks up (a few clients here),
  // and used_memory is past the 5 MB below which it declines to.
  auto partial = NewRaw(rc_->port());
  ASSERT_TRUE(partial);
  ASSERT_TRUE(partial->Send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$16777216\r\n" +
                            std::string(6 << 20, 'x')));
  EXPECT_TRUE(PollUntil([&] { return stats()["clients.normal"] > (6 << 20); }))
      << stats()["clients.normal"];
  EXPECT_NE(doctor().find(" * Big client buffers:"), std::string::npos) << doctor();
  partial.reset();
  EXPECT_TRUE(PollUntil([&] { return stats()["clients.normal"] < (1 << 20); }));
  // A sanitizer build's used_memory is its RSS, which freeing does not lower.
  if (rc_->Sanitized()) return;
  // 6 MB kept and 30 MB dropped: the peak stays where it was, more than 150% of what is
  // used now.
  ASSERT_EQ(rcc_->Cmd({"SET", "keep", std::string(6 << 20, 'k')}), "+OK");
  for (int i = 0; i < 30; ++i) {
    ASSERT_EQ(rcc_->Cmd({"SET", absl::StrCat("big", i), std::string(1 << 20, 'b')}), "+OK");
  }
  const long long peak = stats()["peak.allocated"];
  EXPECT_GT(peak, 36 << 20);
  for (int i = 0; i < 30; ++i) rcc_->Cmd({"DEL", absl::StrCat("big", i)});
  EXPECT_TRUE(PollUntil([&] { return stats()["total.allocated"] < peak - (25 << 20); }))
      << stats()["total.allocated"];
  s = stats();
  EXPECT_GE(s["peak.allocated"], peak);
  EXPECT_NE(doctor().find(" * Peak memory:"), std::string::npos) << doctor();
}

TEST_P(IntrospectionTest, MonitorSeesCommandsOfEveryThread) {
  auto monitor = NewRaw(rc_->port());
  ASSERT_TRUE(monitor);
  monitor->Send("*1\r\n$7\r\nMONITOR\r\n");
  ASSERT_EQ(monitor->ReadReply(), "+OK");
  // Clients spread over the threads; a key with bytes sdscatrepr escapes.
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < 4; ++i) {
    clients.push_back(NewClient());
    EXPECT_EQ(clients.back()->Cmd({"SET", "k" + std::to_string(i), "a\"b\n\x01"}), "+OK");
  }
  rcc_->Cmd({"CONFIG", "GET", "port"});  // admin: not shown
  rcc_->Cmd({"GET", "done"});
  std::vector<std::string> lines = monitor->ReadReplies(5);
  ASSERT_EQ(lines.size(), 5u);
  std::regex set_line(R"re(\+\d+\.\d{6} \[0 127\.0\.0\.1:\d+\] "SET" "k(\d)" "a\\"b\\n\\x01")re");
  std::set<std::string> keys;
  for (int i = 0; i < 4; ++i) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(lines[size_t(i)], m, set_line)) << lines[size_t(i)];
    keys.insert(m[1]);
  }
  EXPECT_EQ(keys.size(), 4u);
  EXPECT_NE(lines[4].find("\"GET\" \"done\""), std::string::npos) << lines[4];
  auto list = ClientList(*rcc_);
  int monitors = 0;
  for (const auto& l : list) monitors += Field(l, "flags") == "O";
  EXPECT_EQ(monitors, 1);
}

// A client in MULTI with two commands queued and a watched key another client changed:
// flags (x, d), multi and multi-mem as redis-server shows them, and after DISCARD.
TEST_P(IntrospectionTest, ClientListShowsTransactionState) {
  std::string error;
  auto redis = ServerProcess::StartRedis(&error);
  ASSERT_TRUE(redis) << error;
  auto fields = [&](int port) {
    std::vector<std::string> out;
    auto tx = Client::Connect(port, &error);
    auto other = Client::Connect(port, &error);
    if (!tx || !other) return out;
    tx->Cmd({"CLIENT", "SETNAME", "tx"});
    tx->Cmd({"WATCH", "w"});
    other->Cmd({"SET", "w", "1"});
    tx->Cmd({"MULTI"});
    tx->Cmd({"SET", "a", "1"});
    tx->Cmd({"CLIENT", "INFO"});
    auto tx_fields = [&](const std::vector<std::string>& names) {
      for (const auto& line : ClientList(*other)) {
        if (Field(line, "name") != "tx") continue;
        for (const auto& n : names) out.push_back(n + "=" + Field(line, n));
      }
    };
    tx_fields({"flags", "multi", "multi-mem"});
    tx->Cmd({"DISCARD"});
    tx_fields({"flags", "multi", "multi-mem"});
    return out;
  };
  std::vector<std::string> want = fields(redis->port());
  std::vector<std::string> got = fields(rc_->port());
  ASSERT_EQ(want.size(), 6u);
  EXPECT_EQ(want[0], "flags=xd");
  EXPECT_EQ(got, want);
}

// CLIENT INFO run by EXEC (with keys on other shards before and after it): Redis shows
// the transaction as still queued (flag x, its size and multi-mem) and EXEC as the command;
// the CLIENT INFO pipelined after EXEC sees it gone.
TEST_P(IntrospectionTest, ClientInfoInsideExecShowsTheTransaction) {
  std::string error;
  auto redis = ServerProcess::StartRedis(&error);
  ASSERT_TRUE(redis) << error;
  auto fields = [&](int port) {
    std::vector<std::string> out;
    auto c = Client::Connect(port, &error);
    if (!c) return out;
    // One pipeline, so that the last CLIENT INFO is read while EXEC may still be running.
    const std::vector<Args> cmds = {{"MULTI"}, {"SET", "a", "1"}, {"CLIENT", "INFO"},
                                    {"MSET", "x", "1", "y", "2", "z", "3"}, {"EXEC"},
                                    {"CLIENT", "INFO"}};
    for (const Args& a : cmds) {
      std::vector<const char*> argv;
      std::vector<size_t> lens;
      for (const std::string& s : a) {
        argv.push_back(s.data());
        lens.push_back(s.size());
      }
      redisAppendCommandArgv(c->ctx(), int(a.size()), argv.data(), lens.data());
    }
    std::vector<Client::ReplyPtr> replies;
    for (size_t i = 0; i < cmds.size(); ++i) {
      void* r = nullptr;
      if (redisGetReply(c->ctx(), &r) != REDIS_OK) return out;
      replies.emplace_back(static_cast<redisReply*>(r), freeReplyObject);
    }
    const redisReply* exec = replies[4].get();
    if (exec->type != REDIS_REPLY_ARRAY || exec->elements != 3) return out;
    for (const redisReply* r : {exec->element[1], replies[5].get()}) {
      if (r->type != REDIS_REPLY_STRING) return out;
      ClientLine line;
      for (absl::string_view kv : absl::StrSplit(absl::string_view(r->str, r->len), ' ')) {
        size_t eq = kv.find('=');
        line.emplace_back(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
      }
      for (const char* n : {"flags", "multi", "argv-mem", "multi-mem", "cmd"}) {
        out.push_back(std::string(n) + "=" + Field(line, n));
      }
    }
    return out;
  };
  std::vector<std::string> want = fields(redis->port());
  std::vector<std::string> got = fields(rc_->port());
  ASSERT_EQ(want.size(), 10u);
  EXPECT_EQ(want[0], "flags=x");
  EXPECT_EQ(want[4], "cmd=exec");
  EXPECT_EQ(got, want);
}

INSTANTIATE_TEST_SUITE_P(Threads, IntrospectionTest, ::testing::Values(1, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
