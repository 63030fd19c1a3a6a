// Several clients at once on 2 and 3 threads: no update is lost, each client reads its own
// cross-shard writes, vanishing clients do no harm, and the atomicity Redis gives
// multi-key commands holds for keys on different shards: MSET, MSETNX, RENAME, SMOVE,
// LMOVE, COPY, BITOP and the set and sorted-set *STORE commands, against concurrent
// readers on other threads.
//
// The interleavings are up to the OS scheduler, but every assertion holds for any
// interleaving on a correct server, so a failure is always a bug. Each test places its
// clients on different server threads (RunClients; two connections of one thread could
// never observe tearing, their hops are sent in order) and uses thousands of pipelined
// commands, so a gap is caught in practically every run.

#include <atomic>
#include <barrier>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class ConcurrencyTest : public RingcacheTest {
 protected:
  // One key on each shard.
  std::vector<std::string> OnePerShard(const std::string& prefix) {
    std::vector<std::string> keys;
    for (int s = 0; s < threads(); ++s) keys.push_back(KeysOnShard(prefix, s, threads(), 1)[0]);
    return keys;
  }
  std::string OnShard(const std::string& prefix, int shard) {
    return KeysOnShard(prefix, shard % threads(), threads(), 1)[0];
  }

  // A writer pipelines `moves` over and over (each reply must satisfy `move_ok`) while
  // kReaders readers, on other threads, pipeline `read` (commands, MULTI ... EXEC; "%R"
  // in an argument is the reader's number, for keys of its own) and check its replies
  // with `read_ok`. Stops at the first violation, which fails the
  // test with the replies seen.
  using Check = std::function<bool(const std::vector<std::string>&)>;
  void WriterAndReaders(const std::vector<Args>& moves, const Check& move_ok,
                        const std::vector<Args>& read, const Check& read_ok) {
    constexpr int kReaders = 3, kBatch = 25;
    const int kRounds = Scaled(800);
    std::atomic<bool> writing{true}, found{false};
    std::atomic<int> reads{0};
    std::mutex mu;
    std::string seen;
    auto fail = [&](const std::string& what) {
      if (found.exchange(true)) return;
      std::lock_guard lock(mu);
      seen = what;
    };
    RunClients(1 + kReaders, [&](int id, Client& c) {
      if (id == 0) {
        for (int i = 0; i < kRounds && !found.load(); i += kBatch) {
          for (int j = 0; j < kBatch; ++j) {
            for (const Args& m : moves) c.Append(m);
          }
          for (int j = 0; j < kBatch; ++j) {
            std::vector<std::string> replies;
            for (size_t m = 0; m < moves.size(); ++m) replies.push_back(c.GetReply());
            if (!move_ok(replies)) fail("writer got " + absl::StrJoin(replies, " "));
          }
        }
        writing = false;
        return;
      }
      std::vector<Args> mine = read;  // "%R" in an argument: this reader's number
      for (Args& cmd : mine) {
        for (std::string& a : cmd) {
          if (size_t at = a.find("%R"); at != std::string::npos) a.replace(at, 2, std::to_string(id));
        }
      }
      while (writing.load() && !found.load()) {
        for (int i = 0; i < kBatch; ++i) {
          for (const Args& r : mine) c.Append(r);
        }
        for (int i = 0; i < kBatch; ++i) {
          std::vector<std::string> replies;
          for (size_t r = 0; r < read.size(); ++r) replies.push_back(c.GetReply());
          ++reads;
          if (!read_ok(replies)) fail("reader got " + absl::StrJoin(replies, " "));
        }
      }
    });
    EXPECT_GT(reads.load(), 0);
    std::lock_guard lock(mu);
    EXPECT_EQ(seen, "") << "a reader saw a command half done (after " << reads.load()
                        << " reads)";
  }
  // Every reply is `want`.
  static Check All(const std::string& want) {
    return [want](const std::vector<std::string>& r) {
      for (const std::string& s : r) {
        if (s != want) return false;
      }
      return true;
    };
  }
  // MULTI, `cmds`, EXEC: the EXEC reply is `want`.
  static std::vector<Args> Multi(std::vector<Args> cmds) {
    cmds.insert(cmds.begin(), Args{"MULTI"});
    cmds.push_back({"EXEC"});
    return cmds;
  }
  static Check ExecIs(const std::string& want) {
    return [want](const std::vector<std::string>& r) { return r.back() == want; };
  }
};

TEST_P(ConcurrencyTest, IncrementsFromManyClientsOnEveryShardAreNotLost) {
  constexpr int kClients = 4, kRounds = 1000;
  std::vector<std::string> counters = OnePerShard("ctr");
  std::atomic<int> bad_replies{0};
  RunClients(kClients, [&](int, Client& c) {
    for (int i = 0; i < kRounds; ++i) {
      for (const std::string& k : counters) c.Append({"INCR", k});
      c.Append({"INCRBY", counters[0], "2"});
    }
    for (int i = 0; i < kRounds * int(counters.size() + 1); ++i) {
      if (c.GetReply()[0] != ':') ++bad_replies;
    }
  });
  EXPECT_EQ(bad_replies.load(), 0);
  for (size_t s = 0; s < counters.size(); ++s) {
    int want = kClients * kRounds * (s == 0 ? 3 : 1);
    EXPECT_EQ(rcc_->Cmd({"GET", counters[s]}), absl::StrCat("$", want)) << counters[s];
  }
}

TEST_P(ConcurrencyTest, EachClientReadsItsOwnCrossShardWrites) {
  std::atomic<int> wrong{0};
  RunClients(4, [&](int id, Client& c) {
    std::vector<std::string> keys = OnePerShard(absl::StrCat("own", id, ":"));
    for (int i = 0; i < 300; ++i) {
      std::string v = absl::StrCat(id, ":", i);
      Args mset = {"MSET"};
      for (const std::string& k : keys) mset.insert(mset.end(), {k, v});
      c.Append(mset);
      c.Append({"GET", keys.back()});
      Args mget = {"MGET"};
      mget.insert(mget.end(), keys.begin(), keys.end());
      c.Append(mget);
      std::string want_mget = "*[";
      for (size_t k = 0; k < keys.size(); ++k) absl::StrAppend(&want_mget, k ? "," : "", "$", v);
      want_mget += "]";
      if (c.GetReply() != "+OK" || c.GetReply() != "$" + v || c.GetReply() != want_mget) ++wrong;
    }
  });
  EXPECT_EQ(wrong.load(), 0);
}

// Writers pipeline MSETs that give every key one new value; readers pipeline MGETs of
// those keys, and every MGET must see a single value. Several connections of each kind,
// because two connections on the same thread could never observe tearing (their
// cross-shard hops are queued in order), and SO_REUSEPORT picks the threads. Stops at the
// first torn read.
TEST_P(ConcurrencyTest, MsetIsAtomicForConcurrentMget) {
  constexpr int kWriters = 2, kReaders = 4, kBatch = 50;
  const int kWrites = Scaled(3000);
  std::vector<std::string> keys = OnePerShard("atom");
  Args mget = {"MGET"};
  mget.insert(mget.end(), keys.begin(), keys.end());
  std::atomic<int> writers_left{kWriters}, reads{0};
  std::atomic<bool> found{false};
  std::mutex mu;
  std::string torn;  // First torn MGET reply.
  RunClients(kWriters + kReaders, [&](int id, Client& c) {
    if (id < kWriters) {
      Args mset = {"MSET"};
      for (const std::string& k : keys) mset.insert(mset.end(), {k, ""});
      for (int i = 0; i < kWrites && !found.load(); i += kBatch) {
        for (int j = i; j < i + kBatch; ++j) {
          for (size_t k = 0; k < keys.size(); ++k) mset[2 * k + 2] = absl::StrCat(id, ":", j);
          c.Append(mset);
        }
        for (int j = 0; j < kBatch; ++j) c.GetReply();
      }
      --writers_left;
      return;
    }
    while (writers_left.load() > 0 && !found.load()) {
      for (int i = 0; i < kBatch; ++i) c.Append(mget);
      for (int i = 0; i < kBatch; ++i) {
        std::string r = c.GetReply();
        ++reads;
        std::string first = r.substr(0, r.find(',')).substr(2);  // "*[$7,$7]" -> "$7"
        std::string same = "*[" + first;
        for (size_t k = 1; k < keys.size(); ++k) same += "," + first;
        if (r != same + "]" && !found.exchange(true)) {
          std::lock_guard lock(mu);
          torn = r;
        }
      }
    }
  });
  EXPECT_GT(reads.load(), 0);
  std::lock_guard lock(mu);
  EXPECT_EQ(torn, "") << "an MGET saw a half-applied MSET of " << Describe(keys)
                      << " (every MSET gives all keys one value) within " << reads.load()
                      << " reads";
  if (torn.empty()) {  // At rest too, the keys hold the value of one MSET.
    std::string r = rcc_->Cmd(mget);
    std::string first = r.substr(0, r.find(',')).substr(2);
    std::string same = "*[" + first;
    for (size_t k = 1; k < keys.size(); ++k) same += "," + first;
    EXPECT_EQ(r, same + "]");
  }
}

// A writer moves one key back and forth between two shards with pipelined RENAMEs while
// readers pipeline EXISTS of both names: in Redis exactly one of them always exists.
TEST_P(ConcurrencyTest, CrossShardRenameIsAtomicForConcurrentReaders) {
  constexpr int kReaders = 4, kBatch = 50;
  const int kRenames = Scaled(3000);
  const std::string a = KeysOnShard("mv", 0, threads(), 1)[0];
  const std::string b = KeysOnShard("mv", threads() - 1, threads(), 1)[0];
  ASSERT_EQ(rcc_->Cmd({"SET", a, "payload"}), "+OK");
  std::atomic<bool> writing{true}, found{false};
  std::atomic<int> reads{0};
  std::mutex mu;
  std::string seen;  // First wrong EXISTS reply.
  RunClients(1 + kReaders, [&](int id, Client& c) {
    if (id == 0) {
      for (int i = 0; i < kRenames && !found.load(); i += kBatch) {
        for (int j = i; j < i + kBatch; ++j)
          c.Append(j % 2 ? Args{"RENAME", b, a} : Args{"RENAME", a, b});
        for (int j = 0; j < kBatch; ++j) {
          std::string r = c.GetReply();
          if (r != "+OK" && !found.exchange(true)) {
            std::lock_guard lock(mu);
            seen = "RENAME -> " + r;
          }
        }
      }
      writing = false;
      return;
    }
    while (writing.load() && !found.load()) {
      for (int i = 0; i < kBatch; ++i) c.Append({"EXISTS", a, b});
      for (int i = 0; i < kBatch; ++i) {
        std::string r = c.GetReply();
        ++reads;
        if (r != ":1" && !found.exchange(true)) {
          std::lock_guard lock(mu);
          seen = "EXISTS " + a + " " + b + " -> " + r;
        }
      }
    }
  });
  EXPECT_GT(reads.load(), 0);
  std::lock_guard lock(mu);
  EXPECT_EQ(seen, "") << "a reader saw a cross-shard RENAME between its hops (after "
                      << reads.load() << " reads)";
  EXPECT_EQ(rcc_->Cmd({"EXISTS", a, b}), ":1");
}

// Two clients race MSETNX on fresh keys (one per shard; A lists them in shard order, B in
// reverse) round after round: exactly one may succeed, and the keys must all hold its
// value. Stops at the first violation.
TEST_P(ConcurrencyTest, MsetnxSucceedsForExactlyOneOfRacingClients) {
  const int kRounds = Scaled(3000);
  auto a = ClientOnThread(0);
  auto b = ClientOnThread(threads() - 1);
  ASSERT_TRUE(a && b);
  std::vector<Args> cmds_a, cmds_b;
  std::vector<std::vector<std::string>> round_keys;
  for (int round = 0; round < kRounds; ++round) {
    round_keys.push_back(OnePerShard(absl::StrCat("race", round, ":")));
    const std::vector<std::string>& keys = round_keys.back();
    Args ma = {"MSETNX"}, mb = {"MSETNX"};
    for (size_t k = 0; k < keys.size(); ++k) {
      ma.insert(ma.end(), {keys[k], "A"});
      mb.insert(mb.end(), {keys[keys.size() - 1 - k], "B"});
    }
    cmds_a.push_back(std::move(ma));
    cmds_b.push_back(std::move(mb));
  }
  // Each round has three phases: both send, both have replies, A has checked (and B then
  // reads `stop`, which A only writes before that last phase).
  std::barrier sync(2);
  std::vector<std::string> replies_b(kRounds);
  bool stop = false;
  std::thread tb([&] {
    for (int round = 0; round < kRounds; ++round) {
      sync.arrive_and_wait();
      replies_b[size_t(round)] = b->Cmd(cmds_b[size_t(round)]);
      sync.arrive_and_wait();
      sync.arrive_and_wait();
      if (stop) break;
    }
  });
  std::string failure;
  for (int round = 0; round < kRounds && !stop; ++round) {
    sync.arrive_and_wait();
    std::string ra = a->Cmd(cmds_a[size_t(round)]);
    sync.arrive_and_wait();
    const std::string& rb = replies_b[size_t(round)];
    Args mget = {"MGET"};
    mget.insert(mget.end(), round_keys[size_t(round)].begin(), round_keys[size_t(round)].end());
    std::string values = rcc_->Cmd(mget);
    std::string winner = ra == ":1" ? "$A" : "$B";
    std::string want = "*[" + winner;
    for (size_t k = 1; k < round_keys[size_t(round)].size(); ++k) want += "," + winner;
    want += "]";
    if ((ra == ":1") == (rb == ":1") || values != want) {
      failure =
          absl::StrCat("round ", round, ": A ", Describe(cmds_a[size_t(round)]), " -> ", ra, ", B ",
                       Describe(cmds_b[size_t(round)]), " -> ", rb, "; then MGET -> ", values);
      stop = true;
    }
    sync.arrive_and_wait();
  }
  tb.join();
  EXPECT_EQ(failure, "") << "racing MSETNX must succeed for exactly one client";
}

// Clients that vanish with cross-shard commands still in flight (the owner shard answers
// after the connection is gone) must not disturb the server or other clients.
TEST_P(ConcurrencyTest, ClientsVanishingMidPipelineDoNotHurtTheServer) {
  std::vector<std::string> keys = OnePerShard("gone");
  std::string stream;
  for (int i = 0; i < 200; ++i) {
    Args mset = {"MSET"}, mget = {"MGET"};
    for (const std::string& k : keys) {
      mset.insert(mset.end(), {k, std::to_string(i)});
      mget.push_back(k);
    }
    stream += EncodeCommand(mset) + EncodeCommand(mget) + EncodeCommand({"DEL", keys.back()}) +
              EncodeCommand({"RENAME", keys[0], keys.back()});
  }
  for (int round = 0; round < 100; ++round) {
    auto conn = NewRaw(rc_->port());
    ASSERT_TRUE(conn);
    ASSERT_TRUE(conn->Send(stream.substr(0, stream.size() * size_t(round + 1) / 101)));
    if (round % 2) conn->ReadReply();  // Sometimes close once replies are flowing.
  }
  // (The vanished clients' commands may still be running: check other keys.)
  std::vector<std::string> mine = OnePerShard("after");
  EXPECT_EQ(rcc_->Cmd({"PING"}), "+PONG");
  EXPECT_EQ(rcc_->Cmd({"MSET", mine[0], "x", mine.back(), "y"}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"MGET", mine[0], mine.back()}), "*[$x,$y]");
}

// The fillers of a set or sorted set: "<prefix>0".."<prefix>8".
Args Fillers(const std::string& prefix, bool scored) {
  Args out;
  for (int i = 0; i < 9; ++i) {
    if (scored) out.push_back(std::to_string(i));
    out.push_back(absl::StrCat(prefix, i));
  }
  return out;
}
Args Cmd(Args head, const Args& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

// m moves between sets on two shards by SMOVE: it is always in exactly one of them.
TEST_P(ConcurrencyTest, SmoveIsAtomicForCrossShardSetReaders) {
  const std::string s1 = OnShard("s1", 0), s2 = OnShard("s2", threads() - 1);
  const std::string u = "{u%R}", i = "{i%R}";
  ASSERT_EQ(rcc_->Cmd(Cmd({"SADD", s1, "m"}, Fillers("a", false))), ":10");
  ASSERT_EQ(rcc_->Cmd(Cmd({"SADD", s2}, Fillers("b", false))), ":9");
  WriterAndReaders({{"SMOVE", s1, s2, "m"}, {"SMOVE", s2, s1, "m"}}, All(":1"),
                   {{"SINTERCARD", "2", s1, s2},
                    {"SUNIONSTORE", u, s1, s2},
                    {"SINTERSTORE", i, s1, s2},
                    {"SISMEMBER", u, "m"},
                    {"MULTI"}, {"SISMEMBER", s1, "m"}, {"SISMEMBER", s2, "m"}, {"EXEC"}},
                   [](const std::vector<std::string>& r) {
                     return r[0] == ":0" && r[1] == ":19" && r[2] == ":0" && r[3] == ":1" &&
                            (r.back() == "*[:1,:0]" || r.back() == "*[:0,:1]");
                   });
}

// m is added to (or removed from) two sets and two sorted sets on two shards at once, in
// a transaction: the differences never hold it.
TEST_P(ConcurrencyTest, DiffStoresAreAtomicForCrossShardWrites) {
  const std::string s1 = OnShard("s1", 0), s2 = OnShard("s2", threads() - 1);
  const std::string z1 = OnShard("z1", 1), z2 = OnShard("z2", 0);
  ASSERT_EQ(rcc_->Cmd(Cmd({"SADD", s1}, Fillers("a", false))), ":9");
  ASSERT_EQ(rcc_->Cmd(Cmd({"SADD", s2}, Fillers("b", false))), ":9");
  ASSERT_EQ(rcc_->Cmd(Cmd({"ZADD", z1}, Fillers("a", true))), ":9");
  ASSERT_EQ(rcc_->Cmd(Cmd({"ZADD", z2}, Fillers("b", true))), ":9");
  std::vector<Args> add = Multi({{"SADD", s1, "m"}, {"SADD", s2, "m"}, {"ZADD", z1, "1", "m"},
                                 {"ZADD", z2, "1", "m"}});
  std::vector<Args> del = Multi({{"SREM", s1, "m"}, {"SREM", s2, "m"}, {"ZREM", z1, "m"},
                                 {"ZREM", z2, "m"}});
  std::vector<Args> moves = add;
  moves.insert(moves.end(), del.begin(), del.end());
  WriterAndReaders(moves,
                   [](const std::vector<std::string>& r) {
                     return r[5] == "*[:1,:1,:1,:1]" && r[11] == "*[:1,:1,:1,:1]";
                   },
                   {{"SDIFFSTORE", "{d%R}", s1, s2},
                    {"SDIFFSTORE", "{d%R}", s2, s1},
                    {"ZDIFFSTORE", "{d%R}", "2", z1, z2},
                    {"ZDIFFSTORE", "{d%R}", "2", z2, z1},
                    {"SDIFF", s1, s2}},
                   [](const std::vector<std::string>& r) {
                     return r[0] == ":9" && r[1] == ":9" && r[2] == ":9" && r[3] == ":9" &&
                            r[4].find("$m") == std::string::npos;
                   });
}

// m moves between sorted sets on two shards in a transaction: unions always hold it once,
// intersections never.
TEST_P(ConcurrencyTest, ZsetStoresAreAtomicForCrossShardMoves) {
  const std::string z1 = OnShard("z1", 0), z2 = OnShard("z2", threads() - 1);
  ASSERT_EQ(rcc_->Cmd(Cmd({"ZADD", z1, "5", "m"}, Fillers("a", true))), ":10");
  ASSERT_EQ(rcc_->Cmd(Cmd({"ZADD", z2}, Fillers("b", true))), ":9");
  std::vector<Args> moves = Multi({{"ZREM", z1, "m"}, {"ZADD", z2, "5", "m"}});
  std::vector<Args> back = Multi({{"ZREM", z2, "m"}, {"ZADD", z1, "5", "m"}});
  moves.insert(moves.end(), back.begin(), back.end());
  WriterAndReaders(moves,
                   [](const std::vector<std::string>& r) {
                     return r[3] == "*[:1,:1]" && r[7] == "*[:1,:1]";
                   },
                   {{"ZUNIONSTORE", "{u%R}", "2", z1, z2},
                    {"ZINTERSTORE", "{i%R}", "2", z1, z2},
                    {"ZSCORE", "{u%R}", "m"},
                    {"ZINTERCARD", "2", z1, z2}},
                   [](const std::vector<std::string>& r) {
                     return r[0] == ":19" && r[1] == ":0" && r[2] == "$5" && r[3] == ":0";
                   });
}

// An element moves between lists on two shards by LMOVE: always in exactly one.
TEST_P(ConcurrencyTest, LmoveIsAtomicForCrossShardReaders) {
  const std::string l1 = OnShard("l1", 0), l2 = OnShard("l2", threads() - 1);
  ASSERT_EQ(rcc_->Cmd({"RPUSH", l1, "m"}), ":1");
  WriterAndReaders({{"LMOVE", l1, l2, "LEFT", "RIGHT"}, {"LMOVE", l2, l1, "RIGHT", "LEFT"}},
                   All("$m"), Multi({{"LLEN", l1}, {"LLEN", l2}}),
                   [](const std::vector<std::string>& r) {
                     return r.back() == "*[:1,:0]" || r.back() == "*[:0,:1]";
                   });
}

// COPY writes the whole value on another shard at once: a reader of the copy (alone, or
// with its source in one cross-shard command) never sees part of it.
TEST_P(ConcurrencyTest, CopyIsAtomicForCrossShardReaders) {
  const std::string src = OnShard("src", 0), dst = OnShard("dst", threads() - 1);
  Args sadd = {"SADD", src};
  for (int i = 0; i < 200; ++i) sadd.push_back(absl::StrCat("member", i));
  ASSERT_EQ(rcc_->Cmd(sadd), ":200");
  WriterAndReaders({{"COPY", src, dst, "REPLACE"}, {"DEL", dst}}, All(":1"),
                   {{"SCARD", dst}, {"SINTERCARD", "2", src, dst}},
                   [](const std::vector<std::string>& r) {
                     return (r[0] == ":0" || r[0] == ":200") &&
                            (r[1] == ":0" || r[1] == ":200");
                   });
}

// Exactly one of two bits on two shards is set (flipped in a transaction): BITOP sees
// them at one moment.
TEST_P(ConcurrencyTest, BitopIsAtomicForCrossShardWrites) {
  const std::string a = OnShard("a", 0), b = OnShard("b", threads() - 1);
  ASSERT_EQ(rcc_->Cmd({"SETBIT", a, "7", "1"}), ":0");
  ASSERT_EQ(rcc_->Cmd({"SETBIT", b, "7", "0"}), ":0");
  std::vector<Args> moves = Multi({{"SETBIT", a, "7", "0"}, {"SETBIT", b, "7", "1"}});
  std::vector<Args> back = Multi({{"SETBIT", b, "7", "0"}, {"SETBIT", a, "7", "1"}});
  moves.insert(moves.end(), back.begin(), back.end());
  WriterAndReaders(moves,
                   [](const std::vector<std::string>& r) {
                     return r[3] == "*[:1,:0]" && r[7] == "*[:1,:0]";
                   },
                   {{"BITOP", "OR", "{o%R}", a, b},
                    {"BITCOUNT", "{o%R}"},
                    {"BITOP", "AND", "{n%R}", a, b},
                    {"BITCOUNT", "{n%R}"},
                    {"BITOP", "XOR", "{x%R}", a, b},
                    {"BITCOUNT", "{x%R}"}},
                   [](const std::vector<std::string>& r) {
                     return r[1] == ":1" && r[3] == ":0" && r[5] == ":1";
                   });
}

INSTANTIATE_TEST_SUITE_P(Threads, ConcurrencyTest, ::testing::Values(2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
