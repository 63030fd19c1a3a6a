// Process lifecycle: SHUTDOWN and SIGTERM/SIGINT make ringcache exit 0 promptly, also with
// clients connected and busy, and leave the port free at once; a second server on a taken
// port refuses to start. (Every other test's teardown checks the SIGTERM path too.)

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class LifecycleTest : public RingcacheTest {
 protected:
  void ExpectCleanExit() {
    std::optional<int> status = rc_->WaitExit(ServerProcess::kStopTimeout);
    ASSERT_TRUE(status) << "still running " << ServerProcess::kStopTimeout.count() << " ms later";
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0)
        << "wait status " << *status << "; output:\n"
        << rc_->Output();
  }
};

TEST_P(LifecycleTest, ShutdownCommandExitsZero) {
  ASSERT_EQ(rcc_->Cmd({"SET", "k", "v"}), "+OK");
  auto idle = NewClient();
  ASSERT_TRUE(idle);
  std::string reply = rcc_->Cmd({"SHUTDOWN"});
  // Like Redis, a successful SHUTDOWN sends no reply: the connection just closes.
  EXPECT_EQ(reply.rfind("!IO", 0), 0u) << reply;
  ASSERT_NO_FATAL_FAILURE(ExpectCleanExit());
  EXPECT_EQ(idle->Cmd({"PING"}).rfind("!IO", 0), 0u);
}

TEST_P(LifecycleTest, ShutdownNosaveExitsZero) {
  rcc_->Cmd({"SHUTDOWN", "NOSAVE"});
  ASSERT_NO_FATAL_FAILURE(ExpectCleanExit());
}

TEST_P(LifecycleTest, SigtermWithBusyClientsExitsZero) {
  // One client mid-pipeline (replies unread), one idle, one with half a command sent.
  auto busy = NewRaw(rc_->port());
  auto partial = NewRaw(rc_->port());
  auto idle = NewClient();
  ASSERT_TRUE(busy && partial && idle);
  std::string stream;
  for (int i = 0; i < 5000; ++i) stream += EncodeCommand({"SET", absl::StrCat("k", i), "v"});
  ASSERT_TRUE(busy->Send(stream));
  ASSERT_TRUE(partial->Send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nab"));
  ASSERT_EQ(idle->Cmd({"PING"}), "+PONG");
  ASSERT_TRUE(rc_->Signal(SIGTERM));
  ASSERT_NO_FATAL_FAILURE(ExpectCleanExit());
  EXPECT_TRUE(partial->WaitClosed());
}

TEST_P(LifecycleTest, SigintExitsZero) {
  ASSERT_EQ(rcc_->Cmd({"PING"}), "+PONG");
  ASSERT_TRUE(rc_->Signal(SIGINT));
  ASSERT_NO_FATAL_FAILURE(ExpectCleanExit());
}

TEST_P(LifecycleTest, ShutdownWithWrongArgumentsKeepsRunning) {
  std::string reply = rcc_->Cmd({"SHUTDOWN", "BOGUS"});
  EXPECT_EQ(reply[0], '-') << reply;
  EXPECT_EQ(rcc_->Cmd({"PING"}), "+PONG");
  EXPECT_FALSE(rc_->WaitExit(std::chrono::milliseconds(0)));
}

// The main port's listeners share it by SO_REUSEPORT; a second process must not join them
// (it would take part of the clients, with keys of its own): it fails as Redis does.
// (The fixture's server took an ephemeral port, which the kernel never lets another
// process share: these two name theirs.)
TEST_P(LifecycleTest, SecondServerOnTheSamePortRefusesToStart) {
  std::string error;
  std::unique_ptr<ServerProcess> first;
  for (int attempt = 0; attempt < 5 && !first; ++attempt) {  // the port may be taken meanwhile
    first = ServerProcess::StartRingcache(threads(), {"--port", std::to_string(PickFreePort())},
                                          &error);
  }
  ASSERT_TRUE(first) << error;
  const std::string port = std::to_string(first->port());
  auto second = ServerProcess::StartRingcache(threads(), {"--port", port}, &error);
  EXPECT_FALSE(second) << "two servers on port " << port;
  EXPECT_NE(error.find("Address already in use"), std::string::npos) << error;
}

// Once the process is gone nothing listens on its port, so a server restarted at once (one
// without SO_REUSEPORT, as redis-server) can take it. The kernel tears io_uring rings down
// after exit, and their pending accepts kept the listeners a while (1 run in 7 or so).
TEST_P(LifecycleTest, PortIsFreeOnceStopped) {
  auto blocked = NewRaw(rc_->port());
  ASSERT_TRUE(blocked);
  ASSERT_TRUE(blocked->Send(EncodeCommand({"BLPOP", "nothing", "0"})));
  ASSERT_EQ(rcc_->Cmd({"SET", "k", "v"}), "+OK");
  const int port = rc_->port();
  ASSERT_TRUE(rc_->Signal(SIGTERM));
  ASSERT_NO_FATAL_FAILURE(ExpectCleanExit());
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool bound = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
                     listen(fd, 16) == 0;
  const int bind_errno = errno;
  close(fd);
  EXPECT_TRUE(bound) << "port " << port << ": " << std::strerror(bind_errno);
}

INSTANTIATE_TEST_SUITE_P(Threads, LifecycleTest, ::testing::Values(1, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
