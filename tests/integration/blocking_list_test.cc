// Blocking list commands (BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH) against redis-server
// with 1, 2 and 3 threads: errors, immediate answers over keys on several shards, the
// non-blocking forms inside MULTI, and blocked clients in lockstep on both servers: first
// come first served, one push serving several waiters, BLMOVE with its destination on
// another shard (atomic, and waking whoever waits there: chains), a destination of the
// wrong type, a rotation, MULTI/EXEC, WATCH and keyspace events of served pops.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/blocking_pairs.h"

namespace rc::it {
namespace {

class DiffBlockingListTest : public DiffBlockingTest {
 protected:
  // Two keys that live on different shards when there are several (else any two).
  std::pair<std::string, std::string> TwoShards(const std::string& prefix) {
    const int last = threads() - 1;
    return {KeysOnShard(prefix + "a", 0, threads(), 1)[0],
            KeysOnShard(prefix + "b", last, threads(), 1)[0]};
  }
};

TEST_P(DiffBlockingListTest, Errors) {
  Script({{"BLPOP", "l"},
          {"BLPOP", "l", "-1"},
          {"BRPOP", "l", "m", "abc"},
          {"BRPOP", "l", "inf"},
          {"BLMPOP", "0.1", "0", "l", "LEFT"},
          {"BLMPOP", "0.1", "1", "l", "MIDDLE"},
          {"BLMPOP", "0.1", "2", "l", "LEFT"},
          {"BLMPOP", "0.1", "1", "l", "LEFT", "COUNT", "0"},
          {"BLMPOP", "-1", "1", "l", "LEFT"},
          {"BLMPOP", "-1", "0", "l", "LEFT"},
          {"BLMPOP", "abc", "1", "l", "FOO"},
          {"BLMPOP", "0.1", "1"},
          {"BLMOVE", "a", "b", "LEFT", "UP", "0.1"},
          {"BLMOVE", "a", "b", "UP", "LEFT", "-1"},
          {"BLMOVE", "a", "b", "LEFT", "RIGHT", "-1"},
          {"BLMOVE", "a", "b", "LEFT", "RIGHT", "abc"},
          {"BLMOVE", "a", "b", "LEFT", "RIGHT"},
          {"BRPOPLPUSH", "a", "b", "-1"},
          {"BRPOPLPUSH", "a", "b", "nan"},
          {"BRPOPLPUSH", "a", "b"}});
  Script({{"SET", "s", "x"},
          {"BLPOP", "s", "0"},
          {"BLMPOP", "0", "1", "s", "LEFT"},
          {"BLMOVE", "s", "d", "LEFT", "LEFT", "0"},
          {"RPUSH", "src", "1"},
          {"BLMOVE", "src", "s", "LEFT", "LEFT", "0"},
          {"BRPOPLPUSH", "src", "s", "0"},
          {"LRANGE", "src", "0", "-1"}});
}

TEST_P(DiffBlockingListTest, ImmediateAnswers) {
  const auto [a, b] = TwoShards("imm");
  Script({{"RPUSH", a, "1", "2", "3"},
          {"RPUSH", b, "x", "y", "z"},
          {"BLPOP", "missing", b, a, "0"},
          {"BRPOP", a, b, "0"},
          {"BLMPOP", "0", "3", "missing", b, a, "RIGHT", "COUNT", "10"},
          {"BLMPOP", "0", "2", a, a, "LEFT"},
          {"BLMOVE", a, b, "LEFT", "RIGHT", "0"},
          {"BRPOPLPUSH", b, a, "0"},
          {"BLMOVE", a, a, "LEFT", "RIGHT", "0"},
          {"LRANGE", a, "0", "-1"},
          {"LRANGE", b, "0", "-1"},
          {"SET", "str", "v"},
          {"BLPOP", "missing", "str", a, "0"},
          {"BLMOVE", a, "str", "LEFT", "RIGHT", "0"},
          {"LRANGE", a, "0", "-1"}});
}

TEST_P(DiffBlockingListTest, InsideMultiNothingWaits) {
  const auto [a, b] = TwoShards("multi");
  Script({{"MULTI"},
          {"BLPOP", "nokey", "0"},
          {"BRPOP", "nokey", "other", "0"},
          {"BLMPOP", "0", "1", "nokey", "LEFT"},
          {"BLMOVE", "nokey", "d", "LEFT", "RIGHT", "0"},
          {"BRPOPLPUSH", "nokey", "d", "0"},
          {"BLMOVE", a, b, "LEFT", "RIGHT", "0"},
          {"BLPOP", "nokey", "-1"},
          {"EXEC"}});
  Script({{"RPUSH", a, "1", "2"},
          {"MULTI"},
          {"BLPOP", b, a, "0"},
          {"BLMOVE", a, b, "RIGHT", "LEFT", "0"},
          {"BLMOVE", a, b, "RIGHT", "LEFT", "0"},
          {"BRPOPLPUSH", b, a, "0"},
          {"BLMPOP", "0", "2", a, b, "LEFT", "COUNT", "5"},
          {"EXEC"},
          {"EXISTS", a, b}});
}

TEST_P(DiffBlockingListTest, FromScriptsNothingWaits) {
  // Blocking pops other than BLMPOP and BZMPOP are refused in scripts (noscript).
  Same({"EVAL", "return redis.call('BLPOP', KEYS[1], '0')", "1", "nokey"});
  // BLMPOP and BZMPOP run from a script as their non-blocking form. (With several threads
  // the scripting layer refuses commands whose keys follow numkeys as needing every
  // shard: docs/SCRIPTING.md.)
  if (threads() > 1) return;
  Script(
      {{"EVAL", "return redis.call('BLMPOP', '0', '1', KEYS[1], 'LEFT')", "1", "nokey"},
       {"EVAL", "return redis.call('BZMPOP', '0', '1', KEYS[1], 'MIN')", "1", "nokey"},
       {"RPUSH", "l", "a", "b"},
       {"EVAL", "return redis.call('BLMPOP', '0', '1', KEYS[1], 'RIGHT', 'COUNT', '5')", "1", "l"},
       {"EXISTS", "l"}});
}

TEST_P(DiffBlockingListTest, WaitersServedInOrder) {
  Pair w1 = NewPair(), w2 = NewPair(), w3 = NewPair(), w4 = NewPair(), pusher = NewPair();
  Block(w1, {"BRPOP", "q", "0"}, 1);
  Block(w2, {"BLPOP", "other", "q", "0"}, 2);
  Block(w3, {"BLMPOP", "0", "1", "q", "RIGHT", "COUNT", "2"}, 3);
  Block(w4, {"BRPOPLPUSH", "q", "{q}dst", "0"}, 4);
  SameOn(pusher, {"LPUSH", "q", "a", "b", "c", "d"});
  Read(w1, 1, "first waiter");
  Read(w2, 1, "second waiter");
  Read(w3, 1, "third waiter");
  Waiting(w4, "fourth waiter, nothing left");
  SameOn(pusher, {"RPUSH", "q", "e"});
  Read(w4, 1, "fourth waiter");
  SameOn(pusher, {"LRANGE", "{q}dst", "0", "-1"});
  SameOn(pusher, {"EXISTS", "q"});
  Blocked(0);
}

TEST_P(DiffBlockingListTest, MoveAcrossShardsAndChains) {
  const auto [src, dst] = TwoShards("mv");
  Pair mover = NewPair(), consumer = NewPair(), pusher = NewPair();
  // A BLMOVE waiting on src, a BLPOP waiting on its destination: one push serves both.
  Block(mover, {"BLMOVE", src, dst, "RIGHT", "LEFT", "0"}, 1);
  Block(consumer, {"BLPOP", dst, "0"}, 2);
  SameOn(pusher, {"RPUSH", src, "job1", "job2"});
  Read(mover, 1, "moved");
  Read(consumer, 1, "served from the destination");
  SameOn(pusher, {"LRANGE", src, "0", "-1"});
  SameOn(pusher, {"EXISTS", dst});
  // The destination holds another type when the source gets data: WRONGTYPE, and the
  // element stays.
  SameOn(pusher, {"DEL", src});
  SameOn(pusher, {"SET", dst, "string"});
  Block(mover, {"BLMOVE", src, dst, "LEFT", "RIGHT", "0"}, 1);
  SameOn(pusher, {"RPUSH", src, "e1", "e2"});
  Read(mover, 1, "destination of the wrong type");
  SameOn(pusher, {"LRANGE", src, "0", "-1"});
  // Several movers on one source, first come first served, each element once.
  SameOn(pusher, {"DEL", src, dst});
  Pair m2 = NewPair(), m3 = NewPair();
  Block(mover, {"BRPOPLPUSH", src, dst, "0"}, 1);
  Block(m2, {"BLMOVE", src, dst, "LEFT", "LEFT", "0"}, 2);
  Block(m3, {"BLMOVE", src, dst, "LEFT", "RIGHT", "0"}, 3);
  SameOn(pusher, {"RPUSH", src, "1", "2"});
  Read(mover, 1, "first mover");
  Read(m2, 1, "second mover");
  Waiting(m3, "third mover");
  SameOn(pusher, {"LRANGE", dst, "0", "-1"});
  SameOn(pusher, {"RPUSH", src, "3"});
  Read(m3, 1, "third mover");
  SameOn(pusher, {"LRANGE", dst, "0", "-1"});
  SameOn(pusher, {"EXISTS", src});
  // A rotation waits like any pop.
  Block(mover, {"BLMOVE", "rot", "rot", "LEFT", "RIGHT", "0"}, 1);
  SameOn(pusher, {"RPUSH", "rot", "1", "2"});
  Read(mover, 1, "rotated");
  SameOn(pusher, {"LRANGE", "rot", "0", "-1"});
  Blocked(0);
}

TEST_P(DiffBlockingListTest, MultiPipelineWatchAndEvents) {
  const auto [a, b] = TwoShards("ev");
  Pair w = NewPair(), other = NewPair(), sub = NewPair(), watcher = NewPair();
  Same({"CONFIG", "SET", "notify-keyspace-events", "KEA"});
  SameOn(sub,
         {"SUBSCRIBE", "__keyevent@0__:lpush", "__keyevent@0__:rpush", "__keyevent@0__:lpop",
          "__keyevent@0__:rpop", "__keyevent@0__:del"},
         5);
  // Pushed and popped inside one transaction: the waiter sees nothing.
  Block(w, {"BLPOP", a, "0"}, 1);
  SameOn(other, {"MULTI"});
  SameOn(other, {"RPUSH", a, "x"});
  SameOn(other, {"LPOP", a});
  SameOn(other, {"EXEC"});
  Waiting(w, "nothing left by the transaction");
  Read(sub, 3, "events of the transaction");
  // A pipelined push and pop: the waiter is served between them.
  Send(other, {"RPUSH", a, "y"});
  Send(other, {"LPOP", a});
  Read(other, 2, "push then pop");
  Read(w, 1, "served between");
  Read(sub, 3, "rpush, lpop by the served waiter, del");
  // A served move modifies both keys for WATCH.
  SameOn(watcher, {"WATCH", b});
  Block(w, {"BLMOVE", a, b, "LEFT", "RIGHT", "0"}, 1);
  SameOn(other, {"RPUSH", a, "z"});
  Read(w, 1, "moved");
  SameOn(watcher, {"MULTI"});
  SameOn(watcher, {"PING"});
  SameOn(watcher, {"EXEC"});
  // rpush a; then the move's rpush b, lpop a, del a (two shards: compared as a set).
  std::vector<std::string> want = sub.redis->ReadReplies(4);
  std::vector<std::string> got = sub.rc->ReadReplies(4);
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
  SameOn(sub, {"PING"});
}

TEST_P(DiffBlockingListTest, Timeouts) {
  Pair w = NewPair();
  SameOn(w, {"BLPOP", "none", "0.05"});
  SameOn(w, {"BRPOPLPUSH", "none", "d", "0.05"});
  SameOn(w, {"BLMOVE", "none", "{none}d", "LEFT", "RIGHT", "0.05"});
  SameOn(w, {"BLMPOP", "0.05", "2", "none", "{none}2", "LEFT"});
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffBlockingListTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
