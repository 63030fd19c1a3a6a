// Blocking commands on ringcache alone (1, 2 and 3 threads), where timing and threads
// matter: timeouts fire on time and in order; a client that disconnects while blocked
// leaves nothing behind; keys of two shards given data at once serve one waiter exactly
// once; and queue workloads of many producers and consumers over every shard (sorted
// sets; lists with BRPOP and BLMOVE across shards) lose and duplicate nothing (a checker
// counts each job).

#include <poll.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"
#include "tests/integration/polling.h"

namespace rc::it {
namespace {

using Clock = std::chrono::steady_clock;

class BlockingTest : public RingcacheTest {
 protected:
  int64_t Blocked() { return InfoInt(*rcc_, "clients", "blocked_clients"); }
  void WaitBlocked(int64_t n) {
    EXPECT_TRUE(PollUntil([&] { return Blocked() == n; })) << Blocked() << " blocked, want " << n;
  }
};

// Sends each command on its own connection at once, then records when each reply
// arrives. Returns, per connection, the reply and its delay from the sends.
struct Arrival {
  std::string reply;
  milliseconds after{0};
};
std::vector<Arrival> RaceReplies(std::vector<std::unique_ptr<RawConn>>& conns,
                                 const std::vector<Args>& cmds, milliseconds limit) {
  std::vector<Arrival> out(conns.size());
  std::vector<bool> done(conns.size(), false);
  const auto start = Clock::now();
  for (size_t i = 0; i < conns.size(); ++i) conns[i]->Send(EncodeCommand(cmds[i]));
  size_t left = conns.size();
  while (left > 0 && Clock::now() - start < limit) {
    std::vector<pollfd> fds;
    std::vector<size_t> which;
    for (size_t i = 0; i < conns.size(); ++i) {
      if (done[i]) continue;
      fds.push_back({conns[i]->fd(), POLLIN, 0});
      which.push_back(i);
    }
    if (poll(fds.data(), fds.size(), 5) <= 0) continue;
    const auto now = Clock::now();
    for (size_t j = 0; j < fds.size(); ++j) {
      if (!(fds[j].revents & POLLIN)) continue;
      const size_t i = which[j];
      out[i].reply = conns[i]->ReadReply();
      out[i].after = std::chrono::duration_cast<milliseconds>(now - start);
      done[i] = true;
      --left;
    }
  }
  return out;
}

TEST_P(BlockingTest, TimeoutsFireOnTimeAndInOrder) {
  // 0 waits forever.
  auto forever = NewRaw(rc_->port());
  forever->Send(EncodeCommand({"BZPOPMIN", "t7", "0"}));
  WaitBlocked(1);
  std::vector<std::unique_ptr<RawConn>> conns;
  for (int i = 0; i < 4; ++i) conns.push_back(NewRaw(rc_->port()));
  // Keys on every shard, so the clients' threads and the keys' threads differ.
  const std::vector<Args> cmds = {{"BZPOPMIN", "t1", "0.3"},
                                  {"BZPOPMAX", "t2", "t3", "0.1"},
                                  {"BZMPOP", "0.2", "2", "t4", "t5", "MIN"},
                                  {"BZPOPMIN", "t6", "0.25"}};
  std::vector<Arrival> got = RaceReplies(conns, cmds, milliseconds(5000));
  const int want_ms[] = {300, 100, 200, 250};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(got[i].reply, "(nil-array)") << Describe(cmds[i]);
    // Deadlines are whole milliseconds of the server's clock, as in Redis: up to 1 ms early.
    EXPECT_GE(got[i].after.count(), want_ms[i] - 2) << Describe(cmds[i]);
    // Generous: sanitizer runs on two loaded cores.
    EXPECT_LT(got[i].after.count(), want_ms[i] + 1500) << Describe(cmds[i]);
  }
  // In deadline order. Equal times are replies this thread found in the same poll (it was
  // descheduled meanwhile on a loaded machine), not a reversal.
  EXPECT_LE(got[1].after, got[2].after);
  EXPECT_LE(got[2].after, got[3].after);
  EXPECT_LE(got[3].after, got[0].after);
  EXPECT_EQ(Blocked(), 1);
  EXPECT_EQ(InfoInt(*rcc_, "clients", "clients_in_timeout_table"), 0);
  EXPECT_EQ(rcc_->Cmd({"ZADD", "t7", "1", "a"}), ":1");
  EXPECT_EQ(forever->ReadReply(), "*[$t7,$a,$1]");
}

TEST_P(BlockingTest, DisconnectWhileBlockedLeavesNothing) {
  std::vector<std::string> keys;
  for (int s = 0; s < threads(); ++s) {
    for (const std::string& k : KeysOnShard("gone", s, threads(), 3)) keys.push_back(k);
  }
  std::vector<std::unique_ptr<RawConn>> conns;
  for (size_t i = 0; i < 12; ++i) {
    conns.push_back(NewRaw(rc_->port()));
    Args cmd = {"BZPOPMIN", keys[i % keys.size()], keys[(i + 1) % keys.size()]};
    cmd.push_back(i % 2 == 0 ? "0" : "100");
    conns.back()->Send(EncodeCommand(cmd));
    // Some with a pipeline behind the blocked command.
    if (i % 3 == 0) conns.back()->Send(EncodeCommand({"ZADD", "junk", "1", "x"}));
  }
  WaitBlocked(12);
  EXPECT_EQ(InfoInt(*rcc_, "clients", "clients_in_timeout_table"), 6);
  conns.clear();
  WaitBlocked(0);
  EXPECT_EQ(InfoInt(*rcc_, "clients", "clients_in_timeout_table"), 0);
  // Nobody takes what comes now: no waiter was left behind on any shard.
  for (const std::string& k : keys) EXPECT_EQ(rcc_->Cmd({"ZADD", k, "1", "m"}), ":1");
  for (const std::string& k : keys) EXPECT_EQ(rcc_->Cmd({"ZCARD", k}), ":1") << k;
  EXPECT_EQ(rcc_->Cmd({"EXISTS", "junk"}), ":0");
  // Disconnecting while the first look is under way (the keys' shards busy) is safe too.
  for (int round = 0; round < 50; ++round) {
    auto c = NewRaw(rc_->port());
    Args cmd = {"BZMPOP", "0", std::to_string(keys.size())};
    for (const std::string& k : keys) cmd.push_back(absl::StrCat(k, "-", round));
    cmd.push_back("MIN");
    c->Send(EncodeCommand(cmd));
  }
  WaitBlocked(0);
  EXPECT_EQ(IntCmd(*rcc_, {"DBSIZE"}), int64_t(keys.size()));
}

// Needs keys on two shards: instantiated with 2 and 3 threads only.
class BlockingTwoShardsTest : public BlockingTest {};

TEST_P(BlockingTwoShardsTest, TwoShardsReadyAtOnceServeOnce) {
  const std::string a = KeysOnShard("ra", 0, threads(), 1)[0];
  const std::string b = KeysOnShard("rb", threads() - 1, threads(), 1)[0];
  auto waiter = NewRaw(rc_->port());
  std::vector<std::unique_ptr<RawConn>> pushers;
  for (int i = 0; i < 2; ++i) pushers.push_back(NewRaw(rc_->port()));
  for (int round = 0; round < 100; ++round) {
    waiter->Send(EncodeCommand({"BZPOPMIN", a, b, "0"}));
    WaitBlocked(1);
    // Both keys get a member at the same moment, from connections on other threads.
    pushers[0]->Send(EncodeCommand({"ZADD", a, "1", absl::StrCat("a", round)}));
    pushers[1]->Send(EncodeCommand({"ZADD", b, "1", absl::StrCat("b", round)}));
    EXPECT_EQ(pushers[0]->ReadReply(), ":1");
    EXPECT_EQ(pushers[1]->ReadReply(), ":1");
    const std::string got = waiter->ReadReply();
    const bool from_a = got == absl::StrCat("*[$", a, ",$a", round, ",$1]");
    const bool from_b = got == absl::StrCat("*[$", b, ",$b", round, ",$1]");
    EXPECT_TRUE(from_a || from_b) << got;
    // The other member stays where it was pushed.
    EXPECT_EQ(IntCmd(*rcc_, {"ZCARD", a}) + IntCmd(*rcc_, {"ZCARD", b}), 1) << "round " << round;
    rcc_->Cmd({"DEL", a, b});
  }
}

// Producers add unique jobs (pipelined) to queues on every shard; consumers wait on
// several queues each; every job must come out exactly once.
TEST_P(BlockingTest, QueueWorkloadLosesAndDuplicatesNothing) {
  constexpr int kQueues = 12, kProducers = 4, kConsumers = 6, kJobsPerProducer = 600;
  constexpr int kTotal = kProducers * kJobsPerProducer;
  std::vector<std::string> queues;
  for (int q = 0; q < kQueues; ++q) queues.push_back(absl::StrCat("queue:", q));
  std::atomic<int> consumed{0};
  std::vector<std::map<std::string, int>> seen(kConsumers);
  std::vector<std::thread> threads;
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < kProducers + kConsumers; ++i) clients.push_back(NewClient());
  for (int c = 0; c < kConsumers; ++c) {
    threads.emplace_back([&, c] {
      Client& cl = *clients[size_t(kProducers + c)];
      Args cmd = c % 2 == 0 ? Args{"BZPOPMIN"} : Args{"BZMPOP", "0.5", "4"};
      for (int j = 0; j < 4; ++j) cmd.push_back(queues[size_t((c + j * 3) % kQueues)]);
      if (c % 2 == 0) {
        cmd.push_back("0.5");
      } else {
        cmd.insert(cmd.end(), {"MIN", "COUNT", "3"});
      }
      while (consumed.load() < kTotal) {
        Client::ReplyPtr r = cl.RawCmd(cmd);
        ASSERT_TRUE(r);
        if (r->type == REDIS_REPLY_NIL) continue;
        ASSERT_EQ(r->type, REDIS_REPLY_ARRAY);
        if (c % 2 == 0) {
          ASSERT_EQ(r->elements, 3u);
          ++seen[size_t(c)][std::string(r->element[1]->str, r->element[1]->len)];
          consumed.fetch_add(1);
        } else {
          const redisReply* items = r->element[1];
          for (size_t i = 0; i < items->elements; ++i) {
            const redisReply* m = items->element[i]->element[0];
            ++seen[size_t(c)][std::string(m->str, m->len)];
            consumed.fetch_add(1);
          }
        }
      }
    });
  }
  for (int p = 0; p < kProducers; ++p) {
    threads.emplace_back([&, p] {
      Client& cl = *clients[size_t(p)];
      for (int j = 0; j < kJobsPerProducer; j += 20) {
        for (int k = j; k < j + 20; ++k) {
          cl.Append({"ZADD", queues[size_t((p * 7 + k) % kQueues)], "1", absl::StrCat(p, ":", k)});
        }
        for (int k = j; k < j + 20; ++k) EXPECT_EQ(cl.GetReply(), ":1");
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::map<std::string, int> all;
  for (const auto& s : seen) {
    for (const auto& [job, n] : s) all[job] += n;
  }
  EXPECT_EQ(all.size(), size_t(kTotal));
  for (const auto& [job, n] : all) EXPECT_EQ(n, 1) << job;
  for (const std::string& q : queues) EXPECT_EQ(rcc_->Cmd({"EXISTS", q}), ":0");
  WaitBlocked(0);
}

// The same with lists, as job queues run: producers LPUSH (pipelined), consumers BRPOP
// several queues, or move a job with BLMOVE into a processing list of their own (often on
// another shard) and acknowledge it with RPOP; every job once, nothing left anywhere.
TEST_P(BlockingTest, ListQueueWorkloadLosesAndDuplicatesNothing) {
  constexpr int kQueues = 12, kProducers = 4, kConsumers = 6, kJobsPerProducer = 600;
  constexpr int kTotal = kProducers * kJobsPerProducer;
  std::vector<std::string> queues;
  for (int q = 0; q < kQueues; ++q) queues.push_back(absl::StrCat("jobs:", q));
  std::atomic<int> consumed{0};
  std::vector<std::map<std::string, int>> seen(kConsumers);
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < kProducers + kConsumers; ++i) clients.push_back(NewClient());
  std::vector<std::thread> workers;
  for (int c = 0; c < kConsumers; ++c) {
    workers.emplace_back([&, c] {
      Client& cl = *clients[size_t(kProducers + c)];
      const std::string processing = absl::StrCat("processing:", c);
      for (int round = 0; consumed.load() < kTotal; ++round) {
        std::string job;
        if (c % 2 == 0) {
          Args cmd = {"BRPOP"};
          for (int j = 0; j < 4; ++j) cmd.push_back(queues[size_t((c + j * 3) % kQueues)]);
          cmd.push_back("0.5");
          Client::ReplyPtr r = cl.RawCmd(cmd);
          ASSERT_TRUE(r);
          if (r->type == REDIS_REPLY_NIL) continue;
          ASSERT_EQ(r->type, REDIS_REPLY_ARRAY);
          job.assign(r->element[1]->str, r->element[1]->len);
        } else {
          const std::string& q = queues[size_t((c + round) % kQueues)];
          Client::ReplyPtr r = cl.RawCmd({"BLMOVE", q, processing, "RIGHT", "LEFT", "0.05"});
          ASSERT_TRUE(r);
          if (r->type == REDIS_REPLY_NIL) continue;
          ASSERT_EQ(r->type, REDIS_REPLY_STRING);
          job.assign(r->str, r->len);
          EXPECT_EQ(cl.Cmd({"RPOP", processing}), "$" + job);
        }
        ++seen[size_t(c)][job];
        consumed.fetch_add(1);
      }
    });
  }
  for (int p = 0; p < kProducers; ++p) {
    workers.emplace_back([&, p] {
      Client& cl = *clients[size_t(p)];
      for (int j = 0; j < kJobsPerProducer; j += 20) {
        for (int k = j; k < j + 20; ++k) {
          cl.Append({"LPUSH", queues[size_t((p * 5 + k) % kQueues)], absl::StrCat(p, ":", k)});
        }
        for (int k = j; k < j + 20; ++k) EXPECT_EQ(cl.GetReply().substr(0, 1), ":");
      }
    });
  }
  for (std::thread& t : workers) t.join();
  std::map<std::string, int> all;
  for (const auto& m : seen) {
    for (const auto& [job, n] : m) all[job] += n;
  }
  EXPECT_EQ(all.size(), size_t(kTotal));
  for (const auto& [job, n] : all) EXPECT_EQ(n, 1) << job;
  EXPECT_EQ(IntCmd(*rcc_, {"DBSIZE"}), 0);
  WaitBlocked(0);
}

INSTANTIATE_TEST_SUITE_P(Threads, BlockingTest, ::testing::Values(1, 2, 3), ThreadsName);
INSTANTIATE_TEST_SUITE_P(Threads, BlockingTwoShardsTest, ::testing::Values(2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
