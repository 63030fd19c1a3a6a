#include "gtest/gtest.h"
#include "shard/server/command_line.h"
#include "shard/server/config_file.h"
#include "shard/server/config_params.h"

namespace rc {
namespace {

TEST(Config, RedisConfSyntax) {
  Config c;
  std::string error;
  ASSERT_TRUE(
      ApplyConfigText("# comment\nport 7000\nbind \"127.0.0.1 ::1\"\n"
                      "proto-max-bulk-len 1gb\r\nsave \"\"\nmaxclients 50\n"
                      "some-redis-only-directive yes\n",
                      &c, &error))
      << error;
  EXPECT_EQ(c.port, 7000);
  EXPECT_EQ(c.bind, "127.0.0.1");
  EXPECT_EQ(c.proto_max_bulk_len, 1LL << 30);
  EXPECT_EQ(c.maxclients, 50);
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
