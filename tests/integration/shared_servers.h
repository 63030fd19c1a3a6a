// Servers shared by the tests of one test process, so that a suite of hundreds of cases
// starts a handful of servers instead of one or two per case.
//
// The rule for which tests share: a fixture (RingcacheTest, DiffTest) borrows a server
// with its thread count and flags; between two tests the server is put back as it
// started:
//   - the previous test's connections are gone (connected_clients is the janitor's only,
//     nothing blocked, no subscriptions), so counts start from zero;
//   - CLIENT UNPAUSE, FLUSHALL SYNC, SCRIPT FLUSH, FUNCTION FLUSH, every setting that
//     CONFIG GET * shows back to its start-up value, SLOWLOG RESET, LATENCY RESET and
//     CONFIG RESETSTAT last (so INFO's counters start from what a fresh server shows,
//     but for config|resetstat's own call);
//   - the janitor's connection is closed and gone before the next test connects.
// A server that cannot be put back (it exited, the janitor cannot log in because the
// test changed the password, a step fails, a client lingers) is stopped (its exit is
// checked as any test's) and the next test starts a new one. A test whose subject is the
// process itself (start-up output, exit status, signals, memory since start) starts its
// own server with ServerProcess, or overrides FreshServer() in the fixture.
// RINGCACHE_TEST_FRESH=1 in the environment gives every test a fresh server, to tell a
// leak of state between tests from a bug.
//
// Everything here runs on gtest's main thread.

#ifndef RINGCACHE_TESTS_INTEGRATION_SHARED_SERVERS_H_
#define RINGCACHE_TESTS_INTEGRATION_SHARED_SERVERS_H_

#include <memory>
#include <string>

#include "tests/integration/server_process.h"

namespace rc::it {

// A server a test uses: either its own (assigned from ServerProcess::Start*) or one
// borrowed from SharedServers, which goes back to the pool when the reference is reset
// or destroyed. Both read the same to the test.
class ServerRef {
 public:
  ServerRef() = default;
  ~ServerRef() { reset(); }
  ServerRef(const ServerRef&) = delete;
  ServerRef& operator=(const ServerRef&) = delete;
  ServerRef& operator=(std::unique_ptr<ServerProcess> own);

  static ServerRef Borrowed(ServerProcess* shared);
  ServerRef(ServerRef&& other) noexcept;
  ServerRef& operator=(ServerRef&& other) noexcept;

  ServerProcess* get() const { return own_ ? own_.get() : shared_; }
  ServerProcess* operator->() const { return get(); }
  explicit operator bool() const { return get() != nullptr; }
  // Stops an own server (checking its exit) or hands a borrowed one back.
  void reset();

 private:
  std::unique_ptr<ServerProcess> own_;
  ServerProcess* shared_ = nullptr;
};

class SharedServers {
 public:
  // A ringcache with `threads` threads and `flags` (plus RINGCACHE_IO_ENGINE), put back in
  // its start-up state; null with `*error` set when none could be started.
  static ServerRef Ringcache(int threads, const Args& flags, std::string* error);
  // A redis-server with `flags`, likewise.
  static ServerRef Redis(const Args& flags, std::string* error);
  // True when every test must start its own servers (RINGCACHE_TEST_FRESH=1).
  static bool FreshOnly();

 private:
  friend class ServerRef;
  // Called by ServerRef when a test is done with `server`.
  static void GiveBack(ServerProcess* server);
};

}  // namespace rc::it

#endif  // RINGCACHE_TESTS_INTEGRATION_SHARED_SERVERS_H_
