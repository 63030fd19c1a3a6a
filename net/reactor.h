#pragma once
// One worker thread's event loop: accepts, receives and sends for the connections of this
// thread, runs the tasks other threads post to it, and owns shard i.
//
// A loop turn (Run):
//   run posted tasks ─▶ handle I/O events (accepts, reads → commands, finished sends)
//   ─▶ housekeeping ─▶ hand posts to other threads (+ wake-ups)
//   ─▶ start one send per connection with output ─▶ Poll: wait for I/O, blocking only when
//      there is nothing left to do (bounded by the cron tick and the next key deadline).
//
// This class is the engine-independent part: the loop, connection lifecycle, idle
// timeout, maxclients, expiry. The I/O engine is a subclass that implements the hooks
// below and calls back the On*/Send* handlers:
//   UringReactor (net/uring_engine.h): io_uring, multishot accept/recv, MSG_RING wake-ups.
//   EpollReactor (net/epoll_engine.h): epoll + non-blocking sockets, eventfd wake-ups, for
//     kernels or sandboxes (seccomp) without io_uring.
// Connection, the dispatcher and the shards see only this class.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "net/connection.h"
#include "net/resp_parser.h"
#include "shard/command/dispatcher.h"
#include "shard/runtime/mailbox.h"
#include "shard/runtime/script_busy.h"
#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"
#include "timers/idle_list.h"

namespace rc::net {

enum class IoEngine { kUring, kEpoll };
// "io_uring" or "epoll" (the `io-engine` setting's values).
std::string_view IoEngineName(IoEngine engine);
bool ParseIoEngine(std::string_view name, IoEngine* out);
// "ENOSYS (Function not implemented)", for start-up messages.
std::string ErrnoText(int err);

// What every reactor shares. Immutable once the threads run.
struct ReactorShared {
  ShardSet* shards = nullptr;
  const Dispatcher* dispatcher = nullptr;
  ServerState* server = nullptr;
  // The cluster node port connections on the main listeners belong to (a process that is
  // one node of a multi-process map); 0 when the main port serves every key.
  int main_cluster_port = 0;
  // Per reactor, the fd its Wake() targets: its ring (MSG_RING) or its eventfd. Filled
  // before any loop runs.
  std::vector<int> wake_fds;
  std::atomic<int> connected_clients{0};
};

// Wakes every reactor from any thread, also one without a reactor (signal thread).
class RemoteWaker {
 public:
  virtual ~RemoteWaker() = default;
  virtual void WakeAll(const std::vector<int>& wake_fds) = 0;
};

class Reactor : public Waker, public BusyTurn {
 public:
  // `listen_fds`, one per bind address, stay owned by the caller.
  Reactor(uint32_t id, std::vector<int> listen_fds, ReactorShared& shared);
  // Before Init: this thread is also cluster node `node_port`, listening on `fd` (owned by
  // the caller); its connections may only touch this shard's slots.
  void SetNodeListener(int fd, int node_port) {
    node_listen_fd_ = fd;
    node_port_ = node_port;
  }
  ~Reactor() override;
  Reactor(const Reactor&) = delete;
  Reactor& operator=(const Reactor&) = delete;

  // On the reactor's own thread, before Run(): sets up the engine (ring, epoll fd).
  virtual bool Init(std::string* error) = 0;
  // What other reactors' Wake() and RemoteWaker target; valid after Init().
  virtual int wake_fd() const = 0;
  // Runs until shutdown is requested, then shuts every connection down.
  void Run();

  // Waker (engine): called on this thread, makes reactor `dest` leave its wait.
  void Wake(uint32_t dest) override = 0;

  // For connections, on this thread.
  ShardThread& shard_thread() { return shards_.thread(id_); }
  const Dispatcher& dispatcher() const { return *shared_.dispatcher; }
  void MarkDirty(Connection* c) { dirty_.push_back(c); }
  void ScheduleFree(Connection* c);
  // Closes `c` at the end of this loop turn: for limits crossed while `c` (or a pub/sub
  // delivery to it) is still on the stack.
  void CloseAsync(Connection* c) { close_asap_.push_back(c); }
  const ServerState& server() const { return *shared_.server; }
  // Monotonic milliseconds at the start of this loop turn.
  int64_t now_ms() const { return now_ns_ / 1'000'000; }
  // CLIENT PAUSE holds `c`'s next command; it is unparked once the pause is over.
  void Park(Connection* c);
  // Closes `c` (also CLIENT KILL, on this thread).
  void Close(Connection* c);

  // BusyTurn (net/reactor_busy.cc): from inside this thread's busy script, one loop turn
  // restricted to what is safe there. Its own thread.
  void ServeWhileBusy() override;

 protected:
  // ---- Engine hooks, all called on the reactor's thread.
  // Starts taking connections from listen_fds_ and node_listen_fd_ if any (once, at the
  // top of Run).
  virtual void StartAccepting() = 0;
  // Handles every event gathered by the last Poll (or already completed, io_uring).
  virtual void HandleEvents() = 0;
  // Whether events are known to be waiting, so the loop must not sleep.
  virtual bool EventsPending() const = 0;
  // Hands queued operations to the kernel now; a no-op where I/O is done directly.
  virtual void Submit() = 0;
  // Submits what is queued and gathers events; waits up to `timeout_ns` for one (0: not
  // at all). A wake-up ends the wait.
  virtual void Poll(int64_t timeout_ns) = 0;
  // Sends c->send_buf() from c->send_offset() on; when all of it is gone calls
  // SendDone(c), on an error SendFailed(c) (now or from a later HandleEvents).
  virtual void Send(Connection* c) = 0;
  // `c` was just marked closing and its socket shut down: stop watching it.
  virtual void Forget(Connection* c) {}

  // ---- Handlers the engines call.
  // A new socket from the main listener or, with `node`, the thread's cluster node
  // listener: the connection, or nullptr when it was refused (maxclients; the socket is
  // then closed).
  Connection* OnAccepted(int fd, bool node = false);
  // Bytes read from c's socket.
  void OnReceived(Connection* c, const char* data, size_t len);
  // c's socket was closed by its peer or failed (a read, a send): it closes.
  void OnSocketGone(Connection* c);
  void CountSent(size_t n) {
    ThreadStats& stats = shard_thread().stats();
    stats.net_output_bytes += n;
    ++stats.writes_processed;
  }
  // c's whole send buffer left: the next output is queued (or QUIT's close happens).
  void SendDone(Connection* c);
  void SendFailed(Connection* c);
  void FreeIfDone(Connection* c) {
    if (c->Freeable()) ScheduleFree(c);
  }
  // Frees every connection (engine destructors call it while their engine still exists).
  void DestroyConnections() { conns_.clear(); }
  // Inside ServeWhileBusy: engines keep the outer turn's events and read buffer apart.
  bool nested() const { return nested_; }

  const uint32_t id_;
  const std::vector<int> listen_fds_;
  int node_listen_fd_ = -1;  // this thread's cluster node port, or -1
  int node_port_ = 0;
  ReactorShared& shared_;
  ShardSet& shards_;

 private:
  void QueueSend(Connection* c);
  // FlushSends' step: sends `c`'s output, or holds it (HoldUntil).
  void FlushOne(Connection* c);
  void FlushSends();
  // Bytes or an end of input, kept for a connection ServeWhileBusy must leave alone
  // (Connection::InUse) until the outer turn (ReplayKept).
  void Keep(Connection* c, std::string_view data, bool gone);
  void ReplayKept();
  // Reads `data` into `c` as just received (counted already).
  void Feed(Connection* c, const char* data, size_t len);
  void FreeClosed();
  void UnparkIfUnpaused();
  void Cron(int64_t now_ns);
  void CloseIdle(int64_t now_ms);
  // Notes the clients' buffer sizes for INFO's client_recent_max_*_buffer: a slice of the
  // connections per cron tick at `hz` ticks a second, so each is seen once a second.
  void TrackBufferPeaks(int64_t now_sec, int64_t hz);
  // Hands this turn's events and posts to other threads, starts sends, frees closed
  // connections.
  void FlushAll();
  // Hands this thread's log records to the journal; under appendfsync always, waits
  // until they are on disk.
  void PublishAof();
  // Nanoseconds until the next key deadline or blocked client timeout, or INT64_MAX.
  int64_t NanosToNextDeadline() const;

  std::vector<Connection*> dirty_;
  std::vector<Connection*> held_;      // scratch of FlushSends
  int64_t hold_until_ns_ = INT64_MAX;  // earliest end of a held connection's hold
  uint64_t durable_waited_ = 0;        // the journal position this thread last waited for
  std::vector<Connection*> parked_;    // held by CLIENT PAUSE; may repeat, never closed
  IdleList idle_;                      // open connections, least recently active first
  std::vector<std::pair<int, Connection*>> to_free_;  // (fd, connection)
  std::vector<Connection*> close_asap_;  // not closed yet, so not freed before we get to them
  struct Kept {
    Connection* c;
    std::string data;
    bool gone = false;  // the peer closed (or the socket failed) after `data`
  };
  std::vector<Kept> kept_;  // input ServeWhileBusy kept for the outer turn, in arrival order
  bool nested_ = false;     // inside ServeWhileBusy
  std::vector<std::unique_ptr<Connection>> conns_;  // index = fd
  size_t peak_cursor_ = 0;                           // TrackBufferPeaks's place in conns_
  size_t live_conns_ = 0;
  int64_t next_cron_ns_ = 0;
  int64_t now_ns_ = 0;  // monotonic time at the start of the current loop turn
  ParserLimits parser_limits_;
};

}  // namespace rc::net
