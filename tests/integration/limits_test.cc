// Configured limits, with the same flags given to ringcache and redis-server: maxclients
// (counted over all threads), proto-max-bulk-len, the idle-client timeout, the request
// size limits, client-query-buffer-limit and client-output-buffer-limit (normal and
// pubsub classes, hard and soft).

#include <fstream>
#include <string>
#include <thread>
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

TEST_P(LimitsTest, ArgumentCountAndInlineLengthLimits) {
  // Redis accepts up to INT_MAX arguments; ringcache stops at 1M with Redis's text.
  auto c = NewRaw(rc_->port());
  ASSERT_TRUE(c && c->Send("*1048577\r\n"));
  EXPECT_EQ(c->ReadReply(), "-ERR Protocol error: invalid multibulk length");
  EXPECT_TRUE(c->WaitClosed());
  c = NewRaw(rc_->port());  // 1M itself is fine: the server waits for the arguments.
  ASSERT_TRUE(c && c->Send("*1048576\r\n"));
  EXPECT_EQ(c->ReadReply(std::chrono::milliseconds(300)), "!TIMEOUT");
  for (ServerProcess* server : {redis_.get(), rc_.get()}) {
    SCOPED_TRACE(server->name());
    c = NewRaw(server->port());
    ASSERT_TRUE(c && c->Send("PING " + std::string(64 * 1024, 'x')));
    EXPECT_EQ(c->ReadReply(), "-ERR Protocol error: too big inline request");
    EXPECT_TRUE(c->WaitClosed());
  }
  Same({"PING"});
}

INSTANTIATE_TEST_SUITE_P(Threads, LimitsTest, ::testing::Values(1, 3), ThreadsName);

// Resident memory of a process, from /proc; 0 if unreadable.
int64_t RssBytes(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return 0;
}

// client-query-buffer-limit and client-output-buffer-limit with their defaults, changed
// with CONFIG SET on both servers.
class BufferLimitsTest : public DiffTest {
 protected:
  // Subscribes a fresh raw connection to `channel` on `server`.
  std::unique_ptr<RawConn> Subscriber(ServerProcess* server, const std::string& channel) {
    auto sub = NewRaw(server->port());
    EXPECT_TRUE(sub && sub->Send(EncodeCommand({"SUBSCRIBE", channel})));
    EXPECT_EQ(sub->ReadReply(), "*[$subscribe,$" + channel + ",:1]");
    return sub;
  }
  // Publishes `count` messages of `size` bytes, pipelined 32 at a time; returns how many
  // subscribers the last PUBLISH reached.
  std::string Flood(ServerProcess* server, const std::string& channel, int count, size_t size) {
    std::string error;
    auto pub = Client::Connect(server->port(), &error);
    EXPECT_TRUE(pub) << error;
    if (!pub) return "";
    const std::string msg(size, 'm');
    std::string last;
    for (int i = 0; i < count; i += 32) {
      int n = std::min(32, count - i);
      for (int j = 0; j < n; ++j) pub->Append({"PUBLISH", channel, msg});
      for (int j = 0; j < n; ++j) last = pub->GetReply();
    }
    return last;
  }
};

TEST_P(BufferLimitsTest, DefaultsAreRedis) {
  Same({"CONFIG", "GET", "client-query-buffer-limit"});
  Same({"CONFIG", "GET", "client-output-buffer-limit"});
  Same({"CONFIG", "GET", "proto-max-bulk-len"});
  Same({"CONFIG", "GET", "protected-mode"});
  Same({"CONFIG", "GET", "requirepass"});
  for (const char* bad : {"foo 1 2 3", "normal 1 2", "normal 1 2 x", "normal -1 2 3",
                          "master 1 2 3", "normal 1 2 -3"}) {
    Same({"CONFIG", "SET", "client-output-buffer-limit", bad});
  }
  Same({"CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 2k 3 replica 1 2 3"});
  Same({"CONFIG", "GET", "client-output-buffer-limit"});
  Same({"CONFIG", "SET", "client-output-buffer-limit", ""});
  Same({"CONFIG", "GET", "client-output-buffer-limit"});
  Same({"CONFIG", "SET", "client-query-buffer-limit", "1000"});
  Same({"CONFIG", "SET", "client-query-buffer-limit", "abc"});
  Same({"CONFIG", "SET", "client-query-buffer-limit", "2mb"});
  Same({"CONFIG", "GET", "client-query-buffer-limit"});
  Same({"CONFIG", "SET", "protected-mode", "maybe"});
  Same({"CONFIG", "SET", "protected-mode", "no"});
  Same({"CONFIG", "GET", "protected-mode"});
}

TEST_P(BufferLimitsTest, QueryBufferOverTheLimitClosesTheClient) {
  Same({"CONFIG", "SET", "client-query-buffer-limit", "1mb"});
  const std::string fits = EncodeCommand({"SET", "small", std::string(900 << 10, 's')});
  const std::string over = EncodeCommand({"SET", "big", std::string(1536 << 10, 'b')});
  for (ServerProcess* server : {redis_.get(), rc_.get()}) {
    SCOPED_TRACE(server->name());
    auto c = NewRaw(server->port());
    ASSERT_TRUE(c && c->Send(fits));
    EXPECT_EQ(c->ReadReply(), "+OK");
    c->Send(over);  // may fail part-way: the server closes while we write
    EXPECT_EQ(c->ReadReply(), "!EOF");
  }
  Same({"EXISTS", "big"});
  Same({"STRLEN", "small"});
}

TEST_P(BufferLimitsTest, NormalClientOverHardOutputLimitIsDisconnected) {
  Same({"CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0"});
  Same({"SET", "big", std::string(256 << 10, 'v')});
  Same({"GET", "big"});  // one reply under the limit is fine
  std::string pipeline;
  for (int i = 0; i < 160; ++i) pipeline += EncodeCommand({"GET", "big"});  // 40MB of replies
  for (ServerProcess* server : {redis_.get(), rc_.get()}) {
    SCOPED_TRACE(server->name());
    auto c = NewRaw(server->port());
    ASSERT_TRUE(c && c->Send(pipeline));
    // Not reading: the replies pile up in the server past the kernel's buffers.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_TRUE(c->WaitClosed(std::chrono::seconds(10)));
  }
  Same({"STRLEN", "big"});
}

// Sanitizers keep shadow memory and quarantines beside every allocation: the same bytes
// buffered cost a server built with one several times the RSS.
int64_t RssSlack(const ServerProcess& server) { return server.Sanitized() ? 3 : 1; }

TEST_P(BufferLimitsTest, SubscriberThatNeverReadsIsDisconnectedAndMemoryStaysBounded) {
  // Default pubsub limits: 32mb hard. 192MB are published to a subscriber that reads
  // nothing; the server drops it and holds at most about the limit meanwhile. A sanitizer
  // build's RSS is too loose a measure for that bound (RssSlack), so there 64MB, enough to
  // be dropped, are published.
  for (ServerProcess* server : {redis_.get(), rc_.get()}) {
    SCOPED_TRACE(server->name());
    auto sub = Subscriber(server, "flood");
    const int64_t rss_before = RssBytes(server->pid());
    int64_t rss_peak = 0;
    std::string last;
    for (int round = 0; round < (server->Sanitized() ? 2 : 6); ++round) {
      last = Flood(server, "flood", 512, 64 << 10);  // 32MB a round
      rss_peak = std::max(rss_peak, RssBytes(server->pid()));
    }
    EXPECT_EQ(last, ":0") << "the subscriber still receives";
    EXPECT_TRUE(sub->WaitClosed(std::chrono::seconds(10)));
    EXPECT_LT(rss_peak - rss_before, RssSlack(*server) * (120 << 20))
        << "RSS before " << rss_before;
  }
}

TEST_P(BufferLimitsTest, SubscriberOverTheSoftLimitForTooLongIsDisconnected) {
  Same({"CONFIG", "SET", "client-output-buffer-limit", "pubsub 0 256kb 1"});
  for (ServerProcess* server : {redis_.get(), rc_.get()}) {
    SCOPED_TRACE(server->name());
    auto sub = Subscriber(server, "soft");
    // The client cannot be over the limit before the flood starts, so it cannot be
    // dropped within a second of this (however slow the flood is, e.g. under TSan).
    auto start = std::chrono::steady_clock::now();
    // Fill the kernel's socket buffers and go over the soft limit (a slow flood may
    // already outlast the second)...
    std::string last = Flood(server, "soft", 256, 64 << 10);
    // ...and stay over it until dropped.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (last == ":1" && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      last = Flood(server, "soft", 1, 1024);
    }
    auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(last, ":0");
    EXPECT_GE(elapsed, std::chrono::milliseconds(900));
    EXPECT_TRUE(sub->WaitClosed(std::chrono::seconds(10)));
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, BufferLimitsTest, ::testing::Values(1, 3), ThreadsName);

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
