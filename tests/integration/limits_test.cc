// Configured limits, with the same flags given to ringcache and redis-server: maxclients
// (counted over all threads), proto-max-bulk-len, and the idle-client timeout.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

using Clock = std::chrono::steady_clock;

class LimitsTest : public DiffTest {
 protected:
  static constexpr int kMaxClients = 6;
  Args ExtraFlags() const override {
    return {"--maxclients", std::to_string(kMaxClients), "--proto-max-bulk-len", "1mb"};
  }

  // Opens raw connections to `port` until one is refused; returns how many were accepted
  // (answered PING) and the refusal reply. Keeps the accepted ones in `open`.
  std::pair<int, std::string> FillUp(int port, std::vector<std::unique_ptr<RawConn>>* open) {
    for (int i = 0; i < 4 * kMaxClients; ++i) {
      auto c = NewRaw(port);
      if (!c || !c->Send("PING\r\n")) return {i, "!connect"};
      std::string reply = c->ReadReply(std::chrono::seconds(5));
      if (reply != "+PONG") return {i, reply};
      open->push_back(std::move(c));
    }
    return {4 * kMaxClients, ""};
  }
};

TEST_P(LimitsTest, MaxclientsCountsConnectionsOfEveryThread) {
  std::vector<std::unique_ptr<RawConn>> redis_conns, rc_conns;
  auto [redis_open, redis_refusal] = FillUp(redis_->port(), &redis_conns);
  auto [rc_open, rc_refusal] = FillUp(rc_->port(), &rc_conns);
  // The fixture holds one client to each server.
  EXPECT_EQ(redis_open, kMaxClients - 1);
  EXPECT_EQ(redis_refusal, "-ERR max number of clients reached");
  EXPECT_EQ(rc_open, redis_open) << "connections accepted before the limit";
  EXPECT_EQ(rc_refusal, redis_refusal);
  // Once a client leaves, a new one gets in (poll: the close is noticed asynchronously).
  rc_conns.pop_back();
  bool admitted = false;
  for (auto deadline = Clock::now() + std::chrono::seconds(5);
       !admitted && Clock::now() < deadline;) {
    auto c = NewRaw(rc_->port());
    admitted = c && c->Send("PING\r\n") && c->ReadReply() == "+PONG";
  }
  EXPECT_TRUE(admitted);
  EXPECT_EQ(rcc_->Cmd({"PING"}), "+PONG");
}

TEST_P(LimitsTest, BulkLongerThanProtoMaxBulkLenIsAProtocolError) {
  const std::string ok = EncodeCommand({"SET", "k", std::string(1 << 20, 'x')});
  const std::string too_long = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048577\r\n";
  for (ServerProcess* server : {redis_.get(), rc_.get()}) {
    SCOPED_TRACE(server->name());
    auto conn = NewRaw(server->port());
    ASSERT_TRUE(conn);
    ASSERT_TRUE(conn->Send(ok + too_long));
    EXPECT_EQ(conn->ReadReplies(2),
              (std::vector<std::string>{"+OK", "-ERR Protocol error: invalid bulk length"}));
    EXPECT_TRUE(conn->WaitClosed());
  }
  Same({"STRLEN", "k"});
}

INSTANTIATE_TEST_SUITE_P(Threads, LimitsTest, ::testing::Values(1, 3), ThreadsName);

// `--timeout 1`: a client idle for more than a second is disconnected. Polls for the close
// (up to 5 s; Redis takes 1-2 s), on both servers at once.
class IdleTimeoutTest : public DiffTest {
 protected:
  Args ExtraFlags() const override { return {"--timeout", "1"}; }
};

TEST_P(IdleTimeoutTest, IdleClientIsClosed) {
  auto redis_idle = NewRaw(redis_->port());
  auto rc_idle = NewRaw(rc_->port());
  ASSERT_TRUE(redis_idle && rc_idle);
  for (RawConn* c : {redis_idle.get(), rc_idle.get()}) {
    ASSERT_TRUE(c->Send("PING\r\n"));
    ASSERT_EQ(c->ReadReply(), "+PONG");
  }
  auto start = Clock::now();
  ASSERT_TRUE(redis_idle->WaitClosed(std::chrono::seconds(5))) << "redis-server kept it";
  EXPECT_TRUE(rc_idle->WaitClosed(std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::seconds(5) - (Clock::now() - start))))
      << "ringcache kept an idle client connected for 5 s with --timeout 1";
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(900)) << "closed too early";
  auto fresh = NewClient();  // The server itself is fine, and new clients are served.
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh->Cmd({"PING"}), "+PONG");
}

INSTANTIATE_TEST_SUITE_P(Threads, IdleTimeoutTest, ::testing::Values(2), ThreadsName);

}  // namespace
}  // namespace rc::it
