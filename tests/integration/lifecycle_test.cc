// Process lifecycle: SHUTDOWN and SIGTERM/SIGINT make ringcache exit 0 promptly, also with
// clients connected and busy. (Every other test's teardown checks the SIGTERM path too.)

#include <signal.h>
#include <sys/wait.h>

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

INSTANTIATE_TEST_SUITE_P(Threads, LifecycleTest, ::testing::Values(1, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
