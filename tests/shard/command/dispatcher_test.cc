// Routing, fan-out and reply order through real shard threads (no sockets).

#include <cctype>
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "tests/shard/shard_harness.h"

namespace rc::testing {
namespace {

std::string ToUpperForTest(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

class DispatcherTest : public ::testing::TestWithParam<int> {
 protected:
  DispatcherTest() : h_(size_t(GetParam())) {}
  ShardHarness h_;
};

TEST_P(DispatcherTest, SetThenGetFromEveryThread) {
  for (int home = 0; home < GetParam(); ++home) {
    for (int i = 0; i < 50; ++i) {
      std::string key = "key:" + std::to_string(i);
      std::string value = "v" + std::to_string(home * 100 + i);
      ASSERT_EQ(h_.Run({"SET", key, value}, uint32_t(home)), "+OK\r\n");
      ASSERT_EQ(h_.Run({"GET", key}, uint32_t((home + 1) % GetParam())), Bulk(value));
    }
  }
}

TEST_P(DispatcherTest, PipelinedRepliesKeepRequestOrder) {
  std::vector<std::vector<std::string>> cmds;
  std::string want;
  for (int i = 0; i < 200; ++i) {
    std::string key = "k" + std::to_string(i);
    cmds.push_back({"SET", key, std::to_string(i)});
    want += "+OK\r\n";
    cmds.push_back({"INCR", key});
    want += ":" + std::to_string(i + 1) + "\r\n";
    cmds.push_back({"PING"});
    want += "+PONG\r\n";
  }
  EXPECT_EQ(h_.RunPipeline(cmds), want);
}

TEST_P(DispatcherTest, MultiKeyCommandsSpanShards) {
  std::vector<std::string> mset = {"MSET"};
  std::vector<std::string> mget = {"MGET"};
  std::string want_mget = "*41\r\n";
  for (int i = 0; i < 40; ++i) {
    mset.push_back("m" + std::to_string(i));
    mset.push_back("val" + std::to_string(i));
    mget.push_back("m" + std::to_string(i));
    want_mget += Bulk("val" + std::to_string(i));
  }
  mget.push_back("missing");
  want_mget += "$-1\r\n";
  EXPECT_EQ(h_.Run(mset), "+OK\r\n");
  EXPECT_EQ(h_.Run(mget, uint32_t(GetParam() - 1)), want_mget);
  EXPECT_EQ(h_.Run({"EXISTS", "m1", "m2", "m1", "nope"}), ":3\r\n");
  EXPECT_EQ(h_.Run({"DBSIZE"}), ":40\r\n");
  EXPECT_EQ(h_.Run({"DEL", "m1", "m2", "m3", "nope", "m1"}), ":3\r\n");
  EXPECT_EQ(h_.Run({"DBSIZE"}), ":37\r\n");
}

TEST_P(DispatcherTest, MSetNxIsAllOrNothing) {
  EXPECT_EQ(h_.Run({"MSETNX", "a", "1", "b", "2", "c", "3"}), ":1\r\n");
  EXPECT_EQ(h_.Run({"MSETNX", "d", "4", "c", "9"}), ":0\r\n");
  EXPECT_EQ(h_.Run({"EXISTS", "d"}), ":0\r\n");
  EXPECT_EQ(h_.Run({"GET", "c"}), Bulk("3"));
}

TEST_P(DispatcherTest, RenameAcrossShardsIsSeenByTheNextCommand) {
  for (int i = 0; i < 30; ++i) {
    std::string src = "src" + std::to_string(i), dst = "dst" + std::to_string(i);
    std::string got = h_.RunPipeline({{"SET", src, "x" + std::to_string(i)},
                                      {"RENAME", src, dst},
                                      {"GET", dst},
                                      {"EXISTS", src}});
    ASSERT_EQ(got, "+OK\r\n+OK\r\n" + Bulk("x" + std::to_string(i)) + ":0\r\n") << src;
  }
  EXPECT_EQ(h_.Run({"RENAME", "nosuch", "x"}), "-ERR no such key\r\n");
  EXPECT_EQ(h_.Run({"SET", "p", "1"}), "+OK\r\n");
  EXPECT_EQ(h_.Run({"SET", "q", "2"}), "+OK\r\n");
  EXPECT_EQ(h_.Run({"RENAMENX", "p", "q"}), ":0\r\n");
  EXPECT_EQ(h_.Run({"RENAMENX", "p", "r"}), ":1\r\n");
}

TEST_P(DispatcherTest, ScanVisitsEveryKeyOnEveryShard) {
  std::set<std::string> keys;
  for (int i = 0; i < 500; ++i) {
    keys.insert("scan:" + std::to_string(i));
    ASSERT_EQ(h_.Run({"SET", "scan:" + std::to_string(i), "v"}), "+OK\r\n");
  }
  std::set<std::string> seen;
  std::string cursor = "0";
  int calls = 0;
  do {
    std::string reply = h_.Run({"SCAN", cursor, "COUNT", "7"});
    // *2\r\n$<n>\r\n<cursor>\r\n*<k>\r\n($<n>\r\n<key>\r\n)*
    size_t p = reply.find("\r\n", 4);
    size_t start = p + 2;
    size_t end = reply.find("\r\n", start);
    cursor = reply.substr(start, end - start);
    size_t pos = reply.find("\r\n", end + 2) + 2;
    while (pos < reply.size()) {
      size_t len_end = reply.find("\r\n", pos);
      size_t len = std::stoul(reply.substr(pos + 1, len_end - pos - 1));
      seen.insert(reply.substr(len_end + 2, len));
      pos = len_end + 2 + len + 2;
    }
    ASSERT_LT(++calls, 10000);
  } while (cursor != "0");
  EXPECT_EQ(seen, keys);
}

TEST_P(DispatcherTest, ErrorsUseRedisText) {
  EXPECT_EQ(h_.Run({"NOPE", "a", "b"}),
            "-ERR unknown command 'NOPE', with args beginning with: 'a' 'b' \r\n");
  EXPECT_EQ(h_.Run({"GET"}), "-ERR wrong number of arguments for 'get' command\r\n");
  EXPECT_EQ(h_.Run({"MSET", "a", "1", "b"}),
            "-ERR wrong number of arguments for 'mset' command\r\n");
  EXPECT_EQ(h_.Run({"SET", "k", "v", "NX", "XX"}), "-ERR syntax error\r\n");
  EXPECT_EQ(h_.Run({"SET", "k", "v", "EX", "0"}), "-ERR invalid expire time in 'set' command\r\n");
}

TEST_P(DispatcherTest, FlushAllEmptiesEveryShard) {
  for (int i = 0; i < 100; ++i) h_.Run({"SET", "f" + std::to_string(i), "v"});
  EXPECT_EQ(h_.RunPipeline({{"FLUSHALL"}, {"DBSIZE"}}), "+OK\r\n:0\r\n");
}

TEST_P(DispatcherTest, RequirepassGatesEveryCommandButTheNoAuthOnes) {
  EXPECT_EQ(h_.Run({"CONFIG", "SET", "requirepass", "pw"}), "+OK\r\n");
  auto c = h_.Connect(uint32_t(GetParam() - 1));
  const std::string noauth = "-NOAUTH Authentication required.\r\n";
  EXPECT_EQ(h_.Run(c, {"GET", "k"}), noauth);  // keyed, possibly on another shard
  EXPECT_EQ(h_.Run(c, {"MGET", "a", "b", "c"}), noauth);
  EXPECT_EQ(h_.Run(c, {"GET"}), "-ERR wrong number of arguments for 'get' command\r\n");
  EXPECT_EQ(h_.Run(c, {"AUTH", "nope"}),
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
  EXPECT_EQ(h_.RunPipeline({{"AUTH", "pw"}, {"SET", "k", "v"}, {"GET", "k"}}, c),
            "+OK\r\n+OK\r\n" + Bulk("v"));
  EXPECT_EQ(h_.Run(c, {"RESET"}), "+RESET\r\n");
  EXPECT_EQ(h_.Run(c, {"GET", "k"}), noauth);
}

// A container's subcommand is a row of its own: its arity, keys and handler.
TEST_P(DispatcherTest, SubcommandRowsAreCheckedAndRoutedByTheirOwnRow) {
  EXPECT_EQ(h_.Run({"CONFIG"}), "-ERR wrong number of arguments for 'config' command\r\n");
  EXPECT_EQ(h_.Run({"config", "GET"}),
            "-ERR wrong number of arguments for 'config|get' command\r\n");
  EXPECT_EQ(h_.Run({"config", "nope"}), "-ERR unknown subcommand 'nope'. Try CONFIG HELP.\r\n");
  EXPECT_EQ(h_.Run({"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(h_.Run({"object", "Encoding", "k"}, uint32_t(GetParam() - 1)), Bulk("embstr"));
  EXPECT_EQ(h_.Run({"MEMORY", "USAGE", "nokey"}), "$-1\r\n");
  // Inside EXEC too: OBJECT HELP and MEMORY DOCTOR name no key and run on the
  // connection's thread, OBJECT ENCODING runs on its key's shard.
  std::string got = h_.RunPipeline(
      {{"MULTI"}, {"OBJECT", "HELP"}, {"MEMORY", "DOCTOR"}, {"OBJECT", "ENCODING", "k"}, {"EXEC"}});
  EXPECT_TRUE(got.starts_with("+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n*3\r\n*")) << got;
  EXPECT_TRUE(got.ends_with(Bulk("embstr"))) << got;
}

TEST_P(DispatcherTest, SubcommandsCountUnderTheirFullName) {
  h_.Run({"CONFIG", "GET", "maxmemory"});
  h_.Run({"CONFIG", "GET"});
  std::string info = h_.Run({"INFO", "commandstats"});
  size_t at = info.find("cmdstat_config|get:calls=1,");
  ASSERT_NE(at, std::string::npos) << info;
  std::string line = info.substr(at, info.find("\r\n", at) - at);
  EXPECT_NE(line.find(",rejected_calls=1,"), std::string::npos) << line;
  EXPECT_EQ(info.find("cmdstat_config:"), std::string::npos) << info;
}

INSTANTIATE_TEST_SUITE_P(Threads, DispatcherTest, ::testing::Values(1, 2, 3, 5));

TEST(CommandTableTest, EveryRowHasItsOwnStatIdAndFullName) {
  CommandTable table = BuildCommandTable();
  const std::vector<std::string>& names = table.stat_names();
  size_t rows = 0;
  table.ForEach([&](const CommandSpec& spec) {
    ++rows;
    ASSERT_LT(spec.stat_id, names.size());
    EXPECT_EQ(names[spec.stat_id], spec.name);
    EXPECT_EQ(spec.full_name, spec.name);
    for (const CommandSpec& sub : spec.subcommands) {
      ++rows;
      ASSERT_LT(sub.stat_id, names.size());
      EXPECT_EQ(sub.full_name, spec.name + "|" + sub.name);
      EXPECT_EQ(names[sub.stat_id], sub.full_name);
      EXPECT_EQ(spec.FindSubcommand(ToUpperForTest(sub.name)), &sub);
    }
  });
  EXPECT_EQ(rows, names.size());
  const std::string_view get[] = {"Config", "GET", "x"};
  EXPECT_EQ(table.Resolve(ArgList(get, 3))->full_name, "config|get");
  const std::string_view bare[] = {"COMMAND"};
  EXPECT_EQ(table.Resolve(ArgList(bare, 1))->full_name, "command");
  const std::string_view unknown[] = {"config", "nope"};
  EXPECT_EQ(table.Resolve(ArgList(unknown, 2)), nullptr);
}

}  // namespace
}  // namespace rc::testing
