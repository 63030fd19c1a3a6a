#pragma once
// The Prometheus endpoint (`--metrics-port N`, off when 0): GET /metrics answers INFO
// everything in the text exposition format (core/prometheus.h). Everything else: 404.
//
//   metrics thread: accept ─▶ read request ─▶ push "run INFO" to worker 0's inbox, wake it
//   worker 0:       INFO's own handler (fan-out over every shard) ─▶ fulfil the promise
//   metrics thread: format, write the response, close
//
// It has its own thread and socket, so a slow scraper never touches a reactor; the
// workers only run INFO as for any client.

#include <atomic>
#include <string>
#include <thread>

namespace rc {
class ShardSet;
class CommandTable;
struct ServerState;
}  // namespace rc

namespace rc::net {

class MetricsServer {
 public:
  MetricsServer(ShardSet& shards, ServerState& server, const CommandTable& table)
      : shards_(shards), server_(server), table_(table) {}
  ~MetricsServer() { Stop(); }

  // Listens on `bind`:`port` and starts the thread; false with `error` when it cannot.
  bool Start(const std::string& bind, int port, std::string* error);
  void Stop();
  int port() const { return port_; }

 private:
  void Loop();
  void Serve(int fd);
  // Metrics thread: INFO everything, run on worker 0. Empty if it did not answer in time
  // (shutting down).
  std::string RunInfo();

  ShardSet& shards_;
  ServerState& server_;
  const CommandTable& table_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace rc::net
