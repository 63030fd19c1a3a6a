#include "net/uring_engine.h"

#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cerrno>

#include "core/strings.h"

namespace rc::net {

namespace {

constexpr unsigned kRingEntries = 4096;
// 128 × 16 KiB: enough for hundreds of busy connections per thread; pages are touched
// only as the kernel fills them. A pipeline larger than one buffer simply arrives in
// several completions.
constexpr unsigned kBufCount = 128;
constexpr size_t kBufSize = 16 * 1024;
constexpr uint16_t kBufGroup = 0;

uint64_t Tag(void* p, uint64_t kind) { return reinterpret_cast<uint64_t>(p) | kind; }

}  // namespace

UringReactor::~UringReactor() {
  DestroyConnections();
  if (ring_ready_) io_uring_queue_exit(&ring_);
  if (buf_ring_ != nullptr) munmap(buf_ring_, buf_ring_bytes_);
  if (buffers_ != nullptr) munmap(buffers_, size_t(kBufCount) * kBufSize);
}

bool UringReactor::Init(std::string* error) {
  // Preferred: one thread submits to this ring and completions run only when it enters
  // the kernel, in a batch (6.1+). Older kernels get the closest setup they accept.
  const unsigned kFlagSets[] = {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
                                IORING_SETUP_COOP_TASKRUN, 0};
  int ret = -EINVAL;
  for (unsigned flags : kFlagSets) {
    io_uring_params params{};
    params.flags = flags;
    ret = io_uring_queue_init_params(kRingEntries, &ring_, &params);
    if (ret != -EINVAL) break;
  }
  if (ret < 0) {
    *error = StrCat("io_uring_queue_init: ", ErrnoText(-ret));
    return false;
  }
  ring_ready_ = true;
  return SetupBufferRing(error);
}

bool UringReactor::SetupBufferRing(std::string* error) {
  buf_ring_bytes_ = kBufCount * sizeof(io_uring_buf);
  void* mem =
      mmap(nullptr, buf_ring_bytes_, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  if (mem == MAP_FAILED) {
    *error = "mmap of the buffer ring failed";
    return false;
  }
  buf_ring_ = static_cast<io_uring_buf_ring*>(mem);
  io_uring_buf_ring_init(buf_ring_);
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<uint64_t>(mem);
  reg.ring_entries = kBufCount;
  reg.bgid = kBufGroup;
  int ret = io_uring_register_buf_ring(&ring_, &reg, 0);
  if (ret < 0) {
    *error = StrCat("io_uring_register_buf_ring: ", ErrnoText(-ret));
    return false;
  }
  void* bufs = mmap(nullptr, size_t(kBufCount) * kBufSize, PROT_READ | PROT_WRITE,
                    MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  if (bufs == MAP_FAILED) {
    *error = "mmap of receive buffers failed";
    return false;
  }
  buffers_ = static_cast<char*>(bufs);
  int mask = io_uring_buf_ring_mask(kBufCount);
  for (unsigned i = 0; i < kBufCount; ++i) {
    io_uring_buf_ring_add(buf_ring_, buffers_ + size_t(i) * kBufSize, kBufSize, i, mask, i);
  }
  io_uring_buf_ring_advance(buf_ring_, kBufCount);
  return true;
}

io_uring_sqe* UringReactor::GetSqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  while (sqe == nullptr) {
    // The submission queue is full: hand it to the kernel and take a fresh slot.
    io_uring_submit(&ring_);
    sqe = io_uring_get_sqe(&ring_);
  }
  return sqe;
}

void UringReactor::ArmAccept(int listener) {
  io_uring_sqe* sqe = GetSqe();
  const bool node = listener == kNodeListener;
  io_uring_prep_multishot_accept(sqe, node ? node_listen_fd_ : listen_fds_[size_t(listener)],
                                 nullptr, nullptr, 0);
  io_uring_sqe_set_data64(sqe, node ? kAcceptNode : kAccept | (uint64_t(listener) << 3));
}

void UringReactor::ArmRecv(Connection* c) {
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_recv_multishot(sqe, c->fd(), nullptr, 0, 0);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = kBufGroup;
  io_uring_sqe_set_data64(sqe, Tag(c, kRecv));
  c->recv_armed = true;
  ++c->pending_ops();
}

void UringReactor::Wake(uint32_t dest) {
  if (dest == id_) return;
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_msg_ring(sqe, shared_.wake_fds[dest], 0, kWakeTag, 0);
  sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
  io_uring_sqe_set_data64(sqe, kIgnore);
}

void UringReactor::HandleEvents() {
  // Each completion leaves the ring before it is handled: a busy script's turn
  // (ServeWhileBusy) reaps the ring again from inside one of them, and must find exactly
  // the ones nobody has taken (it may accept the client that sends SCRIPT KILL).
  for (unsigned ready = io_uring_cq_ready(&ring_); ready > 0; --ready) {
    io_uring_cqe* cqe = nullptr;
    unsigned head;
    io_uring_for_each_cqe(&ring_, head, cqe) break;  // the oldest, if a turn left one
    if (cqe == nullptr) break;
    const uint64_t data = io_uring_cqe_get_data64(cqe);
    const int res = cqe->res;
    const uint32_t flags = cqe->flags;
    io_uring_cqe_seen(&ring_, cqe);
    HandleCompletion(data, res, flags);
  }
}

bool UringReactor::EventsPending() const {
  return io_uring_cq_ready(const_cast<io_uring*>(&ring_)) > 0;
}

void UringReactor::Poll(int64_t timeout_ns) {
  if (timeout_ns <= 0) {
    // With DEFER_TASKRUN the kernel only runs a ring's pending work (finished receives,
    // accepts) when asked to get events, so a plain submit would starve the network
    // while the loop is busy.
    io_uring_submit_and_get_events(&ring_);
    return;
  }
  __kernel_timespec ts{timeout_ns / 1'000'000'000, timeout_ns % 1'000'000'000};
  io_uring_cqe* cqe;
  io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &ts, nullptr);
}

void UringReactor::HandleCompletion(uint64_t data, int res, uint32_t flags) {
  uint64_t kind = data & kKindMask;
  auto* conn = reinterpret_cast<Connection*>(data & ~kKindMask);
  switch (kind) {
    case kAccept:
    case kAcceptNode:
      OnAccept(res, flags, kind == kAcceptNode ? kNodeListener : int(data >> 3));
      break;
    case kRecv:
      OnRecv(conn, res, flags);
      break;
    case kSend:
      OnSend(conn, res);
      break;
    default:
      break;  // wake-ups and ignored results
  }
}

void UringReactor::OnAccept(int res, uint32_t flags, int listener) {
  if (!(flags & IORING_CQE_F_MORE)) ArmAccept(listener);
  if (res < 0) return;
  if (Connection* c = OnAccepted(res, listener == kNodeListener)) ArmRecv(c);
}

void UringReactor::OnRecv(Connection* c, int res, uint32_t flags) {
  bool more = flags & IORING_CQE_F_MORE;
  if (!more) {
    --c->pending_ops();
    c->recv_armed = false;
  }
  if (res > 0) {
    unsigned bid = flags >> IORING_CQE_BUFFER_SHIFT;
    char* buf = buffers_ + size_t(bid) * kBufSize;
    OnReceived(c, buf, size_t(res));
    io_uring_buf_ring_add(buf_ring_, buf, kBufSize, bid, io_uring_buf_ring_mask(kBufCount), 0);
    io_uring_buf_ring_advance(buf_ring_, 1);
    if (!more && !c->closing()) ArmRecv(c);
  } else if (res == -ENOBUFS && !c->closing()) {
    // Every buffer was in use; they have been handed back by now.
    if (!more) ArmRecv(c);
  } else {
    OnSocketGone(c);
  }
  FreeIfDone(c);
}

void UringReactor::Send(Connection* c) {
  const std::string& buf = c->send_buf();
  size_t off = c->send_offset();
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_send(sqe, c->fd(), buf.data() + off, buf.size() - off, MSG_NOSIGNAL);
  io_uring_sqe_set_data64(sqe, Tag(c, kSend));
  ++c->pending_ops();
}

void UringReactor::OnSend(Connection* c, int res) {
  --c->pending_ops();
  if (res <= 0 || c->closing()) {
    SendFailed(c);
  } else {
    CountSent(size_t(res));
    c->send_offset() += size_t(res);
    if (c->send_offset() < c->send_buf().size()) {
      // The socket took part of it: send the rest before anything newer.
      Send(c);
    } else {
      SendDone(c);
    }
  }
  FreeIfDone(c);
}

UringRemoteWaker::~UringRemoteWaker() {
  if (ready_) io_uring_queue_exit(&ring_);
}

bool KernelHasUringFeatures(std::string_view release) {
  // 6.0 is the first release with all of it, so the major number decides.
  int major = 0;
  size_t i = 0;
  while (i < release.size() && i < 6 && release[i] >= '0' && release[i] <= '9') {
    major = major * 10 + (release[i++] - '0');
  }
  // Unparseable: ring setup itself decides.
  if (i == 0 || i >= release.size() || release[i] != '.') return true;
  return major >= 6;
}

bool UringRemoteWaker::Init(std::string* error) {
  utsname uts{};
  if (uname(&uts) == 0 && !KernelHasUringFeatures(uts.release)) {
    *error = StrCat("kernel ", uts.release, " lacks multishot recv (needs 6.0)");
    return false;
  }
  if (int ret = io_uring_queue_init(8, &ring_, 0); ret < 0) {
    *error = StrCat("io_uring_queue_init: ", ErrnoText(-ret));
    return false;
  }
  ready_ = true;
  return true;
}

void UringRemoteWaker::WakeAll(const std::vector<int>& ring_fds) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!ready_) return;
  for (int fd : ring_fds) {
    if (fd < 0) continue;
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) {
      io_uring_submit(&ring_);
      sqe = io_uring_get_sqe(&ring_);
    }
    // Tagged as a wake-up, so the reactor ignores it (0 would read as an accept of fd 0).
    io_uring_prep_msg_ring(sqe, fd, 0, UringReactor::kWakeTag, 0);
  }
  io_uring_submit(&ring_);
  // Reap our own completions so the small ring never fills.
  io_uring_cqe* cqe;
  while (io_uring_peek_cqe(&ring_, &cqe) == 0) io_uring_cqe_seen(&ring_, cqe);
}

}  // namespace rc::net
