#include "shard/config.h"

#include "gtest/gtest.h"

namespace rc {
namespace {

TEST(Config, RedisConfSyntax) {
  Config c;
  std::string error;
  ASSERT_TRUE(ApplyConfigText("# comment\nport 7000\nbind \"127.0.0.1 ::1\"\n"
                              "proto-max-bulk-len 1gb\r\nsave \"\"\nmaxclients 50\n"
                              "some-redis-only-directive yes\n",
                              &c, &error))
      << error;
  EXPECT_EQ(c.port, 7000);
  EXPECT_EQ(c.bind, "127.0.0.1");
  EXPECT_EQ(c.proto_max_bulk_len, 1LL << 30);
  EXPECT_EQ(c.maxclients, 50);
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

TEST(Config, MemoryUnits) {
  int64_t v;
  ASSERT_TRUE(ParseMemory("1k", &v));
  EXPECT_EQ(v, 1000);
  ASSERT_TRUE(ParseMemory("1KB", &v));
  EXPECT_EQ(v, 1024);
  ASSERT_TRUE(ParseMemory("512mb", &v));
  EXPECT_EQ(v, 512LL << 20);
  ASSERT_TRUE(ParseMemory("100", &v));
  EXPECT_EQ(v, 100);
  EXPECT_FALSE(ParseMemory("-1", &v));
  EXPECT_FALSE(ParseMemory("lots", &v));
}

}  // namespace
}  // namespace rc
