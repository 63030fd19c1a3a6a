// The fixture of the differential blocking tests (blocking_zset_test.cc,
// blocking_list_test.cc): clients that block are pairs of RawConns, one to redis-server
// and one to ringcache, sent the same bytes and read in lockstep; Blocked(n) waits until
// both servers count n blocked clients, so a command sent before has blocked on both.

#ifndef RINGCACHE_TESTS_INTEGRATION_BLOCKING_PAIRS_H_
#define RINGCACHE_TESTS_INTEGRATION_BLOCKING_PAIRS_H_

#include <memory>
#include <string>
#include <vector>

#include "tests/integration/fixtures.h"
#include "tests/integration/polling.h"

namespace rc::it {

struct Pair {
  std::unique_ptr<RawConn> redis;
  std::unique_ptr<RawConn> rc;
};

class DiffBlockingTest : public DiffTest {
 protected:
  Pair NewPair() { return Pair{NewRaw(redis_->port()), NewRaw(rc_->port())}; }

  void Send(Pair& p, const Args& cmd) {
    const std::string bytes = EncodeCommand(cmd);
    EXPECT_TRUE(p.redis->Send(bytes));
    EXPECT_TRUE(p.rc->Send(bytes));
  }
  // The next `n` replies on both connections, which must match.
  std::vector<std::string> Read(Pair& p, size_t n, const std::string& what) {
    std::vector<std::string> want = p.redis->ReadReplies(n);
    std::vector<std::string> got = p.rc->ReadReplies(n);
    EXPECT_EQ(got, want) << "replies differ from redis-server: " << what;
    return got;
  }
  std::vector<std::string> SameOn(Pair& p, const Args& cmd, size_t n = 1) {
    Send(p, cmd);
    return Read(p, n, Describe(cmd));
  }
  // Neither server has answered `p` yet.
  void Waiting(Pair& p, const std::string& what) {
    EXPECT_EQ(p.redis->ReadReply(milliseconds(30)), "!TIMEOUT") << "redis: " << what;
    EXPECT_EQ(p.rc->ReadReply(milliseconds(30)), "!TIMEOUT") << "ringcache: " << what;
  }
  // Both servers count `n` blocked clients (so a command sent before has blocked).
  void Blocked(int64_t n) {
    EXPECT_TRUE(PollUntil([&] { return IntInfo(*redisc_, "blocked_clients") == n; }));
    EXPECT_TRUE(PollUntil([&] { return IntInfo(*rcc_, "blocked_clients") == n; }))
        << "ringcache blocked_clients " << IntInfo(*rcc_, "blocked_clients") << ", want " << n;
  }
  static int64_t IntInfo(Client& c, const std::string& field) {
    return InfoInt(c, "clients", field);
  }
  // Blocks `p` with `cmd` and waits until both servers count it.
  void Block(Pair& p, const Args& cmd, int64_t blocked_after) {
    Send(p, cmd);
    Blocked(blocked_after);
  }
  // One key on each shard (two on the only shard of one thread), first shard first.
  std::vector<std::string> SpreadKeys(const std::string& prefix) {
    std::vector<std::string> keys;
    for (int s = 0; s < threads(); ++s) keys.push_back(KeysOnShard(prefix, s, threads(), 1)[0]);
    if (threads() == 1) keys.push_back(KeysOnShard(prefix, 0, 1, 2)[1]);
    return keys;
  }
};

}  // namespace rc::it

#endif  // RINGCACHE_TESTS_INTEGRATION_BLOCKING_PAIRS_H_
