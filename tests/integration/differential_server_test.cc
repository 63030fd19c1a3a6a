// Connection and server commands against redis-server: arity and unknown-command errors,
// PING/ECHO, SELECT, CLIENT, CONFIG; and, where replies legitimately differ (COMMAND
// details, INFO, TIME, CLIENT ID), checks of their structure.

#include <algorithm>
#include <ctime>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class DiffServerTest : public DiffTest {};

// Every command ringcache implements (SHUTDOWN and QUIT are in lifecycle_test.cc).
const char* const kCommands[] = {
    "GET",      "SET",      "SETNX",     "GETSET", "GETDEL",      "MGET",   "MSET",   "MSETNX",
    "INCR",     "DECR",     "INCRBY",    "DECRBY", "INCRBYFLOAT", "APPEND", "STRLEN", "GETRANGE",
    "SETRANGE", "DEL",      "UNLINK",    "EXISTS", "TYPE",        "KEYS",   "SCAN",   "DBSIZE",
    "FLUSHDB",  "FLUSHALL", "RANDOMKEY", "RENAME", "RENAMENX",    "TOUCH",  "PING",   "ECHO",
    "SELECT",   "CLIENT",   "COMMAND",   "CONFIG", "INFO",        "TIME"};

TEST_P(DiffServerTest, ArityErrorsOfEveryCommand) {
  for (const char* name : kCommands) {
    std::string cmd = name;
    // Valid without arguments, with replies that legitimately differ.
    if (cmd == "COMMAND" || cmd == "INFO" || cmd == "TIME") continue;
    Same({cmd});
    Same({absl::AsciiStrToLower(cmd)});
  }
  // One argument too many for the fixed-arity commands.
  const Args too_many[] = {
      {"GET", "a", "b"},
      {"GETDEL", "a", "b"},
      {"STRLEN", "a", "b"},
      {"TYPE", "a", "b"},
      {"INCR", "a", "b"},
      {"DECR", "a", "b"},
      {"INCRBY", "a", "1", "2"},
      {"DECRBY", "a", "1", "2"},
      {"INCRBYFLOAT", "a", "1", "2"},
      {"APPEND", "a", "b", "c"},
      {"GETSET", "a", "b", "c"},
      {"SETNX", "a", "b", "c"},
      {"RENAME", "a", "b", "c"},
      {"RENAMENX", "a", "b", "c"},
      {"ECHO", "a", "b"},
      {"SELECT", "0", "1"},
      {"DBSIZE", "a"},
      {"RANDOMKEY", "a"},
      {"TIME", "a"},
      {"GETRANGE", "a", "0", "1", "2"},
      {"SETRANGE", "a", "0", "b", "c"},
      {"KEYS", "*", "x"},
      {"PING", "a", "b"},
  };
  for (const Args& cmd : too_many) Same(cmd);
}

TEST_P(DiffServerTest, UnknownCommands) {
  Script({
      {"FOO"},
      {"FOO", "a", "b"},
      {"foo", "bar baz"},
      {"GETT", "k"},
      {"FOO", std::string(200, 'x'), "second"},
      {std::string(200, 'Y'), "a"},
      {"FOO", "a", "b", "c", "d", "e",          "f",          "g",          "h",         "i", "j",
       "k",   "l", "m", "n", "o", "p",          "q",          "r",          "s",         "t", "u",
       "v",   "w", "x", "y", "z", "0123456789", "0123456789", "0123456789", "0123456789"},
      {"MULTIPLY"},
      {"FOO", "a\r\nb", "c\nd"},
      {"FOO\r\nBAR"},
      {""},
      {"PING"},
  });
}

TEST_P(DiffServerTest, PingAndEcho) {
  Script({{"PING"},
          {"PING", "hello"},
          {"ping", ""},
          {"ECHO", "x"},
          {"ECHO", ""},
          {"ECHO", std::string("a\0b\r\n", 5)},
          {"ECHO", std::string(100000, 'e')}});
}

TEST_P(DiffServerTest, SelectHasOnlyDatabaseZero) {
  Script({{"SELECT", "0"},
          {"SELECT", "16"},
          {"SELECT", "-1"},
          {"SELECT", "abc"},
          {"SELECT", "1.5"},
          {"SELECT", ""},
          {"SELECT", "9999999999999999999999"}});
  // Redis has 16 databases; ringcache only db 0.
  Expect({"SELECT", "1"}, "-ERR DB index is out of range");
  Expect({"SELECT", "15"}, "-ERR DB index is out of range");
  Same({"SELECT", "0"});
  Same({"SET", "k", "still db 0"});
  Same({"GET", "k"});
}

TEST_P(DiffServerTest, ClientNameAndErrors) {
  Script({
      {"CLIENT", "GETNAME"},
      {"CLIENT", "SETNAME", "worker-1"},
      {"CLIENT", "GETNAME"},
      {"client", "setname", "w2"},
      {"CLIENT", "GETNAME"},
      {"CLIENT", "SETNAME", "a b"},
      {"CLIENT", "SETNAME", "a\nb"},
      {"CLIENT", "SETNAME", std::string("a\x01", 2)},
      {"CLIENT", "SETNAME", "caf\xc3\xa9"},
      {"CLIENT", "SETNAME", "~!@#$%^&*()_+{}|:<>?"},
      {"CLIENT", "GETNAME"},
      {"CLIENT", "SETNAME", ""},
      {"CLIENT", "GETNAME"},
      {"CLIENT", "SETNAME"},
      {"CLIENT", "SETNAME", "a", "b"},
      {"CLIENT", "GETNAME", "x"},
      {"CLIENT", "ID", "x"},
      {"CLIENT", "FOO"},
      {"CLIENT", "foo", "bar"},
      {"CLIENT"},
  });
  // CLIENT SETINFO is Redis 7.2 (redis-py and redis-cli send it); redis 7.0 lacks it.
  Expect({"CLIENT", "SETINFO", "LIB-NAME", "redis-py"}, "+OK");
  Expect({"CLIENT", "SETINFO", "lib-ver", "4.3.4"}, "+OK");
}

TEST_P(DiffServerTest, ClientIdIsUniquePerConnection) {
  Client::ReplyPtr a = rcc_->RawCmd({"CLIENT", "ID"});
  auto other = NewClient();
  Client::ReplyPtr b = other->RawCmd({"CLIENT", "ID"});
  ASSERT_TRUE(a && b);
  ASSERT_EQ(a->type, REDIS_REPLY_INTEGER) << Canon(a.get());
  ASSERT_EQ(b->type, REDIS_REPLY_INTEGER) << Canon(b.get());
  EXPECT_GT(a->integer, 0);
  EXPECT_NE(a->integer, b->integer);
  EXPECT_EQ(Canon(rcc_->RawCmd({"CLIENT", "ID"}).get()), Canon(a.get()));
}

TEST_P(DiffServerTest, ClientHelpIsAListOfLines) {
  Client::ReplyPtr r = rcc_->RawCmd({"CLIENT", "HELP"});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->type, REDIS_REPLY_ARRAY) << Canon(r.get());
  ASSERT_GT(r->elements, 2u);
  for (size_t i = 0; i < r->elements; ++i) {
    EXPECT_EQ(r->element[i]->type, REDIS_REPLY_STATUS) << Canon(r.get());
  }
  EXPECT_EQ(std::string(r->element[0]->str).rfind("CLIENT <subcommand>", 0), 0u) << Canon(r.get());
}

TEST_P(DiffServerTest, Config) {
  Script({
      {"CONFIG", "GET", "save"},
      {"CONFIG", "GET", "appendonly"},
      {"CONFIG", "GET", "maxclients"},
      {"CONFIG", "GET", "timeout"},
      {"CONFIG", "GET", "proto-max-bulk-len"},
      {"CONFIG", "GET", "no-such-parameter"},
      {"CONFIG", "GET", "appendonl?"},
      {"CONFIG", "GET", "save", "save"},
      {"CONFIG", "SET", "no-such-parameter", "1"},
      {"CONFIG", "RESETSTAT"},
      {"CONFIG", "RESETSTAT", "x"},
      {"CONFIG", "GET"},
      {"CONFIG", "FOO"},
      {"CONFIG"},
  });
}

// Redis 7.0 answers an exact (non-glob) name with the name as the client spelled it.
TEST_P(DiffServerTest, ConfigGetEchoesTheNameAsGiven) {
  Script({{"config", "get", "SAVE"}, {"CONFIG", "GET", "AppendOnly"}});
}

// `timeout` is a runtime setting in Redis (idle clients are closed after `timeout`).
TEST_P(DiffServerTest, ConfigSetTimeout) {
  Script({
      {"CONFIG", "SET", "timeout", "0"},
      {"CONFIG", "GET", "timeout"},
      {"CONFIG", "SET", "timeout", "abc"},
      {"CONFIG", "SET", "timeout"},
  });
}

TEST_P(DiffServerTest, CommandTableAgreesWithRedis) {
  Client::ReplyPtr count = rcc_->RawCmd({"COMMAND", "COUNT"});
  ASSERT_TRUE(count);
  ASSERT_EQ(count->type, REDIS_REPLY_INTEGER) << Canon(count.get());
  EXPECT_GE(count->integer, int64_t(std::size(kCommands)));

  // COMMAND LIST names subcommands too ("config|get"); COUNT counts commands.
  std::vector<std::string> listed = Strings(rcc_->RawCmd({"COMMAND", "LIST"}).get());
  std::set<std::string> names;
  for (const std::string& n : listed) {
    if (n.find('|') == std::string::npos) names.insert(n);
  }
  EXPECT_EQ(int64_t(names.size()), count->integer) << "COMMAND LIST vs COMMAND COUNT";
  EXPECT_TRUE(std::count(listed.begin(), listed.end(), "config|get")) << "no subcommands";
  for (const char* name : kCommands) {
    std::string lower = absl::AsciiStrToLower(name);
    EXPECT_TRUE(names.count(lower)) << "COMMAND LIST lacks " << lower;
    // [name, arity, flags, first key, last key, step, ...]: all but flags must match Redis.
    Client::ReplyPtr want = redisc_->RawCmd({"COMMAND", "INFO", name});
    Client::ReplyPtr got = rcc_->RawCmd({"COMMAND", "INFO", name});
    ASSERT_TRUE(want && got);
    ASSERT_EQ(got->type, REDIS_REPLY_ARRAY) << Canon(got.get());
    ASSERT_EQ(got->elements, 1u) << Canon(got.get());
    const redisReply* g = got->element[0];
    const redisReply* w = want->element[0];
    ASSERT_EQ(g->type, REDIS_REPLY_ARRAY) << "COMMAND INFO " << name << ": " << Canon(got.get());
    ASSERT_GE(g->elements, 6u) << Canon(got.get());
    for (size_t i : {0, 1, 3, 4, 5}) {
      EXPECT_EQ(Canon(g->element[i]), Canon(w->element[i]))
          << "COMMAND INFO " << name << " field " << i << "\n  redis:     " << Canon(w)
          << "\n  ringcache: " << Canon(g);
    }
    std::vector<std::string> gf = Strings(g->element[2]), wf = Strings(w->element[2]);
    for (const char* flag : {"write", "readonly"}) {
      EXPECT_EQ(std::count(gf.begin(), gf.end(), flag), std::count(wf.begin(), wf.end(), flag))
          << "COMMAND INFO " << name << " flag " << flag << "\n  redis:     " << Canon(w)
          << "\n  ringcache: " << Canon(g);
    }
  }
  Same({"COMMAND", "INFO", "nosuchcommand"});
  Same({"COMMAND", "FOO"});
  // Several names, mixed case and unknown: one entry each, in order.
  Client::ReplyPtr many = rcc_->RawCmd({"COMMAND", "INFO", "GeT", "nosuch", "set"});
  ASSERT_TRUE(many);
  ASSERT_EQ(many->type, REDIS_REPLY_ARRAY) << Canon(many.get());
  ASSERT_EQ(many->elements, 3u) << Canon(many.get());
  EXPECT_EQ(Canon(many->element[0]->element[0]), "$get");
  EXPECT_EQ(Canon(many->element[1]), "(nil)");
  EXPECT_EQ(Canon(many->element[2]->element[0]), "$set");
}

TEST_P(DiffServerTest, CommandSubcommandsWithExtraArguments) {
  Script({{"COMMAND", "COUNT", "x"}, {"COMMAND", "LIST", "x"}, {"COMMAND", "DOCS", "nosuch"}});
}

// ringcache keeps no documentation text, so its DOCS map may be empty; it must still be a
// well-formed RESP2 map (name, doc) per command, as clients such as redis-cli parse it.
// COMMAND DOCS is redis-server's own reply (redis-cli builds `help` and typing hints from
// it). hiredis 0.14 reads at most 7 levels of nesting, which a container's docs exceed:
// test_resp3.py compares every command and container; here, what hiredis can read.
TEST_P(DiffServerTest, CommandDocsAreRedisDocs) {
  for (const char* name : kCommands) {
    std::string lower = absl::AsciiStrToLower(name);
    if (lower == "client" || lower == "config" || lower == "command") continue;
    Same({"COMMAND", "DOCS", name});
  }
  Same({"COMMAND", "DOCS", "get", "zadd", "set", "client|list", "config|get", "object|freq"});
  // Mixed case, unknown names and bad subcommand paths are left out, as in Redis.
  Same({"COMMAND", "DOCS", "GeT", "nosuch", "CLIENT|List", "client|nosuch", "get|x",
        "client|list|x", "|", ""});
  Same({"COMMAND", "DOCS", "nosuchcommand"});
}

// COMMAND GETKEYS: Redis's checks in its order (command, has keys, arity, keys), the keys
// counted by numkeys (read as atoi reads it) of the movable-key commands, and MIGRATE's.
TEST_P(DiffServerTest, CommandGetKeys) {
  const std::vector<Args> cases = {
      {"zunionstore", "d", "2", "a", "b", "weights", "1", "2"},
      {"ZINTERSTORE", "d", "1", "a"},
      {"zdiffstore", "d", "2", "a", "b"},
      {"zunionstore", "d", "x", "a"},
      {"zunionstore", "d", "5", "a"},
      {"zunionstore", "d", "0", "a"},
      {"zunionstore", "d", "-1", "a"},
      {"zunion", "2", "a", "b"},
      {"zinter", "1a", "b"},
      {"zdiff", " 1", "b"},
      {"zunion", "0", "a"},
      {"zintercard", "2", "a", "b", "limit", "1"},
      {"zintercard", "3", "a", "b"},
      {"zrangestore", "d", "s", "0", "1"},
      {"migrate", "h", "1", "k", "0", "10"},
      {"migrate", "h", "1", "", "0", "10", "COPY", "KEYS", "a", "b"},
      {"migrate", "h", "1", "", "0", "10", "AUTH", "keys", "KEYS", "a"},
      {"migrate", "h", "1", "", "0", "10", "AUTH2", "u", "keys", "KEYS", "a"},
      {"migrate", "h", "1", "k", "0", "10", "KEYS", "a"},
      {"migrate", "h", "1", "", "0", "10", "KEYS"},
      {"migrate", "h", "1", "", "0", "10", "KEYS", "KEYS"},
      {"migrate", "h", "1", "", "0", "10", "AUTH", "KEYS", "KEYS", "a"},
      {"mset", "a", "1", "b", "2"},
      {"set", "k", "v", "get"},
      {"client"},
      {"client", "nosuch"},
      {"client", "list"},
      {"object", "encoding"},
      {"object", "encoding", "k"},
      {"memory", "stats"},
      {"memory", "usage", "k"},
      {"config", "get", "x"},
      {"time", "a"},
      {"ping", "a", "b", "c"},
      {"get", "a", "b"},
      {"nosuch", "a"},
  };
  for (const Args& c : cases) {
    Args cmd = {"COMMAND", "GETKEYS"};
    cmd.insert(cmd.end(), c.begin(), c.end());
    Same(cmd);
  }
  Same({"COMMAND", "INFO", "zunionstore", "zunion", "zintercard", "CLIENT|LIST", "get|x"});
}

TEST_P(DiffServerTest, InfoSectionsAndKeyspace) {
  Same({"INFO", "keyspace"});
  Same({"MSET", "a", "1", "b", "2", "c", "3"});
  Same({"INFO", "keyspace"});
  Client::ReplyPtr r = rcc_->RawCmd({"INFO"});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->type, REDIS_REPLY_STRING) << Canon(r.get());
  std::string info(r->str, r->len);
  for (const char* field :
       {"# Server\r\n", "\r\nredis_version:", "\r\nconnected_clients:", "\r\nused_memory:",
        "# Keyspace\r\n", "\r\ndb0:keys=3,expires=0,avg_ttl=0\r\n"}) {
    EXPECT_NE(info.find(field), std::string::npos) << "INFO lacks " << field << "\n" << info;
  }
  Same({"FLUSHALL"});
  Same({"INFO", "keyspace"});
  Same({"INFO", "nosuchsection"});
  // Several sections in one call (Redis 7): each header once, in any order.
  for (const Args& cmd :
       {Args{"INFO", "server", "keyspace"}, Args{"INFO", "SERVER", "clients"}, Args{"INFO", "all"},
        Args{"INFO", "everything"}, Args{"INFO", "default"}}) {
    Client::ReplyPtr want = redisc_->RawCmd(cmd), got = rcc_->RawCmd(cmd);
    ASSERT_TRUE(want && got);
    ASSERT_EQ(got->type, REDIS_REPLY_STRING) << Canon(got.get());
    std::string w(want->str, want->len), g(got->str, got->len);
    for (const char* header :
         {"# Server\r\n", "# Clients\r\n", "# Keyspace\r\n", "# Memory\r\n", "# Stats\r\n"}) {
      bool in_redis = w.find(header) != std::string::npos;
      EXPECT_EQ(g.find(header) != std::string::npos, in_redis)
          << Describe(cmd) << ": section " << header << (in_redis ? " missing" : " unexpected")
          << "\n"
          << g;
    }
  }
}

TEST_P(DiffServerTest, TimeIsNow) {
  Client::ReplyPtr r = rcc_->RawCmd({"TIME"});
  ASSERT_TRUE(r);
  std::vector<std::string> t = Strings(r.get());
  ASSERT_EQ(t.size(), 2u) << Canon(r.get());
  EXPECT_EQ(r->element[0]->type, REDIS_REPLY_STRING);
  long long secs = std::stoll(t[0]), usecs = std::stoll(t[1]);
  EXPECT_LE(std::llabs(secs - std::time(nullptr)), 5);
  EXPECT_GE(usecs, 0);
  EXPECT_LT(usecs, 1000000);
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffServerTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
