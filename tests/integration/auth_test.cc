// requirepass, AUTH and NOAUTH against redis-server given the same flags: every reply is
// compared byte for byte, including the order of the checks (unknown command and wrong
// arity are reported before NOAUTH) and the RESP parser's limits for clients that have
// not authenticated yet.

#include <string>
#include <vector>

#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class AuthTest : public DiffTest {
 protected:
  Args ExtraFlags() const override { return {"--requirepass", "s3cret"}; }

  // One command on a fresh connection to each server; the replies must match.
  void SameOnFresh(const Args& cmd) {
    auto a = NewRaw(redis_->port());
    auto b = NewRaw(rc_->port());
    ASSERT_TRUE(a && b);
    ASSERT_TRUE(a->Send(EncodeCommand(cmd)) && b->Send(EncodeCommand(cmd)));
    EXPECT_EQ(b->ReadReply(), a->ReadReply()) << Describe(cmd);
  }
};

TEST_P(AuthTest, CommandsBeforeAuthGetNoauthAfterNameAndArityChecks) {
  Same({"PING"});
  Same({"GET", "k"});
  Same({"SET", "k", "v"});
  Same({"MULTI"});
  Same({"SUBSCRIBE", "ch"});
  Same({"CONFIG", "GET", "requirepass"});
  Same({"NOSUCHCOMMAND", "x"});
  Same({"GET"});
  Same({"CONFIG", "NOSUCHSUB"});
  EXPECT_EQ(rcc_->Cmd({"PING"}), "-NOAUTH Authentication required.");
}

TEST_P(AuthTest, AuthArityPasswordsAndUsers) {
  Same({"AUTH"});
  Same({"AUTH", "a", "b", "c"});
  Same({"AUTH", "wrong"});
  Same({"AUTH", "nobody", "s3cret"});
  Same({"AUTH", "Default", "s3cret"});  // user names are case-sensitive
  Same({"AUTH", "default", "wrong"});
  Same({"PING"});
  Same({"AUTH", "s3cret"});
  Same({"PING"});
  // A failed AUTH does not log an authenticated client out.
  Same({"AUTH", "wrong"});
  Same({"PING"});
  Same({"SET", "k", "v"});
  Same({"GET", "k"});
  Same({"CONFIG", "GET", "requirepass"});
  Same({"AUTH", "default", "s3cret"});
  SameOnFresh({"AUTH", "default", "s3cret"});
  EXPECT_EQ(rcc_->Cmd({"AUTH", "wrong"}),
            "-WRONGPASS invalid username-password pair or user is disabled.");
}

TEST_P(AuthTest, HelloAuthenticatesOrAsksForAuth) {
  Same({"HELLO"});
  Same({"HELLO", "2"});
  Same({"HELLO", "2", "AUTH", "default", "wrong"});
  Same({"HELLO", "2", "AUTH", "someone", "s3cret"});
  Same({"PING"});
  Client::ReplyPtr r = rcc_->RawCmd({"HELLO", "2", "AUTH", "default", "s3cret"});
  ASSERT_TRUE(r && r->type == REDIS_REPLY_ARRAY) << (r ? Canon(r.get()) : "I/O error");
  redisc_->Cmd({"HELLO", "2", "AUTH", "default", "s3cret"});
  Same({"PING"});
  Same({"HELLO", "2", "AUTH", "default", "wrong"});
  Same({"PING"});  // still authenticated
}

TEST_P(AuthTest, QuitAndResetNeedNoAuthAndResetLogsOut) {
  SameOnFresh({"QUIT"});
  Same({"RESET"});
  Same({"AUTH", "s3cret"});
  Same({"PING"});
  Same({"RESET"});
  Same({"PING"});
  for (const char* name : {"auth", "hello", "quit", "reset", "ping"}) {
    Same({"AUTH", "s3cret"});
    Client::ReplyPtr r = rcc_->RawCmd({"COMMAND", "INFO", name});
    ASSERT_TRUE(r && r->type == REDIS_REPLY_ARRAY && r->elements == 1);
    Client::ReplyPtr want = redisc_->RawCmd({"COMMAND", "INFO", name});
    ASSERT_TRUE(want && want->type == REDIS_REPLY_ARRAY && want->elements == 1);
    // Arity and flags (no_auth among them) as Redis reports them.
    EXPECT_EQ(Canon(r->element[0]->element[1]), Canon(want->element[0]->element[1])) << name;
    EXPECT_EQ(Canon(r->element[0]->element[2]), Canon(want->element[0]->element[2])) << name;
  }
}

TEST_P(AuthTest, UnauthenticatedClientsMaySendOnlySmallRequests) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"11 arguments", "*11\r\n"},
      {"a 16385-byte bulk", "*2\r\n$3\r\nGET\r\n$16385\r\n"},
      {"a signed bulk length", "*2\r\n$3\r\nGET\r\n$+16385\r\n"},
  };
  for (const auto& [what, bytes] : cases) {
    SCOPED_TRACE(what);
    for (ServerProcess* server : {redis_.get(), rc_.get()}) {
      SCOPED_TRACE(server->name());
      auto c = NewRaw(server->port());
      ASSERT_TRUE(c && c->Send(bytes));
      std::string reply = c->ReadReply();
      if (what == "11 arguments") {
        EXPECT_EQ(reply, "-ERR Protocol error: unauthenticated multibulk length");
      } else if (what == "a 16385-byte bulk") {  // The fast path of the count parser.
        EXPECT_EQ(reply, "-ERR Protocol error: unauthenticated bulk length");
      } else {
        EXPECT_EQ(reply, "-ERR Protocol error: invalid bulk length");
      }
      EXPECT_TRUE(c->WaitClosed());
    }
  }
  // At the bounds, and after AUTH, requests of any size are fine.
  std::string big(20000, 'x');
  for (ServerProcess* server : {redis_.get(), rc_.get()}) {
    SCOPED_TRACE(server->name());
    auto c = NewRaw(server->port());
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->Send(EncodeCommand({"ECHO", std::string(16384, 'y')}) +
                        EncodeCommand({"AUTH", "s3cret"}) +
                        EncodeCommand({"MSET", "a", "1", "b", "2", "c", "3", "d", "4", "e", big})));
    EXPECT_EQ(c->ReadReplies(3), (std::vector<std::string>{"-NOAUTH Authentication required.",
                                                           "+OK", "+OK"}));
  }
}

TEST_P(AuthTest, ChangingThePasswordKeepsAuthenticatedClients) {
  Same({"AUTH", "s3cret"});
  auto other_redis = NewRaw(redis_->port());
  auto other_rc = NewRaw(rc_->port());  // connected while a password is set, not authed
  ASSERT_TRUE(other_redis && other_rc);
  for (RawConn* c : {other_redis.get(), other_rc.get()}) {  // accepted by now
    ASSERT_TRUE(c->Send("PING\r\n"));
    ASSERT_EQ(c->ReadReply(), "-NOAUTH Authentication required.");
  }
  Same({"CONFIG", "SET", "requirepass", "n3w"});
  Same({"PING"});
  Same({"CONFIG", "GET", "requirepass"});
  SameOnFresh({"PING"});
  SameOnFresh({"AUTH", "s3cret"});
  SameOnFresh({"AUTH", "n3w"});
  // No password: nobody needs AUTH, AUTH <password> is refused, AUTH default <any> is OK.
  Same({"CONFIG", "SET", "requirepass", ""});
  for (RawConn* c : {other_redis.get(), other_rc.get()}) {
    ASSERT_TRUE(c->Send("PING\r\n"));
    EXPECT_EQ(c->ReadReply(), "+PONG");
  }
  SameOnFresh({"AUTH", "whatever"});
  SameOnFresh({"AUTH", "default", "whatever"});
  SameOnFresh({"AUTH", "someone", "whatever"});
  // A client that connected with no password set stays authenticated when one is set.
  auto early_redis = NewRaw(redis_->port());
  auto early_rc = NewRaw(rc_->port());
  ASSERT_TRUE(early_redis && early_rc);
  // A round trip first: the server has accepted them (a TCP connect completes before the
  // server's accept, which may run on another thread after the CONFIG SET below).
  for (RawConn* c : {early_redis.get(), early_rc.get()}) {
    ASSERT_TRUE(c->Send("PING\r\n"));
    ASSERT_EQ(c->ReadReply(), "+PONG");
  }
  Same({"CONFIG", "SET", "requirepass", "again"});
  for (RawConn* c : {early_redis.get(), early_rc.get()}) {
    ASSERT_TRUE(c->Send("PING\r\n"));
    EXPECT_EQ(c->ReadReply(), "+PONG");
  }
  for (RawConn* c : {other_redis.get(), other_rc.get()}) {
    ASSERT_TRUE(c->Send("PING\r\n"));
    EXPECT_EQ(c->ReadReply(), "-NOAUTH Authentication required.");
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, AuthTest, ::testing::Values(1, 3), ThreadsName);

// No requirepass: AUTH's own errors.
class NoPasswordAuthTest : public DiffTest {};

TEST_P(NoPasswordAuthTest, AuthWithoutAPasswordConfigured) {
  Same({"AUTH", "x"});
  Same({"AUTH", "default", "x"});
  Same({"AUTH", "someone", "x"});
  Same({"CONFIG", "GET", "requirepass"});
  Same({"PING"});
}

INSTANTIATE_TEST_SUITE_P(Threads, NoPasswordAuthTest, ::testing::Values(1), ThreadsName);

}  // namespace
}  // namespace rc::it
