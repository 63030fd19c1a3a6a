#pragma once
// Owns the whole server: the shard set, the command table, one listening socket and one
// reactor thread per shard.
//
//   main thread: Start() ─▶ bind listeners (SO_REUSEPORT, one per thread)
//                        ─▶ StartReactors(io-engine): spawn N threads; each sets up its
//                           engine (ring or epoll fd), then all wait for each other's
//                           wake fds, then Run()
//                           io_uring failed to set up ─▶ warn, StartReactors(epoll)
//                Wait()  ─▶ join
//   any thread:  RequestShutdown() ─▶ flag + wake every reactor (RemoteWaker)

#include <latch>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "net/reactor.h"
#include "shard/command/dispatcher.h"
#include "shard/runtime/shard_set.h"
#include "shard/scripting/script_registry.h"
#include "shard/persist/replica_link.h"
#include "shard/state/server_state.h"
#include "shard/wire/command.h"
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
  // SIGTERM / SIGINT (the signal thread): stops as Redis does, saving first when save
  // points are set; a failed save keeps the server running.
  void StopOnSignal();
  int port() const { return state_.bound_port; }
  ServerState& state() { return state_; }

 private:
  enum class BindMode {
    kListen,        // a listening socket of its own
    kListenShared,  // one of a SO_REUSEPORT group: the kernel spreads connections
    kProbe,         // bind only, then close: fails while anyone listens on the port
  };
  // A socket on `port` (0: ephemeral) of `host`; -1 and *error on failure, with *err_no
  // the failed call's errno. *bound_port gets the port it is bound to. kProbe returns 0
  // on success.
  int BindListener(const std::string& host, int port, BindMode mode, int* bound_port,
                   std::string* error, int* err_no = nullptr);
  // One listener per thread and bind address on the main port (SO_REUSEPORT), once no
  // other process listens there. An optional address ("-" in `bind`) that this host
  // cannot bind is skipped, as Redis skips it; at least one address must be bound.
  bool Listen(int count, std::string* error);
  // The first address Listen bound: the cluster node ports and the metrics endpoint
  // listen there.
  const std::string& FirstBound() const { return first_bound_; }
  // cluster-enabled without a map file: one more listener per thread, its cluster node
  // port (docs/CLUSTER.md), and the map of those nodes.
  bool ListenNodes(int count, std::string* error);
  // Creates the reactors with `engine` and starts their threads; on failure (some
  // reactor's Init failed) every thread is joined and the reactors are gone again.
  bool StartReactors(IoEngine engine, std::string* error);
  void WakeAll();
  // Before the workers start: the RDB file of `dir`/`dbfilename`, if there is one.
  bool LoadData(std::string* error);
  // With appendonly on, the workers running: replays the log's commands, opens it for
  // appending, then lets clients in.
  bool StartLog(std::string* error);
  // With the reactors stopped: ends a snapshot still being written (its temporary file
  // goes) and waits for its writer.
  void AbandonSave();

  ServerState state_;
  CommandTable table_;
  // Declared before the shards so it is destroyed after them: its destructor runs every
  // free still queued (shutdown drains the pool).
  std::unique_ptr<ThreadPool> lazyfree_;
  std::unique_ptr<ShardSet> shards_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::vector<std::string> aof_replay_;  // the log's files to replay at start
  std::unique_ptr<ScriptRegistry> scripts_;  // the threads' Lua engines
  // After the shards: destroyed (its thread stopped) before them.
  std::unique_ptr<MetricsServer> metrics_;
  // MIGRATE's network thread (ServerState::network_io); stopped once the reactors are,
  // before the shards its results are posted to go.
  std::unique_ptr<ThreadPool> network_io_;
  // A replica's link to its master (ServerState::replication); stopped once the reactors
  // are, before the shards it posts to go.
  std::unique_ptr<ReplicaLink> replica_link_;
  ReactorShared shared_;
  // [reactor][bind address]: closed after the reactors are gone.
  std::vector<std::vector<int>> listen_fds_;
  std::string first_bound_;
  std::vector<int> node_listen_fds_;  // per-thread cluster node ports, likewise
  std::vector<int> node_ports_;
  // Wakes the reactors from threads without one; replaced only while no reactor runs.
  // wake_mu_ keeps it (and the reactors' wake fds) alive while a WakeAll uses it.
  std::mutex wake_mu_;
  std::unique_ptr<RemoteWaker> remote_waker_;
  std::vector<std::unique_ptr<Reactor>> reactors_;
  std::vector<std::thread> threads_;
  // Every reactor's engine set up (workers + Start). It outlives Start(): a thread may
  // still be inside arrive_and_wait() after the last arrival released the main thread.
  std::unique_ptr<std::latch> engines_ready_;
  std::vector<std::string> init_errors_;
};

}  // namespace rc::net
