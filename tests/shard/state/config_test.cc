#include "gtest/gtest.h"
#include "shard/state/command_line.h"
#include "shard/state/config_file.h"
#include "shard/state/config_params.h"

namespace rc {
namespace {

TEST(Config, RedisConfSyntax) {
  Config c;
  std::string error;
  ASSERT_TRUE(
      ApplyConfigText("# comment\nport 7000\nbind \"127.0.0.1 ::1\"\n"
                      "proto-max-bulk-len 1gb\r\nsave \"\"\nmaxclients 50\n",
                      &c, &error))
      << error;
  EXPECT_EQ(c.port, 7000);
  EXPECT_EQ(c.bind, "127.0.0.1 ::1");
  EXPECT_EQ(c.proto_max_bulk_len, 1LL << 30);
  EXPECT_EQ(c.maxclients, 50);
}

TEST(Config, BindAddressesReadRedisForms) {
  std::vector<BindAddress> a = BindAddresses("* -::* 10.0.0.1");
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].host, "0.0.0.0");
  EXPECT_FALSE(a[0].optional);
  EXPECT_EQ(a[1].host, "::");
  EXPECT_TRUE(a[1].optional);
  EXPECT_EQ(a[2].host, "10.0.0.1");
  EXPECT_FALSE(a[2].optional);
  Config c;
  std::string error;
  EXPECT_FALSE(ApplyConfigText("bind 127.0.0.1 -\n", &c, &error));
  EXPECT_FALSE(ApplyConfigText(
      "bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n", &c, &error));
  EXPECT_NE(error.find("Too many bind addresses"), std::string::npos) << error;
}

// Redis's default save points; in a file the save lines add up, the first replacing the
// defaults and `save ""` clearing them, as redis.conf's do.
TEST(Config, SavePoints) {
  const ConfigParam* save = FindConfigParam("save");
  Config c;
  EXPECT_EQ(save->get(c), "3600 1 300 100 60 10000");
  std::string error;
  ASSERT_TRUE(ApplyConfigText("save 900 1\nsave 300 10\n", &c, &error)) << error;
  EXPECT_EQ(save->get(c), "900 1 300 10");
  ASSERT_TRUE(ApplyConfigText("save 900 1\nsave \"\"\n", &c, &error)) << error;
  EXPECT_EQ(save->get(c), "");
  EXPECT_EQ(save->set(c, "60"), "Invalid save parameters");
  EXPECT_EQ(save->set(c, "60 -1"), "Invalid save parameters");
}

TEST(Config, AppendOnly) {
  Config c;
  auto param = [](std::string_view name) { return FindConfigParam(name); };
  EXPECT_EQ(param("appendonly")->set(c, "yes"), "");
  EXPECT_EQ(param("appendonly")->get(c), "yes");
  EXPECT_EQ(param("appendfsync")->get(c), "everysec");
  EXPECT_EQ(param("appendfsync")->set(c, "ALWAYS"), "");
  EXPECT_EQ(param("appendfsync")->get(c), "always");
  EXPECT_EQ(param("appendfsync")->set(c, "sometimes"),
            "argument(s) must be one of the following: always, everysec, no");
  EXPECT_EQ(param("appendfilename")->set(c, "dir/x.aof"),
            "appendfilename can't be a path, just a filename");
  EXPECT_FALSE(param("appendfilename")->runtime);
  EXPECT_FALSE(param("appenddirname")->runtime);
  // What ringcache does not do is refused, not taken and ignored.
  EXPECT_EQ(param("aof-use-rdb-preamble")->set(c, "yes"), "");
  EXPECT_NE(param("aof-use-rdb-preamble")->set(c, "no"), "");
  EXPECT_EQ(param("aof-timestamp-enabled")->set(c, "no"), "");
  EXPECT_NE(param("aof-timestamp-enabled")->set(c, "yes"), "");
  EXPECT_EQ(param("auto-aof-rewrite-min-size")->set(c, "1mb"), "");
  EXPECT_EQ(param("auto-aof-rewrite-min-size")->get(c), "1048576");
}

TEST(Config, SecurityAndClientLimits) {
  Config c;
  const ConfigParam* obuf = FindConfigParam("client-output-buffer-limit");
  ASSERT_NE(obuf, nullptr);
  EXPECT_EQ(obuf->get(c), "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
  EXPECT_EQ(obuf->set(c, "pubsub 1mb 2k 3 normal 10 20 30"), "");
  EXPECT_EQ(obuf->get(c), "normal 10 20 30 slave 268435456 67108864 60 pubsub 1048576 2000 3");
  // All or nothing: a bad group leaves every class as it was.
  EXPECT_EQ(obuf->set(c, "normal 1 1 1 pubsub x 1 1"),
            "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
  EXPECT_EQ(c.output_limits[Config::kNormal].hard, 10);
  EXPECT_EQ(obuf->set(c, "replica 1 2"),
            "Wrong number of arguments in buffer limit configuration.");
  EXPECT_EQ(obuf->set(c, "master 1 2 3"),
            "Invalid client class specified in buffer limit configuration.");

  std::string error;
  ASSERT_TRUE(
      ApplyConfigText("requirepass \"pass word\"\nprotected-mode no\n"
                      "client-query-buffer-limit 2mb\n",
                      &c, &error))
      << error;
  EXPECT_EQ(c.requirepass, "pass word");
  EXPECT_TRUE(c.auth_required);
  EXPECT_FALSE(c.protected_mode);
  EXPECT_EQ(c.client_query_buffer_limit, 2 << 20);
  EXPECT_EQ(FindConfigParam("requirepass")->set(c, ""), "");
  EXPECT_FALSE(c.auth_required);
  EXPECT_EQ(FindConfigParam("client-query-buffer-limit")->set(c, "1000"),
            "argument must be between 1048576 and 9223372036854775807 inclusive");
  EXPECT_EQ(FindConfigParam("protected-mode")->set(c, "on"), "argument must be 'yes' or 'no'");
}

TEST(Config, BadValuesAreRefusedWithTheLine) {
  Config c;
  std::string error;
  EXPECT_FALSE(ApplyConfigText("\nport 99999\n", &c, &error));
  EXPECT_NE(error.find("line 2"), std::string::npos) << error;
  EXPECT_FALSE(ApplyConfigText("maxclients abc\n", &c, &error));
}

// As Redis, a line the server cannot honour stops the start: a typo, a Redis setting
// ringcache lacks, or one it takes only at Redis's default set to something else.
TEST(Config, UnknownDirectivesAreRefusedWithTheLine) {
  Config c;
  std::string error;
  EXPECT_FALSE(ApplyConfigText("port 7000\nmaxmemroy 1gb\n", &c, &error));
  EXPECT_EQ(error, "line 2: >>> 'maxmemroy 1gb': Bad directive or wrong number of arguments");
  EXPECT_FALSE(ApplyConfigText("set-proc-title yes\n", &c, &error));
  EXPECT_EQ(error,
            "line 1: >>> 'set-proc-title yes': ringcache does not implement this Redis "
            "setting");
  ASSERT_TRUE(ApplyConfigText("replica-read-only YES\nrepl-backlog-size 1mb\n"
                              "oom-score-adj-values \"0 200 800\"\nunixsocket \"\"\n",
                              &c, &error))
      << error;
  EXPECT_FALSE(ApplyConfigText("repl-backlog-size 2mb\n", &c, &error));
  EXPECT_EQ(error,
            "line 1: >>> 'repl-backlog-size 2mb': ringcache's replication has no such setting "
            "yet (docs/REPLICATION.md): only Redis's default '1048576' is accepted");
  EXPECT_FALSE(ApplyConfigText("oom-score-adj-values 0 200\n", &c, &error));
  const ConfigParam* backlog = FindConfigParam("repl-backlog-size");
  ASSERT_NE(backlog, nullptr);
  EXPECT_EQ(backlog->get(c), "1048576");
  EXPECT_TRUE(backlog->runtime);
  EXPECT_FALSE(FindConfigParam("unixsocket")->runtime);
  const char* flag[] = {"ringcache", "--set-proc-title", "yes"};
  bool help = false;
  EXPECT_FALSE(ParseCommandLine(3, const_cast<char**>(flag), &c, &help, &error));
  EXPECT_NE(error.find("does not implement"), std::string::npos) << error;
}

TEST(Config, ProcessSettings) {
  Config c;
  auto param = [](std::string_view name) { return FindConfigParam(name); };
  EXPECT_EQ(param("supervised")->set(c, "SYSTEMD"), "");
  EXPECT_EQ(param("supervised")->get(c), "systemd");
  EXPECT_EQ(param("supervised")->set(c, "bogus"),
            "argument(s) must be one of the following: upstart, systemd, auto, no");
  EXPECT_EQ(param("daemonize")->set(c, "maybe"), "argument must be 'yes' or 'no'");
  EXPECT_EQ(param("tcp-keepalive")->set(c, "-1"),
            "argument must be between 0 and 2147483647 inclusive");
  EXPECT_EQ(param("io-threads")->set(c, "1"), "");
  EXPECT_NE(param("io-threads")->set(c, "4"), "");
  for (std::string_view name : {"daemonize", "pidfile", "logfile", "supervised", "io-threads"}) {
    EXPECT_FALSE(param(name)->runtime) << name;
  }
  EXPECT_TRUE(param("tcp-keepalive")->runtime);
}

// Redis's dynamic-hz: hz doubles while clients / hz > 200 (integer division), up to 500.
TEST(Config, DynamicHz) {
  Config c;
  EXPECT_EQ(c.EffectiveHz(0), 10);
  EXPECT_EQ(c.EffectiveHz(2009), 10);
  EXPECT_EQ(c.EffectiveHz(2010), 20);
  EXPECT_EQ(c.EffectiveHz(8040), 80);
  EXPECT_EQ(c.EffectiveHz(1000000), 500);
  ASSERT_EQ(FindConfigParam("dynamic-hz")->set(c, "no"), "");
  EXPECT_EQ(c.EffectiveHz(1000000), 10);
  ASSERT_EQ(FindConfigParam("hz")->set(c, "100"), "");
  EXPECT_EQ(c.EffectiveHz(1000000), 100);
}

TEST(Config, FlagsOverrideTheFile) {
  Config c;
  bool help = false;
  std::string error;
  const char* argv[] = {"ringcache", "--port", "0", "--threads", "3"};
  ASSERT_TRUE(ParseCommandLine(5, const_cast<char**>(argv), &c, &help, &error)) << error;
  EXPECT_EQ(c.port, 0);
  EXPECT_EQ(c.threads, 3);
  const char* bad[] = {"ringcache", "--nonsense", "1"};
  EXPECT_FALSE(ParseCommandLine(3, const_cast<char**>(bad), &c, &help, &error));
  const char* want_help[] = {"ringcache", "--help"};
  ASSERT_TRUE(ParseCommandLine(2, const_cast<char**>(want_help), &c, &help, &error));
  EXPECT_TRUE(help);
}

TEST(Config, IoEngineIsAStartupSetting) {
  Config c;
  std::string error;
  EXPECT_EQ(c.io_engine, "io_uring");
  ASSERT_TRUE(ApplyConfigText("io-engine epoll\n", &c, &error)) << error;
  EXPECT_EQ(c.io_engine, "epoll");
  ASSERT_TRUE(ApplyConfigText("io-engine IO_URING\n", &c, &error)) << error;
  EXPECT_EQ(c.io_engine, "io_uring");
  EXPECT_FALSE(ApplyConfigText("io-engine kqueue\n", &c, &error));
  EXPECT_NE(error.find("io_uring"), std::string::npos) << error;
  const ConfigParam* p = FindConfigParam("io-engine");
  ASSERT_NE(p, nullptr);
  EXPECT_FALSE(p->runtime);  // CONFIG SET refuses it
  EXPECT_EQ(p->get(c), "io_uring");
}

}  // namespace
}  // namespace rc
