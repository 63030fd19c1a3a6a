// MULTI / EXEC / DISCARD / WATCH / UNWATCH: replies byte-for-byte against redis-server
// (1-3 threads), and, with keys spread over every shard, that no client ever observes
// part of a transaction and that WATCH-guarded read-modify-write loses no update.

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class DiffTransactionTest : public DiffTest {
 protected:
  // A second connection to each server, for writes from "another client".
  void SetUpOthers() {
    std::string error;
    other_redis_ = Client::Connect(redis_->port(), &error);
    ASSERT_TRUE(other_redis_) << error;
    other_rc_ = NewClient();
    ASSERT_TRUE(other_rc_);
  }
  void Other(const Args& cmd) {
    std::string want = other_redis_->Cmd(cmd);
    EXPECT_EQ(other_rc_->Cmd(cmd), want) << Describe(cmd);
  }
  // WATCH `key`, run `between` (on this connection), then an empty-ish transaction: EXEC
  // answers nil exactly when Redis considers `key` modified.
  void WatchThen(const std::string& key, const Args& between) {
    Same({"WATCH", key});
    Same(between);
    Same({"MULTI"});
    Same({"PING"});
    Same({"EXEC"});
  }
  void TearDown() override {
    other_redis_.reset();
    other_rc_.reset();
    DiffTest::TearDown();
  }

  std::unique_ptr<Client> other_redis_, other_rc_;
};

TEST_P(DiffTransactionTest, QueueingAndErrors) {
  Script({{"EXEC"}, {"DISCARD"}, {"MULTI"}, {"MULTI"}, {"SET", "a", "1"}, {"EXEC"}});
  // A refused command dooms the transaction; one that fails while running does not.
  Script({{"MULTI"}, {"SET", "a", "1"}, {"NOSUCHCMD", "x"}, {"EXEC"}, {"GET", "a"}});
  Script({{"MULTI"}, {"SET", "a"}, {"EXEC"}});
  Script({{"MULTI"}, {"CONFIG", "NOSUCH"}, {"EXEC"}});
  Script({{"MULTI"}, {"SET", "a", "x"}, {"INCR", "a"}, {"GET", "a"}, {"EXEC"}});
  Script({{"MULTI"}, {"WATCH", "a"}, {"GET", "a"}, {"EXEC"}});
  Script({{"MULTI"}, {"EXEC"}, {"MULTI"}, {"DISCARD"}, {"EXEC"}});
  // Every kind of command inside: keyless, single-key, multi-key, keyspace-wide.
  Script({{"MULTI"},
          {"PING"},
          {"ECHO", "hi"},
          {"MSET", "k1", "1", "k2", "2", "k3", "3", "k4", "4"},
          {"INCR", "k1"},
          {"MGET", "k1", "k2", "k3", "k4", "nokey"},
          {"ZADD", "z", "1", "a", "2", "b"},
          {"ZUNIONSTORE", "z2", "2", "z", "z"},
          {"ZRANGE", "z2", "0", "-1", "WITHSCORES"},
          {"DEL", "k1", "k2", "nokey"},
          {"EXISTS", "k1", "k3", "k4"},
          {"RENAME", "k3", "k5"},
          {"DBSIZE"},
          {"KEYS", "k5*"},  // one match: KEYS order is unspecified
          {"FLUSHALL"},
          {"DBSIZE"},
          {"EXEC"}});
  Script({{"MULTI"}, {"SELECT", "0"}, {"CLIENT", "SETNAME", "tx"}, {"CLIENT", "GETNAME"},
          {"EXEC"}});
  Script({{"MULTI"}, {"UNWATCH"}, {"EXEC"}, {"UNWATCH"}});
  // RESET ends the transaction, the watch and subscribed mode.
  Script({{"MULTI"}, {"SET", "a", "1"}, {"RESET"}, {"EXEC"}, {"WATCH", "a"}, {"SET", "a", "2"},
          {"RESET"}, {"MULTI"}, {"GET", "a"}, {"EXEC"}, {"SUBSCRIBE", "ch"}, {"RESET"},
          {"PING"}});
}

TEST_P(DiffTransactionTest, WatchSeesThisClientsWrites) {
  Script({{"SET", "w", "1"}, {"SET", "n", "5"}, {"ZADD", "z", "1", "m"}});
  WatchThen("w", {"SET", "w", "1"});                 // same value still counts
  WatchThen("w", {"SET", "w", "2", "NX"});           // no write
  WatchThen("w", {"SET", "w", "2", "XX"});
  WatchThen("w", {"APPEND", "w", "x"});
  WatchThen("w", {"SETRANGE", "w", "0", "y"});
  WatchThen("w", {"GET", "w"});                      // reads never count
  WatchThen("n", {"INCRBY", "n", "2"});
  WatchThen("n", {"EXPIRE", "n", "100"});
  WatchThen("n", {"PERSIST", "n"});
  WatchThen("n", {"PERSIST", "n"});                  // had no TTL: no change
  WatchThen("nokey", {"DEL", "nokey"});
  WatchThen("nokey", {"SET", "nokey", "v"});
  WatchThen("nokey", {"GETDEL", "nokey"});
  WatchThen("w", {"RENAME", "w", "w2"});
  WatchThen("w", {"RENAME", "w2", "w"});
  WatchThen("z", {"ZADD", "z", "1", "m"});           // unchanged score: no write
  WatchThen("z", {"ZADD", "z", "2", "m"});
  WatchThen("z", {"ZREM", "z", "absent"});
  WatchThen("z", {"ZINCRBY", "z", "1", "m"});
  WatchThen("z", {"ZUNIONSTORE", "z", "1", "z"});
  WatchThen("w", {"MSET", "a", "1", "w", "2", "b", "3"});
  WatchThen("w", {"UNLINK", "a", "b"});
  WatchThen("w", {"FLUSHALL"});                     // w existed
  WatchThen("w", {"FLUSHALL"});                     // w did not
  // UNWATCH and DISCARD forget the watch; EXEC ends it.
  Script({{"SET", "w", "1"}, {"WATCH", "w"}, {"SET", "w", "2"}, {"UNWATCH"}, {"MULTI"},
          {"GET", "w"}, {"EXEC"}});
  Script({{"WATCH", "w"}, {"SET", "w", "3"}, {"MULTI"}, {"DISCARD"}, {"MULTI"}, {"GET", "w"},
          {"EXEC"}});
  Script({{"WATCH", "w", "w", "n"}, {"MULTI"}, {"EXEC"}, {"SET", "w", "4"}, {"MULTI"},
          {"GET", "w"}, {"EXEC"}});
}

TEST_P(DiffTransactionTest, WatchSeesOtherClientsWrites) {
  ASSERT_NO_FATAL_FAILURE(SetUpOthers());
  Same({"SET", "w", "1"});
  Same({"WATCH", "w", "nokey"});
  Other({"SET", "unrelated", "x"});
  Script({{"MULTI"}, {"INCR", "w"}, {"EXEC"}});  // runs: nothing watched changed
  Same({"WATCH", "w", "nokey"});
  Other({"SET", "nokey", "x"});
  Script({{"MULTI"}, {"INCR", "w"}, {"EXEC"}, {"GET", "w"}});  // nil: nokey changed
  Same({"WATCH", "w"});
  Other({"DEL", "w"});
  Script({{"MULTI"}, {"INCR", "w"}, {"EXEC"}, {"GET", "w"}});
}

TEST_P(DiffTransactionTest, WatchedKeyExpiring) {
  // Expires between WATCH and EXEC: a change.
  Same({"SET", "w", "1", "PX", "100"});
  Same({"WATCH", "w"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Script({{"MULTI"}, {"PING"}, {"EXEC"}});
  // Already expired when watched: its removal later is no change.
  Same({"SET", "w", "1", "PX", "20"});
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  Same({"WATCH", "w"});
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  Script({{"MULTI"}, {"PING"}, {"EXEC"}});
}

TEST_P(DiffTransactionTest, PipelinedAroundOtherCommands) {
  // One write, with replies read only at the end: each command sees the ones before it.
  Args mset = {"MSET"};
  for (int i = 0; i < 20; ++i) mset.insert(mset.end(), {absl::StrCat("p", i), "v"});
  std::vector<Args> cmds = {{"SET", "p0", "first"}, mset, {"MULTI"}, {"GET", "p0"},
                            {"INCR", "c"}, {"MGET", "p1", "p2", "c"}, {"EXEC"},
                            {"GET", "c"}, {"MULTI"}, {"DEL", "p3", "p4"}, {"EXEC"},
                            {"EXISTS", "p3", "p4", "p5"}};
  std::vector<std::string> want, got;
  for (const Args& c : cmds) {
    redisc_->Append(c);
    rcc_->Append(c);
  }
  for (size_t i = 0; i < cmds.size(); ++i) {
    EXPECT_EQ(rcc_->GetReply(), redisc_->GetReply()) << Describe(cmds[i]);
  }
}

// A WATCH pipelined behind writes of this client's to its key, which reach the key's shard
// late: a transaction's commands after a multi-shard one, a watched transaction's
// commands (they run once the watch is checked), a write waiting for another client's
// multi-shard script. None of them is a change to that WATCH.
TEST_P(DiffTransactionTest, WatchPipelinedBehindOwnWrites) {
  const int last = threads() - 1;
  const std::string a = KeysOnShard("pa", 0, threads(), 1)[0];
  const std::string b = KeysOnShard("pb", last, threads(), 1)[0];
  const std::string c = KeysOnShard("pc", 0, threads(), 1)[0];
  const std::string d = KeysOnShard("pd", last, threads(), 1)[0];
  auto pipelined = [&](const std::vector<Args>& cmds) {
    for (const Args& cmd : cmds) {
      redisc_->Append(cmd);
      rcc_->Append(cmd);
    }
    for (const Args& cmd : cmds) EXPECT_EQ(rcc_->GetReply(), redisc_->GetReply()) << Describe(cmd);
  };
  const std::vector<Args> watch_b = {{"WATCH", b}, {"MULTI"}, {"INCR", "z"}, {"EXEC"}};
  for (int i = 0; i < 10; ++i) {
    Same({"RPUSH", c, "1", "2"});
    std::vector<Args> cmds = {{"MULTI"},
                              {"HSET", a, "f", "1"},
                              {"LMOVE", c, d, "LEFT", "LEFT"},
                              {"HSET", b, "f", "1"},
                              {"EXEC"}};
    cmds.insert(cmds.end(), watch_b.begin(), watch_b.end());
    pipelined(cmds);
    cmds = {{"WATCH", "z"}, {"MULTI"}, {"SET", a, "1"}, {"SET", b, "1"}, {"EXEC"}};
    cmds.insert(cmds.end(), watch_b.begin(), watch_b.end());
    pipelined(cmds);
  }
  // Another client's script over both shards holds b for a while; this client's SET b
  // waits for it, and so must the WATCH behind it. The holder's thread is not known, so
  // several connections take turns (one on another thread than b's exercises the wait).
  const std::string busy =
      "local s = redis.call('TIME') repeat local t = redis.call('TIME') "
      "until (t[1] - s[1]) * 1000000 + t[2] - s[2] > 150000 "
      "return redis.call('GET', KEYS[2])";
  const Args eval = {"EVAL", busy, "2", a, b};
  std::vector<Args> cmds = {{"SET", b, "1"}};
  cmds.insert(cmds.end(), watch_b.begin(), watch_b.end());
  for (int i = 0; i < threads() + 1; ++i) {
    auto rc_holder = NewRaw(rc_->port());
    auto redis_holder = NewRaw(redis_->port());
    ASSERT_TRUE(rc_holder && redis_holder);
    ASSERT_TRUE(rc_holder->Send(EncodeCommand(eval)));
    ASSERT_TRUE(redis_holder->Send(EncodeCommand(eval)));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // the scripts run
    pipelined(cmds);
    EXPECT_EQ(rc_holder->ReadReply(), redis_holder->ReadReply());
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffTransactionTest, ::testing::Values(1, 2, 3), ThreadsName);

class TransactionTest : public RingcacheTest {};

// Writers set every key to the same value in one transaction; readers read them all in
// one transaction (and with MGET): any mixed read is a torn transaction.
TEST_P(TransactionTest, NoClientSeesHalfATransaction) {
  std::vector<std::string> keys;
  for (int s = 0; s < threads(); ++s) {
    for (const std::string& k : KeysOnShard("atomic:", s, threads(), 3)) keys.push_back(k);
  }
  Args init = {"MSET"};
  for (const auto& k : keys) init.insert(init.end(), {k, "0"});
  ASSERT_EQ(rcc_->Cmd(init), "+OK");
  std::atomic<bool> stop{false};
  std::atomic<int> torn{0}, reads{0}, commits{0};
  RunClients(6, [&](int id, Client& c) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
    for (int n = 0; std::chrono::steady_clock::now() < deadline; ++n) {
      if (id < 3) {
        std::string v = absl::StrCat(id, "-", n);
        c.Append({"MULTI"});
        for (const auto& k : keys) c.Append({"SET", k, v});
        c.Append({"EXEC"});
        for (size_t i = 0; i < keys.size() + 1; ++i) c.GetReply();
        if (c.GetReply().rfind("*", 0) == 0) ++commits;
        continue;
      }
      std::string r;
      if (id == 3) {
        Args mget = {"MGET"};
        mget.insert(mget.end(), keys.begin(), keys.end());
        r = c.Cmd(mget);
      } else {
        c.Append({"MULTI"});
        for (const auto& k : keys) c.Append({"GET", k});
        c.Append({"EXEC"});
        for (size_t i = 0; i < keys.size() + 1; ++i) c.GetReply();
        r = c.GetReply();
      }
      // "*[$v,$v,...]": every element must equal the first.
      std::string first = r.substr(2, r.find(',') - 2);
      size_t pos = 2;
      bool same = true;
      for (size_t i = 0; i < keys.size(); ++i) {
        size_t end = r.find_first_of(",]", pos);
        same &= r.substr(pos, end - pos) == first;
        pos = end + 1;
      }
      if (!same) {
        if (torn++ == 0) ADD_FAILURE() << "torn read: " << r;
      }
      ++reads;
    }
  });
  stop = true;
  EXPECT_EQ(torn.load(), 0);
  EXPECT_GT(reads.load(), 0);
  EXPECT_GT(commits.load(), 0);
}

// The classic optimistic increment from many clients: WATCH, GET, MULTI, SET, EXEC,
// retrying on nil. Every increment must land exactly once.
TEST_P(TransactionTest, WatchGuardedIncrementsLoseNothing) {
  const int kClients = 6, kEach = 60;
  std::string counter = KeysOnShard("ctr:", threads() - 1, threads(), 1)[0];
  std::atomic<int> retries{0};
  RunClients(kClients, [&](int, Client& c) {
    for (int done = 0; done < kEach;) {
      c.Cmd({"WATCH", counter});
      std::string v = c.Cmd({"GET", counter});
      int64_t n = v == "(nil)" ? 0 : std::stoll(v.substr(1));
      c.Append({"MULTI"});
      c.Append({"SET", counter, std::to_string(n + 1)});
      c.Append({"EXEC"});
      c.GetReply();
      c.GetReply();
      if (c.GetReply() == "(nil-array)") {
        ++retries;
      } else {
        ++done;
      }
    }
  });
  EXPECT_EQ(rcc_->Cmd({"GET", counter}), absl::StrCat("$", kClients * kEach));
  std::printf("retries: %d\n", retries.load());
}

// A client that goes away mid-transaction, or with keys watched, leaves nothing behind.
TEST_P(TransactionTest, DisconnectWhileQueuedOrWatching) {
  for (int i = 0; i < 20; ++i) {
    auto c = NewClient();
    ASSERT_TRUE(c);
    c->Cmd({"WATCH", absl::StrCat("k", i), "w"});
    c->Cmd({"MULTI"});
    c->Cmd({"SET", "w", "x"});
  }
  EXPECT_EQ(rcc_->Cmd({"EXISTS", "w"}), ":0");
  EXPECT_EQ(rcc_->Cmd({"SET", "w", "1"}), "+OK");
  rcc_->Cmd({"WATCH", "w"});
  rcc_->Cmd({"MULTI"});
  rcc_->Cmd({"GET", "w"});
  EXPECT_EQ(rcc_->Cmd({"EXEC"}), "*[$1]");
}

INSTANTIATE_TEST_SUITE_P(Threads, TransactionTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
