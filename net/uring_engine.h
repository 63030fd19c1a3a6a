#pragma once
// The io_uring engine: one ring per reactor thread, multishot ACCEPT and RECV (with a ring
// of provided buffers), one SEND per connection with output, and every SQE of a loop turn
// submitted with one io_uring_enter. Wake-ups are IORING_OP_MSG_RING SQEs on the sender's
// ring, riding the same submit.

#include <liburing.h>

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "net/reactor.h"

namespace rc::net {

class UringReactor final : public Reactor {
 public:
  using Reactor::Reactor;
  ~UringReactor() override;

  // Creates the ring (single issuer: on the reactor's own thread) and its buffers.
  bool Init(std::string* error) override;
  int wake_fd() const override { return ring_.ring_fd; }
  void Wake(uint32_t dest) override;
  // user_data of MSG_RING wake-ups.
  static constexpr uint64_t kWakeTag = 3;

 private:
  enum OpKind : uint64_t {
    kAccept = 0,
    kRecv = 1,
    kSend = 2,
    kWake = kWakeTag,
    kIgnore = 4,
    kAcceptNode = 5
  };
  static constexpr uint64_t kKindMask = 7;

  void StartAccepting() override {
    for (size_t i = 0; i < listen_fds_.size(); ++i) ArmAccept(int(i));
    if (node_listen_fd_ >= 0) ArmAccept(kNodeListener);
  }
  void HandleEvents() override;
  bool EventsPending() const override;
  void Submit() override { io_uring_submit(&ring_); }
  void Poll(int64_t timeout_ns) override;
  void Send(Connection* c) override;

  io_uring_sqe* GetSqe();
  // Main listener `listener` (its index in listen_fds_), or the node port's with
  // kNodeListener. The index travels in the completion's data above the kind.
  static constexpr int kNodeListener = -1;
  void ArmAccept(int listener);
  void ArmRecv(Connection* c);
  void HandleCompletion(uint64_t data, int res, uint32_t flags);
  void OnAccept(int res, uint32_t flags, int listener);
  void OnRecv(Connection* c, int res, uint32_t flags);
  void OnSend(Connection* c, int res);
  bool SetupBufferRing(std::string* error);

  io_uring ring_{};
  bool ring_ready_ = false;

  // Provided buffers for multishot receive: the kernel picks one per read, the loop
  // hands it back as soon as the bytes are parsed.
  io_uring_buf_ring* buf_ring_ = nullptr;
  size_t buf_ring_bytes_ = 0;
  char* buffers_ = nullptr;
};

// Whether a kernel `release` (uname -r, "6.1.0-13-amd64") has everything the io_uring
// engine uses: buffer rings and multishot accept (5.19), multishot recv (6.0). A kernel
// with io_uring but without multishot recv would fail every receive, so the server
// checks this before choosing the engine and falls back to epoll.
bool KernelHasUringFeatures(std::string_view release);

// A small ring of the server's own, so threads without a reactor can wake the reactors.
class UringRemoteWaker final : public RemoteWaker {
 public:
  ~UringRemoteWaker() override;
  // Fails when io_uring is unavailable (old kernel, seccomp).
  bool Init(std::string* error);
  void WakeAll(const std::vector<int>& ring_fds) override;

 private:
  std::mutex mu_;
  io_uring ring_{};
  bool ready_ = false;
};

}  // namespace rc::net
