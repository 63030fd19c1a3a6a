#pragma once
// Owns the whole server: the shard set, the command table, one listening socket and one
// reactor thread per shard.
//
//   main thread: Start() ─▶ bind listeners (SO_REUSEPORT, one per thread)
//                        ─▶ spawn N threads: each creates its ring, then all wait for
//                           each other's ring fds, then Run()
//                Wait()  ─▶ join
//   any thread:  RequestShutdown() ─▶ flag + MSG_RING to every reactor

#include <liburing.h>

#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <mutex>
#include "net/reactor.h"
#include "shard/command.h"
#include "shard/dispatcher.h"
#include "shard/server_state.h"
#include "shard/shard_set.h"
#include "threadpool/thread_pool.h"

namespace rc::net {

class MetricsServer;

class Server {
 public:
  explicit Server(const Config& config);
  ~Server();

  // Binds and starts every reactor; returns once all of them accept connections.
  bool Start(std::string* error);
  // Blocks until shutdown was requested and every reactor has stopped.
  void Wait();
  // Any thread.
  void RequestShutdown() { state_.RequestShutdown(); }
  int port() const { return state_.bound_port; }
  ServerState& state() { return state_; }

 private:
  bool Listen(int count, std::vector<int>* fds, std::string* error);
  void WakeAll();

  ServerState state_;
  CommandTable table_;
  // Declared before the shards so it is destroyed after them: its destructor runs every
  // free still queued (shutdown drains the pool).
  std::unique_ptr<ThreadPool> lazyfree_;
  std::unique_ptr<ShardSet> shards_;
  std::unique_ptr<Dispatcher> dispatcher_;
  // After the shards: destroyed (its thread stopped) before them.
  std::unique_ptr<MetricsServer> metrics_;
  ReactorShared shared_;
  std::vector<std::unique_ptr<Reactor>> reactors_;
  std::vector<std::thread> threads_;
  std::unique_ptr<std::latch> rings_ready_;  // every ring created (workers + Start)
  std::vector<std::string> init_errors_;

  // A ring of the server's own, so threads without one can wake the reactors.
  std::mutex wake_mu_;
  io_uring wake_ring_{};
  bool wake_ring_ready_ = false;
};

}  // namespace rc::net
