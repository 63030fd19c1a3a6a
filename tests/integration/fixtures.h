// Test fixtures over ServerProcess, parameterized by ringcache's thread count:
//   RingcacheTest: one ringcache with GetParam() threads and a client to it.
//   DiffTest:      the same plus a reference redis-server; Same(cmd) sends cmd to both and
//                  fails with both replies when they differ.
// The servers are borrowed from SharedServers (shared_servers.h says when a test gets a
// fresh one) and start every test as a new server would: empty, default settings, no
// other client connected.

#ifndef RINGCACHE_TESTS_INTEGRATION_FIXTURES_H_
#define RINGCACHE_TESTS_INTEGRATION_FIXTURES_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/polling.h"
#include "tests/integration/server_process.h"
#include "tests/integration/shared_servers.h"

namespace rc::it {

// Every key a full SCAN iteration with `opts` (e.g. {"COUNT","10"}) returns, duplicates
// included, in reply order. `between` runs after each SCAN call. Fails the test on an
// error reply or if the iteration does not end within `max_calls`.
template <typename Between>
std::vector<std::string> ScanAll(Client& c, const Args& opts, Between between,
                                 int max_calls = 100000) {
  std::vector<std::string> keys;
  std::string cursor = "0";
  for (int calls = 0; calls < max_calls; ++calls) {
    Args cmd = {"SCAN", cursor};
    cmd.insert(cmd.end(), opts.begin(), opts.end());
    Client::ReplyPtr r = c.RawCmd(cmd);
    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
        r->element[0]->type != REDIS_REPLY_STRING) {
      ADD_FAILURE() << Describe(cmd) << " -> " << (r ? Canon(r.get()) : "I/O error");
      return keys;
    }
    cursor.assign(r->element[0]->str, r->element[0]->len);
    for (std::string& k : Strings(r->element[1])) keys.push_back(std::move(k));
    if (cursor == "0") return keys;
    between();
  }
  ADD_FAILURE() << "SCAN " << Describe(opts) << " did not finish in " << max_calls << " calls";
  return keys;
}
inline std::vector<std::string> ScanAll(Client& c, const Args& opts) {
  return ScanAll(c, opts, [] {});
}

inline std::string ThreadsName(const ::testing::TestParamInfo<int>& info) {
  return absl::StrCat("Threads", info.param);
}

class RingcacheTest : public ::testing::TestWithParam<int> {
 protected:
  int threads() const { return GetParam(); }

  void SetUp() override {
    std::string error;
    if (FreshServer()) {
      rc_ = ServerProcess::StartRingcache(threads(), ExtraFlags(), &error);
    } else {
      rc_ = SharedServers::Ringcache(threads(), ExtraFlags(), &error);
    }
    ASSERT_TRUE(rc_) << error;
    rcc_ = Client::Connect(rc_->port(), &error);
    ASSERT_TRUE(rcc_) << error;
    if (rc_->io_uring_fell_back()) GTEST_SKIP() << "no io_uring on this host: the server runs epoll";
  }
  // `n` (rounds, keys, bytes) against a Release server, a quarter of it against a sanitizer
  // build's (RINGCACHE_SERVER), which runs each command 5-15 times slower: for the loops
  // whose assertions hold at any size (clients on different threads interleave all the
  // same, a limit is kept or not whatever its size).
  template <typename T>
  T Scaled(T n) const {
    return rc_->Sanitized() ? n / 4 : n;
  }
  // Flags for the servers (DiffTest passes them to redis-server too).
  virtual Args ExtraFlags() const { return {}; }
  // True for a fixture whose tests need servers of their own (shared_servers.h).
  virtual bool FreshServer() const { return false; }

  std::unique_ptr<Client> NewClient() {
    std::string error;
    auto c = Client::Connect(rc_->port(), &error);
    EXPECT_TRUE(c) << error;
    return c;
  }
  // A client that server thread `thread` serves. SO_REUSEPORT picks a connection's thread
  // by a hash of its address: this connects until one lands there (DEBUG THREAD).
  std::unique_ptr<Client> ClientOnThread(int thread) {
    for (int attempt = 0; attempt < 500; ++attempt) {
      std::unique_ptr<Client> c = NewClient();
      if (!c) return c;
      if (IntCmd(*c, {"DEBUG", "THREAD"}) == thread) return c;
    }
    ADD_FAILURE() << "no connection landed on thread " << thread << " in 500 tries";
    return nullptr;
  }
  // Runs `body(client_index, client)` on `n` threads, each with its own connection;
  // client i is served by server thread i % threads(), so clients always meet across
  // threads (two connections of one thread could never interleave their cross-shard
  // commands: that thread sends their hops in order).
  template <typename Body>
  void RunClients(int n, Body body) {
    std::vector<std::unique_ptr<Client>> clients;
    for (int i = 0; i < n; ++i) {
      clients.push_back(ClientOnThread(i % threads()));
      ASSERT_TRUE(clients.back());
    }
    std::vector<std::thread> workers;
    for (int i = 0; i < n; ++i) workers.emplace_back([&, i] { body(i, *clients[size_t(i)]); });
    for (std::thread& t : workers) t.join();
  }
  std::unique_ptr<RawConn> NewRaw(int port) {
    std::string error;
    auto c = RawConn::Connect(port, &error);
    EXPECT_TRUE(c) << error;
    return c;
  }

  // Destroyed in reverse order: clients first, then the server (which checks its exit or
  // goes back to the pool); a subclass's members go before both.
  ServerRef rc_;
  std::unique_ptr<Client> rcc_;
};

class DiffTest : public RingcacheTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(RingcacheTest::SetUp());
    std::string error;
    if (FreshServer()) {
      redis_ = ServerProcess::StartRedis(&error, ExtraFlags());
    } else {
      redis_ = SharedServers::Redis(ExtraFlags(), &error);
    }
    ASSERT_TRUE(redis_) << error;
    redisc_ = Client::Connect(redis_->port(), &error);
    ASSERT_TRUE(redisc_) << error;
  }
  // Sends `cmd` to both servers and expects the same canonical reply; returns ringcache's.
  std::string Same(const Args& cmd) {
    std::string want = redisc_->Cmd(cmd);
    std::string got = rcc_->Cmd(cmd);
    if (got != want) {
      ADD_FAILURE() << "reply differs from redis-server\n  command:   " << Describe(cmd)
                    << "\n  redis:     " << want << "\n  ringcache: " << got;
    }
    return got;
  }
  void Script(const std::vector<Args>& cmds) {
    for (const Args& cmd : cmds) Same(cmd);
  }
  // Sends `cmd` to both servers: an array reply's string elements compare sorted (hash
  // order differs between the servers), any other reply exactly.
  void SameSorted(const Args& cmd) {
    Client::ReplyPtr w = redisc_->RawCmd(cmd), g = rcc_->RawCmd(cmd);
    ASSERT_TRUE(w && g) << Describe(cmd);
    if (w->type != REDIS_REPLY_ARRAY) {
      EXPECT_EQ(Canon(g.get()), Canon(w.get())) << Describe(cmd);
      return;
    }
    std::vector<std::string> want = Strings(w.get()), got = Strings(g.get());
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want) << Describe(cmd) << "\n  redis:     " << Canon(w.get())
                         << "\n  ringcache: " << Canon(g.get());
  }
  // `count` keys named after `prefix`, one on each shard in turn (all on shard 0 with one
  // thread), so multi-key commands over them span every shard.
  std::vector<std::string> Spread(const std::string& prefix, int count) {
    std::vector<std::string> keys;
    for (int i = 0; i < count; ++i) {
      keys.push_back(KeysOnShard(absl::StrCat(prefix, i, "_"), i % threads(), threads(), 1)[0]);
    }
    return keys;
  }
  // For replies where ringcache deliberately differs from Redis (e.g. it has one DB):
  // runs `cmd` on both (to keep their data in step) and checks ringcache against `want`.
  void Expect(const Args& cmd, const std::string& want) {
    redisc_->Cmd(cmd);
    EXPECT_EQ(rcc_->Cmd(cmd), want) << "command: " << Describe(cmd);
  }

  ServerRef redis_;
  std::unique_ptr<Client> redisc_;
};

}  // namespace rc::it

#endif  // RINGCACHE_TESTS_INTEGRATION_FIXTURES_H_
