// The io engine: `--io-engine epoll` really runs epoll, `io_uring` runs io_uring when the
// kernel lets it, and a server whose io_uring_setup is blocked (seccomp, as a container
// runtime's profile does) falls back to epoll with a warning and serves as usual.
// Every test names its engine, so the `_epoll` rerun of the suite does not change them.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const char kFallbackWarning[] = "io_uring unavailable (";

// The value of `field` in INFO's text, or "" when absent.
std::string InfoField(Client& c, const std::string& field) {
  Client::ReplyPtr r = c.RawCmd({"INFO", "server"});
  if (!r || r->type != REDIS_REPLY_STRING) return "";
  std::string text(r->str, r->len);
  std::string key = absl::StrCat("\n", field, ":");
  size_t at = text.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  return text.substr(at, text.find('\r', at) - at);
}

class IoEngineTest : public ::testing::TestWithParam<int> {
 protected:
  std::unique_ptr<ServerProcess> Start(const Args& flags, Sandbox sandbox = Sandbox::kNone) {
    std::string error;
    auto p = ServerProcess::StartRingcache(GetParam(), flags, &error, sandbox);
    if (!p && error.find("seccomp filter could not be installed") != std::string::npos) {
      skipped_ = true;
      return nullptr;
    }
    EXPECT_TRUE(p) << error;
    return p;
  }
  std::unique_ptr<Client> Connect(const ServerProcess& p) {
    std::string error;
    auto c = Client::Connect(p.port(), &error);
    EXPECT_TRUE(c) << error;
    return c;
  }
  // Keys on every shard, a cross-shard MSET/MGET (wake-ups between threads), a pipeline.
  void ExpectServes(Client& c) {
    std::vector<std::string> keys;
    for (int s = 0; s < GetParam(); ++s) keys.push_back(KeysOnShard("k", s, GetParam(), 1)[0]);
    Args mset = {"MSET"};
    for (const std::string& k : keys) mset.insert(mset.end(), {k, "v" + k});
    EXPECT_EQ(c.Cmd(mset), "+OK");
    Args mget = {"MGET"};
    std::string want = "*[";
    for (const std::string& k : keys) {
      mget.push_back(k);
      absl::StrAppend(&want, want.size() > 2 ? "," : "", "$v", k);
    }
    EXPECT_EQ(c.Cmd(mget), want + "]");
    for (int i = 0; i < 1000; ++i) c.Append({"INCR", keys.back() + "n"});
    std::string last;
    for (int i = 0; i < 1000; ++i) last = c.GetReply();
    EXPECT_EQ(last, ":1000");
  }
  bool skipped_ = false;
};

TEST_P(IoEngineTest, EpollFlagRunsEpoll) {
  auto server = Start({"--io-engine", "epoll"});
  ASSERT_TRUE(server);
  auto c = Connect(*server);
  ASSERT_TRUE(c);
  EXPECT_EQ(InfoField(*c, "io_engine"), "epoll");
  EXPECT_EQ(InfoField(*c, "multiplexing_api"), "epoll");
  EXPECT_EQ(c->Cmd({"CONFIG", "GET", "io-engine"}), "*[$io-engine,$epoll]");
  EXPECT_THAT(server->Output(), HasSubstr(" io=epoll "));
  EXPECT_THAT(server->Output(), Not(HasSubstr(kFallbackWarning)));
  ExpectServes(*c);
  // Chosen at start-up only.
  EXPECT_THAT(c->Cmd({"CONFIG", "SET", "io-engine", "io_uring"}),
              HasSubstr("can't set immutable config"));
  EXPECT_EQ(InfoField(*c, "io_engine"), "epoll");
}

TEST_P(IoEngineTest, IoUringFlagRunsIoUringWhereTheKernelAllows) {
  auto server = Start({"--io-engine", "io_uring"});
  ASSERT_TRUE(server);
  auto c = Connect(*server);
  ASSERT_TRUE(c);
  // Where this machine has no io_uring the server warned and fell back; either way INFO,
  // CONFIG GET and the start-up line agree on what runs.
  bool fell_back = server->Output().find(kFallbackWarning) != std::string::npos;
  std::string engine = fell_back ? "epoll" : "io_uring";
  EXPECT_EQ(InfoField(*c, "io_engine"), engine);
  EXPECT_EQ(c->Cmd({"CONFIG", "GET", "io-engine"}), absl::StrCat("*[$io-engine,$", engine, "]"));
  EXPECT_THAT(server->Output(), HasSubstr(absl::StrCat(" io=", engine, " ")));
  ExpectServes(*c);
}

TEST_P(IoEngineTest, BlockedIoUringFallsBackToEpoll) {
  auto server = Start({"--io-engine", "io_uring"}, Sandbox::kNoIoUring);
  if (skipped_) GTEST_SKIP() << "this process may not install a seccomp filter";
  ASSERT_TRUE(server);
  std::string out = server->Output();
  // One warning line that names the errno and the engine taken instead.
  EXPECT_THAT(out, HasSubstr("io_uring unavailable (io_uring_queue_init: ENOSYS (Function not "
                             "implemented)), using the epoll io engine"));
  EXPECT_THAT(out, HasSubstr(" io=epoll "));
  auto c = Connect(*server);
  ASSERT_TRUE(c);
  EXPECT_EQ(InfoField(*c, "io_engine"), "epoll");
  EXPECT_EQ(c->Cmd({"CONFIG", "GET", "io-engine"}), "*[$io-engine,$epoll]");
  ExpectServes(*c);
  // SHUTDOWN wakes every thread through the eventfds and the process exits 0.
  c->Cmd({"SHUTDOWN"});
  std::optional<int> status = server->WaitExit(ServerProcess::kStopTimeout);
  ASSERT_TRUE(status);
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << server->Output();
}

TEST_P(IoEngineTest, UnknownEngineIsRefused) {
  std::string error;
  auto server = ServerProcess::StartRingcache(GetParam(), {"--io-engine", "kqueue"}, &error);
  EXPECT_FALSE(server);
  EXPECT_THAT(error, HasSubstr("option '--io-engine': argument must be 'io_uring' or 'epoll'"));
}

INSTANTIATE_TEST_SUITE_P(Threads, IoEngineTest, ::testing::Values(1, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
