#include "net/epoll_engine.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <ctime>

#include "core/strings.h"

namespace rc::net {

namespace {

constexpr int kMaxEvents = 256;
// One read takes at most this much; a connection with more waiting is read again next
// turn (level-triggered), after the other connections had their turn.
constexpr size_t kReadSize = 64 * 1024;
constexpr int kReadsPerEvent = 4;
constexpr int kAcceptsPerEvent = 64;
// epoll data of the two fds that are not connections (a Connection* is never 0 or 1).
constexpr uint64_t kWakeTag = 1;
constexpr uint64_t kNodeListenerTag = 2;
// Main listener i is tagged kListenerTag + i (bind takes at most 16 addresses); a
// connection by its pointer, which is never that small.
constexpr uint64_t kListenerTag = 16;
constexpr uint64_t kListenerTagEnd = kListenerTag + 16;

bool AddFd(int epoll_fd, int fd, uint32_t events, uint64_t data) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = data;
  return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) == 0;
}

}  // namespace

EpollReactor::~EpollReactor() {
  DestroyConnections();
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (event_fd_ >= 0) ::close(event_fd_);
}

bool EpollReactor::Init(std::string* error) {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) {
    *error = StrCat("epoll_create1: ", ErrnoText(errno));
    return false;
  }
  event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (event_fd_ < 0) {
    *error = StrCat("eventfd: ", ErrnoText(errno));
    return false;
  }
  if (!AddFd(epoll_fd_, event_fd_, EPOLLIN, kWakeTag)) {
    *error = StrCat("epoll_ctl(eventfd): ", ErrnoText(errno));
    return false;
  }
  // accept4 must never block the loop: another thread's listener shares the port, but a
  // connection that is reset before we take it would leave accept waiting.
  std::vector<int> listeners = listen_fds_;
  listeners.push_back(node_listen_fd_);
  for (int fd : listeners) {
    if (fd < 0) continue;
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
      *error = StrCat("fcntl(O_NONBLOCK) on the listener: ", ErrnoText(errno));
      return false;
    }
  }
  for (int i = 0; i < 2; ++i) events_[i].resize(kMaxEvents);
  read_buf_[0] = std::make_unique<char[]>(kReadSize);
  return true;
}

void EpollReactor::StartAccepting() {
  for (size_t i = 0; i < listen_fds_.size(); ++i) {
    AddFd(epoll_fd_, listen_fds_[i], EPOLLIN, kListenerTag + i);
  }
  if (node_listen_fd_ >= 0) AddFd(epoll_fd_, node_listen_fd_, EPOLLIN, kNodeListenerTag);
}

void EpollReactor::Wake(uint32_t dest) {
  if (dest == id_) return;
  eventfd_write(shared_.wake_fds[dest], 1);
}

void EpollReactor::Poll(int64_t timeout_ns) {
  // epoll_pwait2 (Linux 5.11) waits to the nanosecond, as the io_uring engine does:
  // active expiry's sub-millisecond turns depend on it. TSan builds keep epoll_wait,
  // which TSan intercepts (it knows epoll_ctl happens before the wait that reports it).
#if defined(__SANITIZE_THREAD__)
  static std::atomic<bool> has_pwait2{false};
#else
  static std::atomic<bool> has_pwait2{true};
#endif
  std::vector<epoll_event>& events = events_[level()];
  int n = -1;
  if (has_pwait2.load(std::memory_order_relaxed)) {
    timespec ts{time_t(timeout_ns / 1'000'000'000), long(timeout_ns % 1'000'000'000)};
    n = epoll_pwait2(epoll_fd_, events.data(), int(events.size()), &ts, nullptr);
    if (n < 0 && errno == ENOSYS) has_pwait2.store(false, std::memory_order_relaxed);
  }
  if (!has_pwait2.load(std::memory_order_relaxed)) {
    // Round up: waking a little late for a deadline is fine, waking early only costs a
    // turn that finds nothing due and sleeps again.
    int64_t ms = (timeout_ns + 999'999) / 1'000'000;
    n = epoll_wait(epoll_fd_, events.data(), int(events.size()),
                   int(std::min<int64_t>(ms, INT_MAX)));
  }
  ready_[level()] = n > 0 ? n : 0;
}

void EpollReactor::HandleEvents() {
  // Connections are freed only at the end of a turn (FreeClosed), after this batch, so a
  // pointer in a later event of the batch is still valid; a closed one is skipped.
  const int level = this->level();
  for (int i = 0; i < ready_[level]; ++i) {
    const epoll_event& ev = events_[level][size_t(i)];
    if (ev.data.u64 >= kListenerTag && ev.data.u64 < kListenerTagEnd) {
      AcceptReady(listen_fds_[ev.data.u64 - kListenerTag], false);
    } else if (ev.data.u64 == kNodeListenerTag) {
      AcceptReady(node_listen_fd_, true);
    } else if (ev.data.u64 == kWakeTag) {
      eventfd_t ignored;
      eventfd_read(event_fd_, &ignored);
    } else {
      auto* c = static_cast<Connection*>(ev.data.ptr);
      if (!c->closing() && (ev.events & (EPOLLIN | EPOLLHUP | EPOLLERR))) ReadReady(c);
      // A send waiting for room continues; on an error the read above has closed it.
      if (!c->closing() && (ev.events & EPOLLOUT) && c->sending()) Send(c);
    }
  }
  ready_[level] = 0;
}

void EpollReactor::AcceptReady(int listener, bool node) {
  for (int i = 0; i < kAcceptsPerEvent; ++i) {
    int fd = accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // EAGAIN: all taken; EMFILE and the like: try again next turn
    }
    Connection* c = OnAccepted(fd, node);
    if (c != nullptr && !AddFd(epoll_fd_, fd, EPOLLIN, reinterpret_cast<uint64_t>(c))) {
      Close(c);
    }
  }
}

void EpollReactor::ReadReady(Connection* c) {
  std::unique_ptr<char[]>& mine = read_buf_[level()];
  if (mine == nullptr) mine = std::make_unique<char[]>(kReadSize);
  char* buf = mine.get();
  for (int i = 0; i < kReadsPerEvent && !c->closing(); ++i) {
    ssize_t n = ::recv(c->fd(), buf, kReadSize, 0);
    if (n > 0) {
      OnReceived(c, buf, size_t(n));
      if (size_t(n) < kReadSize) return;  // the socket is most likely empty now
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    OnSocketGone(c);  // 0: the peer closed; else a reset or another error
    return;
  }
}

void EpollReactor::Send(Connection* c) {
  const std::string& buf = c->send_buf();
  while (c->send_offset() < buf.size()) {
    size_t off = c->send_offset();
    ssize_t n = ::send(c->fd(), buf.data() + off, buf.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      CountSent(size_t(n));
      c->send_offset() += size_t(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // The socket is full: the rest waits for EPOLLOUT. Newer replies queue in out_.
      WatchWritable(c, true);
      return;
    }
    SendFailed(c);
    return;
  }
  WatchWritable(c, false);
  SendDone(c);
}

void EpollReactor::WatchWritable(Connection* c, bool on) {
  if (c->out_armed == on) return;
  epoll_event ev{};
  ev.events = on ? EPOLLIN | EPOLLOUT : EPOLLIN;
  ev.data.ptr = c;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c->fd(), &ev) == 0) c->out_armed = on;
}

void EpollReactor::Forget(Connection* c) {
  // Its fd stays open until the connection is freed; no event may name it after this.
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c->fd(), nullptr);
}

void EpollRemoteWaker::WakeAll(const std::vector<int>& event_fds) {
  for (int fd : event_fds) {
    if (fd >= 0) eventfd_write(fd, 1);
  }
}

}  // namespace rc::net
