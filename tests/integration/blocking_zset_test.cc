// Blocking sorted-set pops (BZPOPMIN, BZPOPMAX, BZMPOP, and ZMPOP) against redis-server
// with 1, 2 and 3 threads: argument and timeout errors, immediate answers (the first key
// with data wins, in argument order, keys on several shards), the non-blocking form
// inside MULTI, and blocked clients driven in lockstep on both servers: first come first
// served, several waiters served by one push, a push inside MULTI waking only at EXEC,
// pipelined commands behind a blocked one, CLIENT UNBLOCK, WATCH, keyspace events. Each
// blocked connection is a pair of RawConns, one per server, sent the same bytes.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/blocking_pairs.h"

namespace rc::it {
namespace {

class DiffBlockingZSetTest : public DiffBlockingTest {};

TEST_P(DiffBlockingZSetTest, ArgumentAndTimeoutErrors) {
  Script({{"BZPOPMIN", "z"},
          {"BZPOPMIN", "z", "-1"},
          {"BZPOPMIN", "z", "-0.5"},
          {"BZPOPMIN", "z", "abc"},
          {"BZPOPMIN", "z", ""},
          {"BZPOPMIN", "z", " 1"},
          {"BZPOPMIN", "z", "1 "},
          {"BZPOPMIN", "z", "nan"},
          {"BZPOPMIN", "z", "inf"},
          {"BZPOPMIN", "z", "-inf"},
          {"BZPOPMIN", "z", "1e400"},
          {"BZPOPMIN", "z", "9223372036854776"},
          {"BZPOPMAX", "a", "b", "-1"},
          {"BZMPOP", "0.1", "0", "z", "MIN"},
          {"BZMPOP", "0.1", "-1", "z", "MIN"},
          {"BZMPOP", "0.1", "abc", "z", "MIN"},
          {"BZMPOP", "0.1", "2", "z", "MIN"},
          {"BZMPOP", "0.1", "3", "z", "MIN"},
          {"BZMPOP", "0.1", "2147483648", "z", "MIN"},
          {"BZMPOP", "0.1", "9223372036854775807", "z", "MIN"},
          {"BZMPOP", "0.1", "1", "z"},
          {"BZMPOP", "0.1", "1", "z", "FOO"},
          {"BZMPOP", "0.1", "1", "z", "MIN", "COUNT"},
          {"BZMPOP", "0.1", "1", "z", "MIN", "COUNT", "0"},
          {"BZMPOP", "0.1", "1", "z", "MIN", "COUNT", "-1"},
          {"BZMPOP", "0.1", "1", "z", "MIN", "COUNT", "abc"},
          {"BZMPOP", "0.1", "1", "z", "MIN", "COUNT", "99999999999999999999"},
          {"BZMPOP", "0.1", "1", "z", "MIN", "COUNT", "1", "COUNT", "2"},
          {"BZMPOP", "0.1", "1", "z", "MIN", "count", "2", "extra"},
          {"BZMPOP", "-1", "1", "z", "MIN"},
          {"BZMPOP", "abc", "1", "z", "MIN"},
          {"BZMPOP", "abc", "0", "z", "MIN"},
          {"BZMPOP", "-1", "1", "z", "FOO"},
          {"BZMPOP", "-1", "1", "z", "MIN", "COUNT", "0"},
          {"BZMPOP", "0.1", "1"},
          {"ZMPOP", "0", "z", "MIN"},
          {"ZMPOP", "1", "z"},
          {"ZMPOP", "1", "z", "MIDDLE"},
          {"ZMPOP", "1", "z", "MAX", "COUNT", "0"},
          {"CLIENT", "UNBLOCK"},
          {"CLIENT", "UNBLOCK", "abc"},
          {"CLIENT", "UNBLOCK", "0"},
          {"CLIENT", "UNBLOCK", "-1"},
          {"CLIENT", "UNBLOCK", "99999"},
          {"CLIENT", "UNBLOCK", "1", "foo"},
          {"CLIENT", "UNBLOCK", "1", "timeout"},
          {"CLIENT", "UNBLOCK", "1", "ERROR"},
          {"CLIENT", "UNBLOCK", "1", "error", "x"},
          {"client", "Unblock", "1", "error", "x"}});
  // Timeouts that end at once or never: each pops what is there.
  Script({{"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e", "6", "f"},
          {"BZPOPMIN", "z", "0"},
          {"BZPOPMIN", "z", "-0"},
          {"BZPOPMIN", "z", "0x10"},
          {"BZPOPMAX", "z", "0.0001"},
          {"BZPOPMAX", "z", "9223372036854775"},
          {"BZMPOP", "1e-400", "1", "z", "MAX"}});
  // A key of another type answers WRONGTYPE, after the timeout was checked.
  Script({{"SET", "s", "x"},
          {"BZPOPMIN", "s", "0"},
          {"BZPOPMIN", "s", "-1"},
          {"BZMPOP", "0", "1", "s", "MIN"},
          {"ZMPOP", "1", "s", "MIN"},
          {"BZMPOP", "-1", "1", "s", "MIN"}});
}

TEST_P(DiffBlockingZSetTest, ImmediateAnswers) {
  const std::vector<std::string> k = SpreadKeys("imm");
  Script({{"ZADD", k.back(), "1", "a", "2", "b", "3", "c"},
          {"ZADD", k.front(), "5", "x", "6", "y"},
          // The first key in argument order with data wins, wherever the others live.
          {"BZPOPMIN", "missing", k.back(), k.front(), "0"},
          {"BZPOPMAX", k.front(), k.back(), "0"},
          {"BZMPOP", "0", "3", "missing", k.back(), k.front(), "MIN", "COUNT", "10"},
          {"BZMPOP", "0", "2", k.front(), k.front(), "MAX"},
          {"ZMPOP", "2", "missing", k.front(), "MIN", "COUNT", "1"},
          {"ZMPOP", "1", "missing", "MIN"},
          {"EXISTS", k.front(), k.back()},
          {"ZADD", k.back(), "1.5", "m"},
          {"SET", "str", "v"},
          // A key of another type before one with data: WRONGTYPE.
          {"BZPOPMIN", "missing", "str", k.back(), "0"},
          {"BZMPOP", "0", "2", "str", k.back(), "MIN"},
          {"BZPOPMIN", k.back(), "str", "0"},
          {"ZRANGE", k.back(), "0", "-1", "WITHSCORES"}});
}

TEST_P(DiffBlockingZSetTest, InsideMultiNothingWaits) {
  const std::vector<std::string> k = SpreadKeys("multi");
  Script({{"MULTI"},
          {"BZPOPMIN", "nokey", "0"},
          {"BZPOPMAX", "nokey", "other", "1"},
          {"BZMPOP", "0", "1", "nokey", "MIN"},
          {"BZPOPMIN", "nokey", "-1"},
          {"BZMPOP", "0", "0", "nokey", "MIN"},
          {"EXEC"}});
  // Keys on several shards, with data and without.
  Script({{"ZADD", k.back(), "1", "a", "2", "b"},
          {"MULTI"},
          {"BZPOPMIN", k.front(), k.back(), "0"},
          {"BZMPOP", "0", "2", k.front(), k.back(), "MAX", "COUNT", "5"},
          {"BZPOPMIN", k.front(), k.back(), "0"},
          {"ZMPOP", "2", k.front(), k.back(), "MIN"},
          {"ZADD", k.front(), "3", "c"},
          {"BZPOPMAX", k.back(), k.front(), "0"},
          {"EXEC"}});
}

TEST_P(DiffBlockingZSetTest, WaitersServedInOrder) {
  Pair w1 = NewPair(), w2 = NewPair(), w3 = NewPair(), pusher = NewPair();
  Block(w1, {"BZPOPMIN", "q", "0"}, 1);
  Block(w2, {"BZPOPMAX", "q", "other", "0"}, 2);
  Block(w3, {"BZMPOP", "0", "1", "q", "MIN", "COUNT", "5"}, 3);
  // One push serves the first two waiters, first come first served; the third waits.
  SameOn(pusher, {"ZADD", "q", "1", "a", "2", "b"});
  Read(w1, 1, "first waiter");
  Read(w2, 1, "second waiter");
  Waiting(w3, "third waiter, nothing left");
  SameOn(pusher, {"EXISTS", "q"});
  SameOn(pusher, {"ZADD", "q", "3", "c", "4", "d", "5", "e"});
  Read(w3, 1, "third waiter");
  SameOn(pusher, {"ZCARD", "q"});
  Blocked(0);
}

TEST_P(DiffBlockingZSetTest, ManyKeysAcrossShards) {
  const std::vector<std::string> k = SpreadKeys("many");
  Pair w = NewPair(), pusher = NewPair();
  Args cmd = {"BZPOPMIN"};
  cmd.insert(cmd.end(), k.begin(), k.end());
  cmd.push_back("0");
  // Whichever shard's key gets data serves the client, and only once.
  for (size_t i = 0; i < k.size(); ++i) {
    Block(w, cmd, 1);
    const std::string key = k[k.size() - 1 - i];
    SameOn(pusher, {"ZADD", key, "1", "m"});
    Read(w, 1, "served from " + key);
    SameOn(pusher, {"ZRANGE", key, "0", "-1"});
  }
  Blocked(0);
}

TEST_P(DiffBlockingZSetTest, PipelineBehindABlockedCommand) {
  Pair w = NewPair(), pusher = NewPair();
  // The commands after a blocked one wait, unparsed, until it is answered.
  Send(w, {"BZPOPMIN", "p", "0"});
  Send(w, {"ZADD", "p", "9", "own"});
  Send(w, {"PING"});
  Blocked(1);
  Waiting(w, "blocked with a pipeline behind");
  SameOn(pusher, {"ZADD", "p", "1", "x"});
  Read(w, 3, "blocked command, then its pipeline");
  SameOn(pusher, {"ZRANGE", "p", "0", "-1"});
  // A push and a pop pipelined by another client: the waiter is served between them.
  Block(w, {"BZPOPMIN", "p2", "0"}, 1);
  Send(pusher, {"ZADD", "p2", "1", "x"});
  Send(pusher, {"ZPOPMIN", "p2"});
  Read(pusher, 2, "push then pop");
  Read(w, 1, "served before the pop");
}

TEST_P(DiffBlockingZSetTest, PushInsideMultiWakesAtExec) {
  Pair w = NewPair(), other = NewPair();
  Block(w, {"BZPOPMIN", "t", "0"}, 1);
  SameOn(other, {"MULTI"});
  SameOn(other, {"ZADD", "t", "1", "a"});
  SameOn(other, {"ZPOPMIN", "t"});
  SameOn(other, {"EXEC"});
  Waiting(w, "the transaction left nothing");
  SameOn(other, {"MULTI"});
  SameOn(other, {"ZADD", "t", "1", "a", "2", "b"});
  SameOn(other, {"ZADD", "t", "0", "z"});
  Waiting(w, "queued, not run");
  SameOn(other, {"EXEC"});
  Read(w, 1, "served after EXEC");
  SameOn(other, {"ZRANGE", "t", "0", "-1"});
  // Two keys of one shard given data by one transaction: the first signalled wins.
  Block(w, {"BZPOPMIN", "{t}1", "{t}2", "0"}, 1);
  SameOn(other, {"MULTI"});
  SameOn(other, {"ZADD", "{t}2", "2", "b"});
  SameOn(other, {"ZADD", "{t}1", "1", "a"});
  SameOn(other, {"EXEC"});
  Read(w, 1, "first signalled key");
}

TEST_P(DiffBlockingZSetTest, ClientUnblockAndIntrospection) {
  Pair w1 = NewPair(), w2 = NewPair(), w3 = NewPair();
  // Client ids differ between the servers: read each side's own.
  auto id_of = [](RawConn& c) {
    c.Send(EncodeCommand({"CLIENT", "ID"}));
    std::string r = c.ReadReply();
    return r.substr(1);
  };
  const std::string r1 = id_of(*w1.redis), c1 = id_of(*w1.rc);
  const std::string r2 = id_of(*w2.redis), c2 = id_of(*w2.rc);
  const std::string r3 = id_of(*w3.redis), c3 = id_of(*w3.rc);
  Block(w1, {"BZPOPMIN", "u", "0"}, 1);
  Block(w2, {"BZMPOP", "100", "2", "u", "v", "MAX"}, 2);
  EXPECT_EQ(IntInfo(*rcc_, "clients_in_timeout_table"), 1);
  EXPECT_EQ(IntInfo(*redisc_, "clients_in_timeout_table"), 1);
  for (const auto& [cl, id] : {std::pair<Client*, std::string>{redisc_.get(), r1},
                               std::pair<Client*, std::string>{rcc_.get(), c1}}) {
    std::string list = cl->Cmd({"CLIENT", "LIST", "ID", id});
    EXPECT_NE(list.find("flags=b "), std::string::npos) << list;
    EXPECT_NE(list.find("cmd=bzpopmin "), std::string::npos) << list;
  }
  EXPECT_EQ(redisc_->Cmd({"CLIENT", "UNBLOCK", r1}), ":1");
  EXPECT_EQ(rcc_->Cmd({"CLIENT", "UNBLOCK", c1}), ":1");
  Read(w1, 1, "unblocked as by a timeout");
  EXPECT_EQ(redisc_->Cmd({"CLIENT", "UNBLOCK", r2, "ERROR"}), ":1");
  EXPECT_EQ(rcc_->Cmd({"CLIENT", "UNBLOCK", c2, "ERROR"}), ":1");
  Read(w2, 1, "unblocked with an error");
  Blocked(0);
  EXPECT_EQ(IntInfo(*rcc_, "clients_in_timeout_table"), 0);
  // Not blocked (any more): 0.
  EXPECT_EQ(redisc_->Cmd({"CLIENT", "UNBLOCK", r2}), ":0");
  EXPECT_EQ(rcc_->Cmd({"CLIENT", "UNBLOCK", c2}), ":0");
  EXPECT_EQ(redisc_->Cmd({"CLIENT", "UNBLOCK", r3, "ERROR"}), ":0");
  EXPECT_EQ(rcc_->Cmd({"CLIENT", "UNBLOCK", c3, "ERROR"}), ":0");
  // The unblocked clients carry on.
  SameOn(w1, {"PING"});
  SameOn(w2, {"ZADD", "u", "1", "a"});
}

TEST_P(DiffBlockingZSetTest, WatchAndKeyspaceEvents) {
  Pair w = NewPair(), watcher = NewPair(), sub = NewPair(), pusher = NewPair();
  Same({"CONFIG", "SET", "notify-keyspace-events", "KEA"});
  SameOn(sub, {"PSUBSCRIBE", "__keyevent@0__:zpop*", "__keyevent@0__:del"});
  SameOn(watcher, {"ZADD", "other", "1", "a"});
  Block(w, {"BZMPOP", "0", "1", "ev", "MAX", "COUNT", "2"}, 1);
  SameOn(watcher, {"WATCH", "ev"});
  SameOn(pusher, {"ZADD", "ev", "1", "a", "2", "b"});
  Read(w, 1, "served");
  SameOn(watcher, {"MULTI"});
  SameOn(watcher, {"PING"});
  SameOn(watcher, {"EXEC"});
  // The served pop and the key's deletion, each once.
  Read(sub, 2, "events of the served pop");
  SameOn(sub, {"PING", "sync"});
}

TEST_P(DiffBlockingZSetTest, TimeoutReplies) {
  // RESP3's null and doubles: test_blocking_py.py.
  Pair w = NewPair();
  SameOn(w, {"BZPOPMIN", "none", "0.05"});
  SameOn(w, {"BZMPOP", "0.05", "2", "none", "{none}2", "MAX"});
  SameOn(w, {"ZADD", "r3", "1.5", "a", "2", "b"});
  SameOn(w, {"BZPOPMAX", "r3", "0.05"});
  SameOn(w, {"BZMPOP", "0.05", "1", "r3", "MIN", "COUNT", "3"});
  SameOn(w, {"BZMPOP", "0.05", "1", "r3", "MIN", "COUNT", "3"});
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffBlockingZSetTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
