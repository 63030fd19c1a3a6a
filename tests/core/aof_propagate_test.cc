// AofPropagate: each of Redis 7.0's rewrites, replies in RESP2 and RESP3, and binary-safe
// arguments. The records are read back into argument lists to compare.

#include "core/aof_propagate.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rc {
namespace {

using Command = std::vector<std::string>;
using Records = std::vector<Command>;

constexpr int64_t kNow = 1'700'000'000'123;

std::string Ms(int64_t ms) { return std::to_string(ms); }

// Reads `*N $len arg...` records back; fails the test on anything else.
Records Decode(const std::string& bytes) {
  Records out;
  size_t pos = 0;
  auto number = [&](char prefix) {
    EXPECT_EQ(bytes[pos], prefix) << bytes;
    const size_t nl = bytes.find("\r\n", pos);
    const int64_t n = std::stoll(bytes.substr(pos + 1, nl - pos - 1));
    pos = nl + 2;
    return n;
  };
  while (pos < bytes.size() && !::testing::Test::HasFailure()) {
    Command cmd(number('*'));
    for (std::string& arg : cmd) {
      const int64_t len = number('$');
      arg = bytes.substr(pos, len);
      EXPECT_EQ(bytes.substr(pos + len, 2), "\r\n");
      pos += len + 2;
    }
    out.push_back(std::move(cmd));
  }
  return out;
}

// What `args`, answered `reply` at kNow, logs.
Records Propagate(const Command& args, std::string_view reply = "+OK\r\n") {
  std::vector<std::string_view> argv(args.begin(), args.end());
  std::string out = "*1\r\n$4\r\nPING\r\n";  // appends: what was there stays
  AofPropagate(argv, reply, kNow, &out);
  Records r = Decode(out);
  EXPECT_EQ(r.front(), Command{"PING"});
  r.erase(r.begin());
  return r;
}

TEST(AofPropagate, ExpireFamilyBecomesPexpireatWithoutOptions) {
  EXPECT_EQ(Propagate({"EXPIRE", "k", "10"}, ":1\r\n"),
            (Records{{"PEXPIREAT", "k", Ms(kNow + 10'000)}}));
  EXPECT_EQ(Propagate({"pexpire", "k", "500", "nx"}, ":1\r\n"),
            (Records{{"PEXPIREAT", "k", Ms(kNow + 500)}}));
  EXPECT_EQ(Propagate({"ExpireAt", "k", "1800000000", "GT"}, ":1\r\n"),
            (Records{{"PEXPIREAT", "k", "1800000000000"}}));
  EXPECT_EQ(Propagate({"PEXPIREAT", "k", "1800000000001", "XX"}, ":1\r\n"),
            (Records{{"PEXPIREAT", "k", "1800000000001"}}));
}

TEST(AofPropagate, ExpireAlreadyPastBecomesDel) {
  EXPECT_EQ(Propagate({"EXPIRE", "k", "-1"}, ":1\r\n"), (Records{{"DEL", "k"}}));
  EXPECT_EQ(Propagate({"PEXPIRE", "k", "0"}, ":1\r\n"), (Records{{"DEL", "k"}}));
  EXPECT_EQ(Propagate({"EXPIREAT", "k", "1"}, ":1\r\n"), (Records{{"DEL", "k"}}));
  // when <= now is already expired (Redis's checkAlreadyExpired).
  EXPECT_EQ(Propagate({"PEXPIREAT", "k", Ms(kNow)}, ":1\r\n"), (Records{{"DEL", "k"}}));
}

TEST(AofPropagate, SetWithExpiryBecomesSetPxat) {
  const Records want = {{"SET", "k", "v", "PXAT", Ms(kNow + 10'000)}};
  EXPECT_EQ(Propagate({"SET", "k", "v", "EX", "10"}), want);
  EXPECT_EQ(Propagate({"set", "k", "v", "px", "10000"}), want);
  EXPECT_EQ(Propagate({"set", "k", "v", "nx", "get", "Px", "10000"}, "_\r\n"), want);
  EXPECT_EQ(Propagate({"SET", "k", "v", "XX", "EXAT", "1800000000"}, "$1\r\no\r\n"),
            (Records{{"SET", "k", "v", "PXAT", "1800000000000"}}));
  EXPECT_EQ(Propagate({"SET", "k", "v", "PXAT", "1800000000001", "GET"}, "$-1\r\n"),
            (Records{{"SET", "k", "v", "PXAT", "1800000000001"}}));
  EXPECT_EQ(Propagate({"SETEX", "k", "10", "v"}), want);
  EXPECT_EQ(Propagate({"psetex", "k", "10000", "v"}), want);
}

TEST(AofPropagate, SetWithoutExpiryLosesOnlyGet) {
  EXPECT_EQ(Propagate({"SET", "k", "v"}), (Records{{"SET", "k", "v"}}));
  EXPECT_EQ(Propagate({"set", "k", "v", "GET"}, "$-1\r\n"), (Records{{"set", "k", "v"}}));
  EXPECT_EQ(Propagate({"SET", "k", "v", "xx", "get", "KEEPTTL"}, "$1\r\no\r\n"),
            (Records{{"SET", "k", "v", "xx", "KEEPTTL"}}));
  // A value spelled like an option is the value.
  EXPECT_EQ(Propagate({"SET", "k", "get", "EX", "1"}),
            (Records{{"SET", "k", "get", "PXAT", Ms(kNow + 1000)}}));
}

TEST(AofPropagate, GetexBecomesPexpireatDelOrPersist) {
  const std::string reply = "$1\r\nv\r\n";
  EXPECT_EQ(Propagate({"GETEX", "k", "EX", "2"}, reply),
            (Records{{"PEXPIREAT", "k", Ms(kNow + 2000)}}));
  EXPECT_EQ(Propagate({"getex", "k", "px", "2"}, reply),
            (Records{{"PEXPIREAT", "k", Ms(kNow + 2)}}));
  EXPECT_EQ(Propagate({"GETEX", "k", "EXAT", "1800000000"}, reply),
            (Records{{"PEXPIREAT", "k", "1800000000000"}}));
  EXPECT_EQ(Propagate({"GETEX", "k", "PXAT", "1800000000001"}, reply),
            (Records{{"PEXPIREAT", "k", "1800000000001"}}));
  EXPECT_EQ(Propagate({"GETEX", "k", "PXAT", "5"}, reply), (Records{{"DEL", "k"}}));
  EXPECT_EQ(Propagate({"GETEX", "k", "Persist"}, reply), (Records{{"PERSIST", "k"}}));
}

TEST(AofPropagate, GetdelBecomesDel) {
  EXPECT_EQ(Propagate({"getdel", "k"}, "$1\r\nv\r\n"), (Records{{"DEL", "k"}}));
}

TEST(AofPropagate, FloatIncrementsLogTheirResultResp2AndResp3) {
  EXPECT_EQ(Propagate({"INCRBYFLOAT", "k", "0.1"}, "$4\r\n10.6\r\n"),
            (Records{{"SET", "k", "10.6", "KEEPTTL"}}));
  EXPECT_EQ(Propagate({"incrbyfloat", "k", "0.1"}, ",10.6\r\n"),
            (Records{{"SET", "k", "10.6", "KEEPTTL"}}));
  EXPECT_EQ(Propagate({"HINCRBYFLOAT", "h", "f", "1e3"}, "$4\r\n1001\r\n"),
            (Records{{"HSET", "h", "f", "1001"}}));
  EXPECT_EQ(Propagate({"hincrbyfloat", "h", "f", "1e3"}, ",1001\r\n"),
            (Records{{"HSET", "h", "f", "1001"}}));
}

TEST(AofPropagate, SpopBecomesSremOfWhatItPopped) {
  EXPECT_EQ(Propagate({"SPOP", "s"}, "$1\r\na\r\n"), (Records{{"SREM", "s", "a"}}));
  EXPECT_EQ(Propagate({"spop", "s", "2"}, "*2\r\n$1\r\na\r\n$1\r\nb\r\n"),
            (Records{{"SREM", "s", "a", "b"}}));
  EXPECT_EQ(Propagate({"spop", "s", "2"}, "~2\r\n$1\r\na\r\n$1\r\nb\r\n"),  // RESP3 set
            (Records{{"SREM", "s", "a", "b"}}));
  // Fewer than asked: the set is gone, as Redis's DEL says.
  EXPECT_EQ(Propagate({"SPOP", "s", "5"}, "~1\r\n$1\r\na\r\n"), (Records{{"DEL", "s"}}));
}

TEST(AofPropagate, SpopWithUnreadableReplyLogsNothing) {
  EXPECT_EQ(Propagate({"SPOP", "s"}, "$5\r\nab"), Records{});
  EXPECT_EQ(Propagate({"SPOP", "s", "2"}, "*2\r\n$1\r\na\r\n"), Records{});
}

TEST(AofPropagate, BlockingPopsBecomeTheirPopOnTheServedKey) {
  EXPECT_EQ(Propagate({"BLPOP", "a", "b", "0"}, "*2\r\n$1\r\nb\r\n$1\r\nx\r\n"),
            (Records{{"LPOP", "b"}}));
  EXPECT_EQ(Propagate({"brpop", "a", "b", "0"}, "*2\r\n$1\r\na\r\n$1\r\nx\r\n"),
            (Records{{"RPOP", "a"}}));
  EXPECT_EQ(Propagate({"BZPOPMIN", "z", "y", "1"}, "*3\r\n$1\r\ny\r\n$1\r\nm\r\n$3\r\n1.5\r\n"),
            (Records{{"ZPOPMIN", "y"}}));
  EXPECT_EQ(Propagate({"bzpopmax", "z", "1"}, "*3\r\n$1\r\nz\r\n$1\r\nm\r\n,1.5\r\n"),
            (Records{{"ZPOPMAX", "z"}}));
  EXPECT_EQ(Propagate({"BLMOVE", "s", "d", "LEFT", "RIGHT", "0"}, "$1\r\nx\r\n"),
            (Records{{"LMOVE", "s", "d", "LEFT", "RIGHT"}}));
  EXPECT_EQ(Propagate({"brpoplpush", "s", "d", "0"}, "$1\r\nx\r\n"),
            (Records{{"RPOPLPUSH", "s", "d"}}));
  // Never the blocking form: a replay would block.
  EXPECT_EQ(Propagate({"BLPOP", "a", "0"}, "garbage"), Records{});
}

TEST(AofPropagate, MpopsBecomePopsWithTheCountThatCameBack) {
  EXPECT_EQ(Propagate({"LMPOP", "2", "a", "b", "LEFT", "COUNT", "9"},
                      "*2\r\n$1\r\nb\r\n*2\r\n$1\r\nx\r\n$1\r\ny\r\n"),
            (Records{{"LPOP", "b", "2"}}));
  EXPECT_EQ(Propagate({"blmpop", "0", "1", "a", "right"}, "*2\r\n$1\r\na\r\n*1\r\n$1\r\nx\r\n"),
            (Records{{"RPOP", "a", "1"}}));
  // ZMPOP's elements nest as [member, score]: RESP2 bulk scores, RESP3 doubles.
  EXPECT_EQ(
      Propagate({"ZMPOP", "1", "z", "MIN", "COUNT", "5"},
                "*2\r\n$1\r\nz\r\n*2\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n"),
      (Records{{"ZPOPMIN", "z", "2"}}));
  EXPECT_EQ(Propagate({"BZMPOP", "0", "2", "y", "z", "max"},
                      "*2\r\n$1\r\nz\r\n*1\r\n*2\r\n$1\r\na\r\n,1\r\n"),
            (Records{{"ZPOPMAX", "z", "1"}}));
  // Unreadable: LMPOP replays the same as sent; BLMPOP logs nothing.
  EXPECT_EQ(Propagate({"lmpop", "1", "a", "LEFT"}, "-ERR\r\n"),
            (Records{{"lmpop", "1", "a", "LEFT"}}));
  EXPECT_EQ(Propagate({"BLMPOP", "0", "1", "a", "LEFT"}, "*-1\r\n"), Records{});
}

TEST(AofPropagate, RestoreTtlBecomesAbsolute) {
  EXPECT_EQ(Propagate({"RESTORE", "k", "5000", "payload", "REPLACE", "IDLETIME", "3"}),
            (Records{{"RESTORE", "k", Ms(kNow + 5000), "payload", "REPLACE", "IDLETIME", "3",
                      "ABSTTL"}}));
  EXPECT_EQ(Propagate({"restore", "k", "0", "payload"}),
            (Records{{"restore", "k", "0", "payload"}}));
  EXPECT_EQ(Propagate({"RESTORE", "k", "1800000000000", "p", "absttl"}),
            (Records{{"RESTORE", "k", "1800000000000", "p", "absttl"}}));
  // Past: Redis only deleted the key REPLACE found.
  EXPECT_EQ(Propagate({"RESTORE", "k", "1000", "p", "REPLACE", "ABSTTL"}), (Records{{"DEL", "k"}}));
}

TEST(AofPropagate, MigrateBecomesDelOfItsKeys) {
  EXPECT_EQ(Propagate({"MIGRATE", "h", "6379", "k", "0", "1000"}), (Records{{"DEL", "k"}}));
  EXPECT_EQ(Propagate({"migrate", "h", "1", "", "0", "9", "REPLACE", "AUTH2", "keys", "copy",
                       "KEYS", "a", "b"}),
            (Records{{"DEL", "a", "b"}}));
  EXPECT_EQ(Propagate({"MIGRATE", "h", "1", "k", "0", "9", "AUTH", "copy"}),
            (Records{{"DEL", "k"}}));
  EXPECT_EQ(Propagate({"MIGRATE", "h", "1", "k", "0", "9", "COPY"}), Records{});
  EXPECT_EQ(Propagate({"MIGRATE", "h", "1", "k", "0", "9"}, "-IOERR\r\n"), Records{});
}

TEST(AofPropagate, OtherCommandsAsSent) {
  EXPECT_EQ(Propagate({"lPush", "l", "a", "b"}, ":2\r\n"), (Records{{"lPush", "l", "a", "b"}}));
  EXPECT_EQ(Propagate({"INCRBY", "k", "5"}, ":5\r\n"), (Records{{"INCRBY", "k", "5"}}));
}

TEST(AofPropagate, ArgumentsAndRepliesAreBinarySafe) {
  const std::string key("k\0\r\n*1", 6), val("\r\n$3\r\n\0", 7);
  EXPECT_EQ(Propagate({"SET", key, val, "EX", "1"}),
            (Records{{"SET", key, val, "PXAT", Ms(kNow + 1000)}}));
  EXPECT_EQ(Propagate({"HSET", key, "", val}, ":1\r\n"), (Records{{"HSET", key, "", val}}));
  const std::string member("a\r\nb\0", 5);
  EXPECT_EQ(Propagate({"SPOP", key, "1"}, std::string("*1\r\n$5\r\n", 8) + member + "\r\n"),
            (Records{{"SREM", key, member}}));
}

TEST(AofPropagate, Resp3RepliesAreReadWhateverTheirShape) {
  // An attribute before the reply; a verbatim string; a map of ZMPOP's members.
  EXPECT_EQ(Propagate({"INCRBYFLOAT", "k", "1"}, "|1\r\n+ttl\r\n:3\r\n$3\r\n2.5\r\n"),
            (Records{{"SET", "k", "2.5", "KEEPTTL"}}));
  EXPECT_EQ(Propagate({"INCRBYFLOAT", "k", "1"}, "=7\r\ntxt:2.5\r\n"),
            (Records{{"SET", "k", "2.5", "KEEPTTL"}}));
  EXPECT_EQ(Propagate({"ZMPOP", "1", "z", "MIN"}, "*2\r\n$1\r\nz\r\n%1\r\n$1\r\na\r\n,1\r\n"),
            (Records{{"ZPOPMIN", "z", "1"}}));
  EXPECT_EQ(Propagate({"SPOP", "s"}, "_\r\n"), Records{});
}

}  // namespace
}  // namespace rc
