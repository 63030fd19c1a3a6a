#pragma once
// One client connection. It lives on one reactor thread for its whole life and is
// touched by no other thread: replies computed elsewhere come back as tasks that run here.
//
//   bytes ─▶ OnData ─▶ parser ─▶ Dispatcher ─┬▶ reply written inline to out_
//                                            └▶ Defer(): slot, filled later by Fulfill()
//   FlushSends (end of loop turn) ─▶ one send per connection with output (whichever
//   engine runs the reactor)
//
// Pipelined replies leave in request order: once any reply is pending, later inline
// replies queue behind it in slots_ until the slots ahead of them are filled.

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "net/reply_buffer_model.h"
#include "net/resp_parser.h"
#include "shard/command/dispatcher.h"
#include "shard/state/client_registry.h"
#include "shard/wire/client_state.h"
#include "shard/wire/reply_sink.h"
#include "timers/idle_list.h"

namespace rc::net {

class Reactor;

class Connection final : public ReplySink, public ClientHandle {
 public:
  Connection(Reactor& reactor, int fd, uint64_t id, ParserLimits limits);
  ~Connection() override;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Reactor thread: bytes read from the socket.
  void OnData(const char* data, size_t len);

  // ReplySink, reactor thread. Resume does nothing while a blocking command waits.
  uint64_t Defer() override;
  void Fulfill(uint64_t slot, std::string resp) override;
  void FulfillFrom(uint64_t slot, std::string_view resp) override;
  void Resume() override;
  void Push(std::string resp) override;

  int fd() const { return fd_; }
  ClientState& client() override { return client_; }
  // ClientHandle (CLIENT LIST / KILL), reactor thread.
  ClientBuffers Buffers() const override;
  void Kill(bool after_reply) override;
  void PushMonitorLine(std::string line) override;
  // CLIENT PAUSE ended: run the command it held back (reactor thread).
  void Unpark();

  // Output, for the reactor. The bytes being sent stay untouched until the send completes;
  // new replies go to out_ meanwhile.
  bool HasOutput() const { return !out_.empty(); }
  // Reactor, before a send: keep this turn's output back while replies from other shards
  // are still owed after it, so the whole pipeline leaves in one send (and one segment to
  // the client) instead of several. The hold ends when they arrive (their task wakes the
  // thread) or after kHoldNs, so a slow reply (a busy peer, a blocked command) delays the
  // ones ready before it by no more than that. Returns when the hold ends; 0: send now.
  int64_t HoldUntil(int64_t now_ns) {
    if (outstanding_ == 0 || out_.size() >= kHoldBytes) {
      held_since_ns_ = 0;
      return 0;
    }
    if (held_since_ns_ == 0) held_since_ns_ = now_ns;
    const int64_t until = held_since_ns_ + kHoldNs;
    if (now_ns >= until) {
      held_since_ns_ = 0;
      return 0;
    }
    return until;
  }
  bool sending() const { return sending_; }
  std::string& StartSend();
  const std::string& send_buf() const { return send_buf_; }
  size_t& send_offset() { return send_offset_; }
  void FinishSend();

  // Lifecycle. A connection may be asked to close while replies from other threads are
  // still on their way and while I/O operations (io_uring) still reference it; it is
  // freed only once both are done.
  bool closing() const { return closing_; }
  void set_closing() { closing_ = true; }
  bool close_after_flush() const { return close_after_flush_; }
  bool Drained() const { return !sending_ && out_.empty() && slots_.empty(); }
  // Its parse loop is on the stack (it may be the caller of the script that is running),
  // or a script of its own runs over several shards: a busy script's turn
  // (Reactor::ServeWhileBusy) must leave its input and output alone.
  bool InUse() const { return in_parse_ || client_.scripts_running > 0; }
  // Set once a limit was crossed: the reactor closes the connection at the end of the turn
  // and nothing more is read or answered meanwhile (Redis's freeClientAsync).
  bool doomed() const { return doomed_; }

  // Reply bytes owed to the client and not yet taken by the kernel: out_, the unsent part
  // of the send in flight, and the bytes of filled slots waiting behind a pending reply.
  size_t PendingOutput() const {
    return out_.size() + (sending_ ? send_buf_.size() - send_offset_ : 0) + slot_bytes_;
  }
  bool Freeable() const { return closing_ && pending_ops_ == 0 && outstanding_ == 0; }
  int& pending_ops() { return pending_ops_; }
  // Engine bookkeeping: io_uring's multishot receive is armed; epoll watches EPOLLOUT.
  bool recv_armed = false;
  bool out_armed = false;
  IdleHook idle;       // position in the reactor's idle list
  bool dirty = false;  // queued in the reactor's list of connections with output

 private:
  // A reply position behind one still owed. Its bytes, once known, wait in held_bytes_,
  // one buffer for all of them, so a pipelined reply costs no allocation of its own.
  struct Slot {
    size_t offset = 0;  // in held_bytes_
    size_t len = 0;
    bool ready = false;
    bool discard = false;  // its command ran under CLIENT REPLY OFF/SKIP
    bool push = false;     // a push (pub/sub, MONITOR), which CLIENT REPLY never drops
  };

  // Parses and runs requests from buf; returns the bytes consumed.
  size_t ParseAndRun(const char* buf, size_t len);
  // Hints the shard about the keys of the next requests in `buf` (Dispatcher::Prefetch);
  // returns the bytes looked at (all of `buf` when no request there is complete).
  size_t PrefetchAhead(std::string_view buf);
  void RunCommand(const Dispatcher::Resolved& command);
  void ProcessBuffered();
  void MarkDirty();
  // Limits (docs/RELIABILITY.md). Each is a compare or two on the append path.
  void RefreshParserLimits();
  void CheckQueryLimit();
  void CheckOutputLimit();
  void Doom(std::string_view why);
  // An answer that is ready but must wait behind a pending one.
  void PushSlot(std::string_view data, bool push = false);
  // Fills `slot` (a sequence number); the head slot, outside Dispatch, takes `resp` straight
  // to out_ (`owned`: by swapping when out_ is empty).
  void FillSlot(uint64_t slot, std::string_view resp, std::string* owned);
  // Moves the ready slots at the front to out_, in order.
  void DrainReadySlots();
  // After a command under CLIENT REPLY OFF/SKIP: whether its reply is dropped; advances
  // the SKIP state.
  bool Silenced();

  Reactor& reactor_;
  int fd_;
  ClientState client_;
  RespParser parser_;
  std::vector<std::string_view> args_;
  std::string in_;  // unparsed input carried to the next read
  std::string out_;
  std::string send_buf_;
  size_t send_offset_ = 0;
  bool sending_ = false;
  std::string scratch_;
  std::deque<Slot> slots_;
  std::string held_bytes_;    // the bytes of ready slots, appended as they come
  uint64_t first_slot_ = 0;   // sequence number of slots_.front()
  uint64_t outstanding_ = 0;  // deferred replies not yet fulfilled
  size_t slot_bytes_ = 0;     // bytes of the ready slots still in held_bytes_
  static constexpr size_t kHoldBytes = 64 << 10;
  static constexpr int64_t kHoldNs = 500'000;
  int64_t held_since_ns_ = 0;         // monotonic; 0: output not held
  int64_t soft_limit_since_ms_ = -1;  // when output went over the soft limit; -1: it is not
  bool doomed_ = false;
  bool held_ = false;
  // Held for the replies of earlier commands (Dispatcher::Hold::kForEarlier).
  bool awaiting_earlier_ = false;
  bool parked_ = false;  // held_ by CLIENT PAUSE rather than by a multi-shard command
  bool in_parse_ = false;
  bool dispatching_ = false;         // inside RunCommand's Dispatch
  std::string monitor_after_reply_;  // this connection's own command's MONITOR line
  // CLIENT LIST's qbuf, qbuf-free, rbs and rbp as Redis computes them.
  size_t parsing_ = 0;     // bytes of the buffer being parsed (Redis's querybuf)
  bool has_read_ = false;  // Redis allocates the query buffer at the first read
  mutable ReplyBufferModel reply_buffer_;
  bool closing_ = false;
  bool close_after_flush_ = false;
  int pending_ops_ = 0;
};

}  // namespace rc::net
