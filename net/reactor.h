#pragma once
// One worker thread's event loop: an io_uring that accepts, receives and sends for the
// connections of this thread, runs the tasks other threads post to it, and owns shard i.
//
// A loop turn:
//   run posted tasks ─▶ handle completions (accepts, reads → commands, sends)
//   ─▶ housekeeping ─▶ hand posts to other threads (+ MSG_RING wake-ups)
//   ─▶ queue one SEND per connection with output ─▶ one io_uring_enter for all of it,
//      blocking only when there is nothing left to do (bounded by the cron tick).

#include <liburing.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/connection.h"
#include "net/resp_parser.h"
#include "shard/dispatcher.h"
#include "shard/mailbox.h"
#include "shard/server_state.h"
#include "shard/shard_set.h"
#include "timers/idle_list.h"

namespace rc::net {

// What every reactor shares. Immutable once the threads run.
struct ReactorShared {
  ShardSet* shards = nullptr;
  const Dispatcher* dispatcher = nullptr;
  ServerState* server = nullptr;
  // Ring fds of every reactor, for MSG_RING wake-ups; filled before any loop runs.
  std::vector<int> ring_fds;
  std::atomic<int> connected_clients{0};
};

class Reactor final : public Waker {
 public:
  Reactor(uint32_t id, int listen_fd, ReactorShared& shared);
  ~Reactor() override;

  // On the reactor's own thread, before Run(): creates the ring (single issuer).
  bool Init(std::string* error);
  int ring_fd() const { return ring_.ring_fd; }
  // Runs until shutdown is requested, then closes every connection.
  void Run();

  // Waker: called on this thread, makes reactor `dest` leave its wait.
  void Wake(uint32_t dest) override;

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
  void Park(Connection* c) { parked_.push_back(c); }
  // Closes `c` (also CLIENT KILL, on this thread).
  void Close(Connection* c);

  enum OpKind : uint64_t { kAccept = 0, kRecv = 1, kSend = 2, kWake = 3, kIgnore = 4 };

 private:
  static constexpr uint64_t kKindMask = 7;

  io_uring_sqe* GetSqe();
  void ArmAccept();
  void ArmRecv(Connection* c);
  void HandleCompletion(io_uring_cqe* cqe);
  void OnAccept(int res, uint32_t flags);
  void OnRecv(Connection* c, int res, uint32_t flags);
  void OnSend(Connection* c, int res);
  void QueueSend(Connection* c);
  void FlushSends();
  void FreeClosed();
  void UnparkIfUnpaused();
  void Cron(int64_t now_ns);
  void CloseIdle(int64_t now_ms);
  // Whether some key's deadline has passed.
  bool ExpiryDue() const;
  // Expires due keys within this turn's budget; true when more are already due.
  bool ExpireStep();
  // Hands this turn's events and posts to other threads, queues sends, frees closed
  // connections.
  void FlushAll();
  // Nanoseconds until the shard's next deadline, or INT64_MAX.
  int64_t NanosToNextDeadline() const;
  bool SetupBufferRing(std::string* error);

  uint32_t id_;
  int listen_fd_;
  ReactorShared& shared_;
  ShardSet& shards_;
  io_uring ring_{};
  bool ring_ready_ = false;

  // Provided buffers for multishot receive: the kernel picks one per read, the loop
  // hands it back as soon as the bytes are parsed.
  io_uring_buf_ring* buf_ring_ = nullptr;
  size_t buf_ring_bytes_ = 0;
  char* buffers_ = nullptr;

  std::vector<Connection*> dirty_;
  std::vector<Connection*> parked_;  // held by CLIENT PAUSE; may repeat, never closed
  IdleList idle_;  // open connections, least recently active first
  std::vector<std::pair<int, Connection*>> to_free_;  // (fd, connection)
  std::vector<Connection*> close_asap_;  // not closed yet, so not freed before we get to them
  std::vector<std::unique_ptr<Connection>> conns_;  // index = fd
  size_t live_conns_ = 0;
  int64_t next_cron_ns_ = 0;
  int64_t now_ns_ = 0;  // monotonic time at the start of the current loop turn
  ParserLimits parser_limits_;
};

}  // namespace rc::net
