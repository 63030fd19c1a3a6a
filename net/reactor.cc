#include "net/reactor.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/strings.h"
#include "net/admission.h"
#include "shard/auth.h"
#include "timers/clock.h"

namespace rc::net {

namespace {

constexpr unsigned kRingEntries = 4096;
// 128 × 16 KiB: enough for hundreds of busy connections per thread; pages are touched
// only as the kernel fills them. A pipeline larger than one buffer simply arrives in
// several completions.
constexpr unsigned kBufCount = 128;
constexpr size_t kBufSize = 16 * 1024;
constexpr uint16_t kBufGroup = 0;
const char kMaxClientsError[] = "-ERR max number of clients reached\r\n";

uint64_t Tag(void* p, uint64_t kind) { return reinterpret_cast<uint64_t>(p) | kind; }

// "ip:port" of either end of a socket, as CLIENT LIST's addr and laddr.
std::string SocketAddress(int fd, bool peer) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  int rc = peer ? getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len)
                : getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  if (rc != 0) return "?:0";
  char ip[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (ss.ss_family == AF_INET) {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
    port = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
    port = ntohs(a->sin6_port);
  }
  return StrCat(ip, ":", port);
}

}  // namespace

Reactor::Reactor(uint32_t id, int listen_fd, ReactorShared& shared)
    : id_(id), listen_fd_(listen_fd), shared_(shared), shards_(*shared.shards) {
  parser_limits_.max_bulk_len = shared.server->config.proto_max_bulk_len;
}

Reactor::~Reactor() {
  conns_.clear();
  if (ring_ready_) io_uring_queue_exit(&ring_);
  if (buf_ring_ != nullptr) munmap(buf_ring_, buf_ring_bytes_);
  if (buffers_ != nullptr) munmap(buffers_, size_t(kBufCount) * kBufSize);
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

bool Reactor::Init(std::string* error) {
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
    *error = StrCat("io_uring_queue_init: ", std::strerror(-ret));
    return false;
  }
  ring_ready_ = true;
  return SetupBufferRing(error);
}

bool Reactor::SetupBufferRing(std::string* error) {
  buf_ring_bytes_ = kBufCount * sizeof(io_uring_buf);
  void* mem = mmap(nullptr, buf_ring_bytes_, PROT_READ | PROT_WRITE,
                   MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
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
    *error = StrCat("io_uring_register_buf_ring: ", std::strerror(-ret));
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

io_uring_sqe* Reactor::GetSqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  while (sqe == nullptr) {
    // The submission queue is full: hand it to the kernel and take a fresh slot.
    io_uring_submit(&ring_);
    sqe = io_uring_get_sqe(&ring_);
  }
  return sqe;
}

void Reactor::ArmAccept() {
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_multishot_accept(sqe, listen_fd_, nullptr, nullptr, 0);
  io_uring_sqe_set_data64(sqe, kAccept);
}

void Reactor::ArmRecv(Connection* c) {
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_recv_multishot(sqe, c->fd(), nullptr, 0, 0);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = kBufGroup;
  io_uring_sqe_set_data64(sqe, Tag(c, kRecv));
  c->recv_armed = true;
  ++c->pending_ops();
}

void Reactor::Wake(uint32_t dest) {
  if (dest == id_) return;
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_msg_ring(sqe, shared_.ring_fds[dest], 0, kWake, 0);
  sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
  io_uring_sqe_set_data64(sqe, kIgnore);
}

void Reactor::Run() {
  ShardThread& self = shard_thread();
  self.shard().thread_check().Bind();
  ArmAccept();
  now_ns_ = next_cron_ns_ = MonotonicNanos();
  while (!shared_.server->shutdown_requested.load(std::memory_order_relaxed)) {
    // One clock read per turn: idle bookkeeping and the cron only need milliseconds.
    now_ns_ = MonotonicNanos();
    self.RunInbox();

    unsigned head, seen = 0;
    io_uring_cqe* cqe;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      HandleCompletion(cqe);
      ++seen;
    }
    io_uring_cq_advance(&ring_, seen);

    if (now_ns_ >= next_cron_ns_) Cron(now_ns_);
    if (!parked_.empty()) UnparkIfUnpaused();
    bool more_housekeeping = self.shard().Housekeep();
    if (ExpiryDue()) {
      // Replies of this turn leave before the expiry work, so a mass expiry delays no
      // request by more than one expiry budget.
      FlushAll();
      io_uring_submit(&ring_);
      more_housekeeping |= ExpireStep();
    }
    FlushAll();

    if (more_housekeeping || self.inbox().HasWork() || io_uring_cq_ready(&ring_) > 0 ||
        !self.inbox().PrepareToSleep()) {
      // Not sleeping, but completions must still come in: with DEFER_TASKRUN the kernel
      // only runs a ring's pending work (finished receives, accepts) when asked to
      // get events, so a plain submit would starve the network while we are busy.
      io_uring_submit_and_get_events(&ring_);
      continue;
    }
    // Sleep until the cron tick or the next key's deadline, whichever is first.
    int64_t wait_ns = std::max<int64_t>(std::min(next_cron_ns_ - now_ns_, NanosToNextDeadline()), 0);
    __kernel_timespec ts{wait_ns / 1'000'000'000, wait_ns % 1'000'000'000};
    io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &ts, nullptr);
    self.inbox().Awake();
  }
  for (auto& c : conns_) {
    if (c) ::shutdown(c->fd(), SHUT_RDWR);
  }
}

void Reactor::Cron(int64_t now_ns) {
  int64_t hz = shared_.server->config.hz;
  next_cron_ns_ = now_ns + 1'000'000'000 / (hz > 0 ? hz : 10);
  shard_thread().stats().SampleOps(now_ns);
  CloseIdle(now_ns / 1'000'000);
}

void Reactor::UnparkIfUnpaused() {
  // CLIENT UNPAUSE wakes every reactor; a pause that times out is noticed within a cron
  // tick at worst (the sleep is bounded by it).
  if (shared_.server->introspect.pause.Active(shared_.server->clock->NowUnixMillis())) return;
  std::vector<Connection*> parked;
  parked.swap(parked_);
  // Unpark runs the held commands, which may park again (a new pause) or close.
  for (Connection* c : parked) {
    if (!c->closing()) c->Unpark();
  }
}

void Reactor::FlushAll() {
  ShardThread& self = shard_thread();
  self.events().Flush(self, shards_);
  shards_.FlushOutbox(id_, *this);
  for (Connection* c : close_asap_) Close(c);
  close_asap_.clear();
  FlushSends();
  FreeClosed();
}

bool Reactor::ExpiryDue() const {
  Shard& shard = shards_.thread(id_).shard();
  return shard.keys_with_ttl() > 0 && shard.NextDeadline() <= shard.NowMs();
}

bool Reactor::ExpireStep() {
  Shard& shard = shard_thread().shard();
  int64_t now_ms = shard.NowMs();
  const Config& config = shared_.server->config;
  const int64_t max_keys = config.active_expire_keys_per_turn;
  const int64_t budget_ns = config.active_expire_us_per_turn * 1000;
  const int64_t start = MonotonicNanos();
  // Small batches, so the time budget is checked often without reading the clock per key.
  constexpr int64_t kBatch = 64;
  for (int64_t done = 0; done < max_keys;) {
    size_t n = shard.ExpireDue(now_ms, size_t(std::min(kBatch, max_keys - done)));
    done += int64_t(n);
    if (n < size_t(kBatch) || MonotonicNanos() - start >= budget_ns) break;
  }
  return shard.NextDeadline() <= now_ms;
}

int64_t Reactor::NanosToNextDeadline() const {
  Shard& shard = shards_.thread(id_).shard();
  int64_t next = shard.NextDeadline();
  if (next == INT64_MAX) return INT64_MAX;
  // Deadlines are wall-clock milliseconds; wake at the start of the due millisecond.
  // Deadlines centuries away (EXPIREAT 9223372036854775) would overflow nanoseconds.
  constexpr int64_t kMaxMs = INT64_MAX / 1'000'000;
  return std::clamp<int64_t>(next - shard.NowMs(), 0, kMaxMs) * 1'000'000;
}

void Reactor::CloseIdle(int64_t now_ms) {
  int64_t timeout_ms = shared_.server->config.timeout * 1000;
  if (timeout_ms <= 0) return;
  // Oldest first: stop at the first connection that is still within its time.
  while (IdleHook* h = idle_.Oldest()) {
    if (now_ms - h->last_active_ms <= timeout_ms) break;
    Close(static_cast<Connection*>(h->owner));
  }
}

void Reactor::HandleCompletion(io_uring_cqe* cqe) {
  uint64_t data = io_uring_cqe_get_data64(cqe);
  uint64_t kind = data & kKindMask;
  auto* conn = reinterpret_cast<Connection*>(data & ~kKindMask);
  switch (kind) {
    case kAccept:
      OnAccept(cqe->res, cqe->flags);
      break;
    case kRecv:
      OnRecv(conn, cqe->res, cqe->flags);
      break;
    case kSend:
      OnSend(conn, cqe->res);
      break;
    default:
      break;  // wake-ups and ignored results
  }
}

void Reactor::OnAccept(int res, uint32_t flags) {
  if (!(flags & IORING_CQE_F_MORE)) ArmAccept();
  if (res < 0) return;
  int fd = res;
  ThreadStats& stats = shard_thread().stats();
  if (shared_.connected_clients.fetch_add(1) >= shared_.server->config.maxclients) {
    shared_.connected_clients.fetch_sub(1);
    ++stats.rejected_connections;
    // A fresh socket's send buffer is empty: this short write cannot block.
    [[maybe_unused]] ssize_t n = ::send(fd, kMaxClientsError, sizeof(kMaxClientsError) - 1,
                                        MSG_NOSIGNAL | MSG_DONTWAIT);
    ::close(fd);
    return;
  }
  if (std::string_view denied = ProtectedModeRefusal(*shared_.server, fd); !denied.empty()) {
    shared_.connected_clients.fetch_sub(1);
    ++stats.rejected_connections;
    [[maybe_unused]] ssize_t n =
        ::send(fd, denied.data(), denied.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    ::close(fd);
    return;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  ++stats.connections_received;
  ++stats.connected_clients;
  ++live_conns_;
  if (size_t(fd) >= conns_.size()) conns_.resize(size_t(fd) * 2 + 1);
  uint64_t id = shared_.server->next_client_id.fetch_add(1);
  conns_[fd] = std::make_unique<Connection>(*this, fd, id, parser_limits_);
  Connection* conn = conns_[fd].get();
  conn->client().created_ms = shared_.server->clock->NowUnixMillis();
  // Connected while no password is set: authenticated for good (as Redis's default user).
  conn->client().authenticated = !AuthEnabled(*shared_.server);
  conn->client().addr = SocketAddress(fd, /*peer=*/true);
  conn->client().laddr = SocketAddress(fd, /*peer=*/false);
  shard_thread().clients().Add(conn);
  conns_[fd]->idle.owner = conns_[fd].get();
  idle_.Touch(&conns_[fd]->idle, now_ns_ / 1'000'000);
  ArmRecv(conns_[fd].get());
}

void Reactor::OnRecv(Connection* c, int res, uint32_t flags) {
  bool more = flags & IORING_CQE_F_MORE;
  if (!more) {
    --c->pending_ops();
    c->recv_armed = false;
  }
  if (res > 0) {
    unsigned bid = flags >> IORING_CQE_BUFFER_SHIFT;
    char* buf = buffers_ + size_t(bid) * kBufSize;
    shard_thread().stats().net_input_bytes += uint64_t(res);
    idle_.Touch(&c->idle, now_ns_ / 1'000'000);
    c->OnData(buf, size_t(res));
    // QUIT or SHUTDOWN with nothing left to send closes right away.
    if (c->close_after_flush() && c->Drained()) Close(c);
    io_uring_buf_ring_add(buf_ring_, buf, kBufSize, bid, io_uring_buf_ring_mask(kBufCount), 0);
    io_uring_buf_ring_advance(buf_ring_, 1);
    if (!more && !c->closing()) ArmRecv(c);
  } else if (res == -ENOBUFS && !c->closing()) {
    // Every buffer was in use; they have been handed back by now.
    if (!more) ArmRecv(c);
  } else {
    Close(c);
  }
  if (c->Freeable()) ScheduleFree(c);
}

void Reactor::QueueSend(Connection* c) {
  if (!c->dirty) {
    c->dirty = true;
    dirty_.push_back(c);
  }
}

void Reactor::FlushSends() {
  for (Connection* c : dirty_) {
    c->dirty = false;
    if (c->closing() || c->sending() || !c->HasOutput()) continue;
    std::string& buf = c->StartSend();
    io_uring_sqe* sqe = GetSqe();
    io_uring_prep_send(sqe, c->fd(), buf.data(), buf.size(), MSG_NOSIGNAL);
    io_uring_sqe_set_data64(sqe, Tag(c, kSend));
    ++c->pending_ops();
  }
  dirty_.clear();
}

void Reactor::OnSend(Connection* c, int res) {
  --c->pending_ops();
  if (res <= 0 || c->closing()) {
    c->FinishSend();
    Close(c);
  } else {
    shard_thread().stats().net_output_bytes += uint64_t(res);
    size_t& off = c->send_offset();
    off += size_t(res);
    const std::string& buf = c->send_buf();
    if (off < buf.size()) {
      // The socket took part of it: send the rest before anything newer.
      io_uring_sqe* sqe = GetSqe();
      io_uring_prep_send(sqe, c->fd(), buf.data() + off, buf.size() - off, MSG_NOSIGNAL);
      io_uring_sqe_set_data64(sqe, Tag(c, kSend));
      ++c->pending_ops();
    } else {
      c->FinishSend();
      if (c->HasOutput()) {
        QueueSend(c);
      } else if (c->close_after_flush() && c->Drained()) {
        Close(c);
      }
    }
  }
  if (c->Freeable()) ScheduleFree(c);
}

void Reactor::Close(Connection* c) {
  if (c->closing()) return;
  c->set_closing();
  idle_.Remove(&c->idle);
  if (shard_thread().clients().Remove(c->client().id)) {
    shared_.server->introspect.monitors.fetch_sub(1, std::memory_order_relaxed);
  }
  std::erase(parked_, c);
  DropSubscriptions(shard_thread().shard().pubsub(), c->client(), c, *shared_.server);
  ReleaseWatches(shard_thread(), shards_, std::move(c->client().watching));
  // Ends the armed receive (it completes with 0) and any send in flight; the fd itself
  // stays open until the connection is freed, so its number cannot be reused under us.
  ::shutdown(c->fd(), SHUT_RDWR);
  shared_.connected_clients.fetch_sub(1);
  --shard_thread().stats().connected_clients;
  --live_conns_;
  if (c->Freeable()) ScheduleFree(c);
}

void Reactor::ScheduleFree(Connection* c) { to_free_.push_back({c->fd(), c}); }

void Reactor::FreeClosed() {
  // A connection may be listed twice: look it up by fd before touching it.
  for (auto [fd, c] : to_free_) {
    if (conns_[fd].get() == c && c->Freeable()) conns_[fd].reset();
  }
  to_free_.clear();
}

}  // namespace rc::net
