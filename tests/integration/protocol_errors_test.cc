// Byte-level protocol handling compared with redis-server for the same bytes: malformed
// requests get the same `-ERR Protocol error: ...` reply and close only their own
// connection; inline commands work; QUIT replies +OK and closes.

#include <string>
#include <vector>

#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class ProtocolTest : public DiffTest {
 protected:
  // Replies to `bytes` on a fresh raw connection to `port` (up to `n`, fewer if it closes),
  // and whether the server then closed the connection.
  struct Outcome {
    std::vector<std::string> replies;
    bool closed = false;
  };
  Outcome Send(int port, const std::string& bytes, size_t n) {
    Outcome out;
    auto conn = NewRaw(port);
    if (!conn || !conn->Send(bytes)) return out;
    out.replies = conn->ReadReplies(n, std::chrono::seconds(5));
    out.closed = conn->WaitClosed(std::chrono::seconds(5));
    return out;
  }
};

struct BadInput {
  const char* what;
  std::string bytes;
};

std::vector<BadInput> BadInputs() {
  return {
      {"non-numeric bulk length", "*1\r\n$x\r\n"},
      {"non-numeric multibulk count", "*abc\r\n"},
      {"unbalanced double quote (inline)", "SET a \"b c\r\n"},
      {"unbalanced single quote (inline)", "SET a 'b\r\n"},
      {"closing quote not followed by space", "SET a \"b\"c\r\n"},
      {"simple string instead of bulk", "*1\r\n+PING\r\n"},
      {"negative bulk length", "*1\r\n$-1\r\n"},
      {"bulk length above proto-max-bulk-len", "*1\r\n$536870913\r\n"},
      {"multibulk count above INT_MAX", "*3000000000\r\n"},
      {"inline request without newline over 64k", std::string(70000, 'a')},
      {"multibulk count line over 64k", "*" + std::string(70000, '1')},
      {"bulk length line over 64k", "*1\r\n$" + std::string(70000, '1')},
      {"good command then garbage", "PING\r\n*2\r\n$3\r\nGET\r\n$z\r\n"},
  };
}

TEST_P(ProtocolTest, MalformedRequestsGetRedisErrorAndCloseOnlyThatConnection) {
  auto bystander = NewClient();
  ASSERT_TRUE(bystander);
  ASSERT_EQ(bystander->Cmd({"SET", "survivor", "yes"}), "+OK");
  for (const BadInput& bad : BadInputs()) {
    SCOPED_TRACE(bad.what);
    Outcome want = Send(redis_->port(), bad.bytes, 2);
    Outcome got = Send(rc_->port(), bad.bytes, 2);
    ASSERT_FALSE(want.replies.empty()) << "redis-server did not reply";
    ASSERT_TRUE(want.closed) << "redis-server kept the connection";  // Sanity of the test.
    EXPECT_EQ(got.replies, want.replies) << "bytes: " << Describe({bad.bytes.substr(0, 60)});
    EXPECT_TRUE(got.closed) << "ringcache kept the connection open";
    EXPECT_EQ(bystander->Cmd({"GET", "survivor"}), "$yes") << "other connection broken";
  }
  EXPECT_EQ(bystander->Cmd({"PING"}), "+PONG");
}

TEST_P(ProtocolTest, InlineCommands) {
  const std::string stream =
      "PING\r\n"
      "SET a \"b c\"\r\n"
      "GET a\r\n"
      "PING\n"
      "\r\n"
      "\n"
      "ECHO \"\\x41\\tz\\n\"\r\n"
      "SET b 'x \"y\" z'\r\n"
      "   GET    b   \r\n"
      "*-1\r\n"
      "*0\r\n"
      "SET c \"\"\r\n"
      "STRLEN c\r\n"
      "MGET a b c\r\n"
      "set \"quoted key\" v\r\n"
      "EXISTS \"quoted key\" a\r\n"
      "ECHO '\\n'\r\n"
      "PING\r\n";
  constexpr size_t kReplies = 14;
  Outcome want = Send(redis_->port(), stream + "QUIT\r\n", kReplies + 1);
  Outcome got = Send(rc_->port(), stream + "QUIT\r\n", kReplies + 1);
  ASSERT_EQ(want.replies.size(), kReplies + 1);
  EXPECT_EQ(want.replies.back(), "+OK");
  EXPECT_EQ(got.replies, want.replies);
  EXPECT_TRUE(got.closed);
  Same({"MGET", "a", "b", "c", "quoted key"});
}

TEST_P(ProtocolTest, QuitRepliesOkClosesAndRunsNothingAfterIt) {
  const std::string stream = EncodeCommand({"SET", "before", "1"}) + EncodeCommand({"QUIT"}) +
                             EncodeCommand({"SET", "after", "1"});
  Outcome want = Send(redis_->port(), stream, 3);
  Outcome got = Send(rc_->port(), stream, 3);
  EXPECT_EQ(want.replies, (std::vector<std::string>{"+OK", "+OK"}));
  EXPECT_EQ(got.replies, want.replies);
  EXPECT_TRUE(got.closed);
  Same({"MGET", "before", "after"});
  Same({"QUIT", "extra", "args"});  // QUIT takes any arguments; the client reconnects.
}

INSTANTIATE_TEST_SUITE_P(Threads, ProtocolTest, ::testing::Values(1, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
