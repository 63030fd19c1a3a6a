#pragma once
// The epoll engine, for kernels or sandboxes (seccomp) without io_uring: one epoll
// instance per reactor thread, level-triggered, non-blocking sockets.
//
//   Poll ─▶ epoll_wait (0 when busy, else until the cron tick / next deadline / wake-up)
//   HandleEvents: listener readable ─▶ accept4 until EAGAIN (bounded)
//                 connection readable ─▶ recv into one per-thread buffer ─▶ OnReceived
//                 connection writable ─▶ send the rest of the send buffer
//                 eventfd readable ─▶ drain it (a wake-up)
//   Send: send() right away; on EAGAIN keep the rest (send_offset) and watch EPOLLOUT
//         until it is gone, so replies leave in order exactly as with io_uring.
// Wake-ups: each reactor has an eventfd in its epoll set; Wake(dest) writes to dest's.

#include <sys/epoll.h>

#include <memory>
#include <string>
#include <vector>

#include "net/reactor.h"

namespace rc::net {

class EpollReactor final : public Reactor {
 public:
  using Reactor::Reactor;
  ~EpollReactor() override;

  // Creates the epoll instance and the wake-up eventfd, makes the listener non-blocking.
  bool Init(std::string* error) override;
  int wake_fd() const override { return event_fd_; }
  void Wake(uint32_t dest) override;

 private:
  void StartAccepting() override;
  void HandleEvents() override;
  bool EventsPending() const override { return ready_[0] > 0; }
  void Submit() override {}
  void Poll(int64_t timeout_ns) override;
  void Send(Connection* c) override;
  void Forget(Connection* c) override;

  void AcceptReady(int listener, bool node);
  void ReadReady(Connection* c);
  // Watches EPOLLOUT on c (waiting for the socket to take more) or stops.
  void WatchWritable(Connection* c, bool on);

  int epoll_fd_ = -1;
  int event_fd_ = -1;
  // [1]: a busy script's turn's own (ServeWhileBusy), which polls and reads from inside
  // an event of [0] while [0]'s are being handled and its buffer's bytes parsed.
  std::vector<epoll_event> events_[2];
  int ready_[2] = {0, 0};  // events_[i][0, ready_[i]) gathered by the last Poll, not handled
  std::unique_ptr<char[]> read_buf_[2];
  int level() const { return nested() ? 1 : 0; }
};

// Writes every reactor's eventfd. Any thread; needs no state of its own.
class EpollRemoteWaker final : public RemoteWaker {
 public:
  void WakeAll(const std::vector<int>& event_fds) override;
};

}  // namespace rc::net
