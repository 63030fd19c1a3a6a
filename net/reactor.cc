#include "net/reactor.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "core/strings.h"
#include "net/admission.h"
#include "shard/command/blocking_call.h"
#include "shard/persist/aof.h"
#include "shard/persist/save.h"
#include "shard/runtime/housekeeping.h"
#include "shard/state/auth.h"
#include "timers/clock.h"

namespace rc::net {

namespace {

const char kMaxClientsError[] = "-ERR max number of clients reached\r\n";

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
    // Redis's formatAddr: an IPv6 address in brackets, so the port stays readable.
    return StrCat("[", ip, "]:", ntohs(a->sin6_port));
  }
  return StrCat(ip, ":", port);
}

}  // namespace

std::string_view IoEngineName(IoEngine engine) {
  return engine == IoEngine::kEpoll ? "epoll" : "io_uring";
}

bool ParseIoEngine(std::string_view name, IoEngine* out) {
  if (EqualsIgnoreCase(name, "io_uring")) {
    *out = IoEngine::kUring;
  } else if (EqualsIgnoreCase(name, "epoll")) {
    *out = IoEngine::kEpoll;
  } else {
    return false;
  }
  return true;
}

// As Redis's anetKeepAlive: probes after `idle` seconds of silence, every idle/3, and the
// peer is dead after three unanswered, so a vanished client is closed in about 2 x idle.
void KeepAlive(int fd, int idle) {
  int on = 1;
  int interval = std::max(1, idle / 3);
  int count = 3;
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
}

std::string ErrnoText(int err) {
  const char* name = strerrorname_np(err);
  return StrCat(name != nullptr ? name : StrCat("errno ", err), " (", std::strerror(err), ")");
}

Reactor::Reactor(uint32_t id, std::vector<int> listen_fds, ReactorShared& shared)
    : id_(id), listen_fds_(std::move(listen_fds)), shared_(shared), shards_(*shared.shards) {
  parser_limits_.max_bulk_len = shared.server->config.proto_max_bulk_len;
}

Reactor::~Reactor() { conns_.clear(); }

void Reactor::Run() {
  ShardThread& self = shard_thread();
  self.shard().thread_check().Bind();
  self.set_busy_turn(this);
  // While the append-only log replays (worker 0 runs it), no client is let in.
  bool accepting = false;
  now_ns_ = next_cron_ns_ = MonotonicNanos();
  while (!shared_.server->shutdown_requested.load(std::memory_order_relaxed)) {
    // One clock read per turn: idle bookkeeping and the cron only need milliseconds.
    now_ns_ = MonotonicNanos();
    if (!accepting && !shared_.server->persist.aof_loading.load(std::memory_order_acquire)) {
      StartAccepting();
      accepting = true;
    }
    const uint64_t input_before = self.stats().net_input_bytes;
    const bool served = self.RunInbox() > 0;
    HandleEvents();
    const bool idle_turn = !served && self.stats().net_input_bytes == input_before;

    if (now_ns_ >= next_cron_ns_) Cron(now_ns_);
    if (BlockedClients& blocked = self.blocked(); blocked.NextDeadline() <= self.shard().NowMs()) {
      blocked.FireDue(self.shard().NowMs());
    }
    if (!parked_.empty()) UnparkIfUnpaused();
    // Background work after the turn's requests; this turn's replies leave before each
    // step, so a mass expiry or eviction delays no request by more than one step.
    const HousekeepingTurn housekeeping =
        Housekeep(shards_, id_, *shared_.server, idle_turn, now_ns_ / 1000, [this] {
          FlushAll();
          Submit();
        });
    FlushAll();

    // Connections still in dirty_ are held for replies from other threads: their tasks
    // wake this thread, and hold_until_ns_ bounds the wait.
    // Tasks and input a busy script's turns kept (ServeWhileBusy) are due too.
    if (housekeeping.more || self.inbox().HasWork() || EventsPending() || self.HoldsTasks() ||
        !kept_.empty() || !self.inbox().PrepareToSleep()) {
      // Not sleeping, but I/O must still come in while we are busy.
      Poll(0);
      continue;
    }
    // Sleep until the cron tick, the next key's deadline or the end of an output hold.
    // A snapshot waiting for its writer or its pace looks again within a millisecond.
    const int64_t snapshot_ns = housekeeping.snapshot_waiting ? 1'000'000 : INT64_MAX;
    const int64_t wait_ns = std::min(
        {next_cron_ns_ - now_ns_, NanosToNextDeadline(), hold_until_ns_ - now_ns_, snapshot_ns});
    Poll(std::max<int64_t>(wait_ns, 0));
    self.inbox().Awake();
  }
  for (auto& c : conns_) {
    if (c) ::shutdown(c->fd(), SHUT_RDWR);
  }
}

void Reactor::Cron(int64_t now_ns) {
  const int64_t hz =
      shared_.server->config.EffectiveHz(size_t(std::max(0, shared_.connected_clients.load())));
  if (id_ == 0) shared_.server->effective_hz.store(hz, std::memory_order_relaxed);
  next_cron_ns_ = now_ns + 1'000'000'000 / hz;
  shard_thread().stats().SampleOps(now_ns);
  TrackBufferPeaks(now_ns / 1'000'000'000, hz);
  CloseIdle(now_ns / 1'000'000);
  if (id_ == 0) {
    MaybeSaveOnSchedule(shard_thread(), shards_, *shared_.server);
    MaybeRewriteAof(shard_thread(), shards_, *shared_.server);
    shards_.replicas().PingIfDue(shards_.journal(), now_ns / 1'000'000);
  }
}

void Reactor::Park(Connection* c) {
  parked_.push_back(c);
  ++shard_thread().stats().blocked_clients;
}

void Reactor::UnparkIfUnpaused() {
  // CLIENT UNPAUSE wakes every reactor; a pause that times out is noticed within a cron
  // tick at worst (the sleep is bounded by it).
  if (shared_.server->introspect.pause.Active(shared_.server->clock->NowUnixMillis())) return;
  std::vector<Connection*> parked;
  parked.swap(parked_);
  shard_thread().stats().blocked_clients -= parked.size();
  // Unpark runs the held commands, which may park again (a new pause) or close.
  for (Connection* c : parked) {
    if (!c->closing()) c->Unpark();
  }
}

void Reactor::PublishAof() {
  shards_.PublishAof(id_);
  ShardThread& self = shard_thread();
  // appendfsync always: nothing this turn answered leaves, here or through another
  // thread, before the disk has what it changed.
  if (self.aof_position() > durable_waited_ &&
      shared_.server->config.appendfsync.get() == Config::kFsyncAlways) {
    shards_.journal().WaitDurable(self.aof_position());
    durable_waited_ = self.aof_position();
  }
}

void Reactor::FlushAll() {
  // First, while every connection it names is still open.
  if (!kept_.empty()) ReplayKept();
  ShardThread& self = shard_thread();
  PublishAof();
  // Before any reply of this turn leaves: a client that saw its write answered must not
  // find the server under maxmemory for want of this shard's figure (EXEC's OOM check
  // on another thread).
  self.shard().PublishMemory();
  self.events().Flush(self, shards_);
  shards_.FlushOutbox(id_, *this);
  if (self.inbox().HasWork()) {
    // What this turn posted to itself (the reply to a client that a push here served)
    // leaves with this turn's replies rather than a turn later.
    self.RunInbox();
    PublishAof();
    self.shard().PublishMemory();
    self.events().Flush(self, shards_);
    shards_.FlushOutbox(id_, *this);
  }
  for (Connection* c : close_asap_) Close(c);
  close_asap_.clear();
  FlushSends();
  FreeClosed();
}

int64_t Reactor::NanosToNextDeadline() const {
  ShardThread& self = shards_.thread(id_);
  Shard& shard = self.shard();
  // Keys' TTLs and blocked clients' timeouts.
  int64_t next = std::min(shard.NextDeadline(), self.blocked().NextDeadline());
  if (next == INT64_MAX) return INT64_MAX;
  // Deadlines are wall-clock milliseconds; wake at the start of the due millisecond.
  // Deadlines centuries away (EXPIREAT 9223372036854775) would overflow nanoseconds.
  constexpr int64_t kMaxMs = INT64_MAX / 1'000'000;
  return std::clamp<int64_t>(next - shard.NowMs(), 0, kMaxMs) * 1'000'000;
}

void Reactor::TrackBufferPeaks(int64_t now_sec, int64_t hz) {
  // As Redis's clientsCron: a slice of the connections per tick, each once a second.
  ThreadStats& stats = shard_thread().stats();
  const size_t slots = conns_.size();
  for (size_t visits = slots / size_t(hz) + 1; visits > 0 && slots > 0; --visits) {
    peak_cursor_ = (peak_cursor_ + 1) % slots;
    if (const Connection* c = conns_[peak_cursor_].get()) {
      const ClientBuffers b = c->Buffers();
      stats.recent_input.Note(now_sec, b.qbuf + b.qbuf_free);
      // What the output limits count, as Redis's figure is.
      stats.recent_output.Note(now_sec, c->PendingOutput());
    }
  }
}

void Reactor::CloseIdle(int64_t now_ms) {
  int64_t timeout_ms = shared_.server->config.timeout * 1000;
  if (timeout_ms <= 0) return;
  // Oldest first: stop at the first connection that is still within its time.
  while (IdleHook* h = idle_.Oldest()) {
    if (now_ms - h->last_active_ms <= timeout_ms) break;
    auto* c = static_cast<Connection*>(h->owner);
    if (c->client().blocked != nullptr) {
      // As in Redis, a client waiting in a blocking command is not idle.
      idle_.Touch(h, now_ms);
      continue;
    }
    Close(c);
  }
}

Connection* Reactor::OnAccepted(int fd, bool node) {
  ThreadStats& stats = shard_thread().stats();
  if (shared_.connected_clients.fetch_add(1) >= shared_.server->config.maxclients) {
    shared_.connected_clients.fetch_sub(1);
    ++stats.rejected_connections;
    // A fresh socket's send buffer is empty: this short write cannot block.
    [[maybe_unused]] ssize_t n =
        ::send(fd, kMaxClientsError, sizeof(kMaxClientsError) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    ::close(fd);
    return nullptr;
  }
  if (std::string_view denied = ProtectedModeRefusal(*shared_.server, fd); !denied.empty()) {
    shared_.connected_clients.fetch_sub(1);
    ++stats.rejected_connections;
    [[maybe_unused]] ssize_t n =
        ::send(fd, denied.data(), denied.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    ::close(fd);
    return nullptr;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (const int64_t idle = shared_.server->config.tcp_keepalive; idle > 0) KeepAlive(fd, int(idle));
  ++stats.connections_received;
  ++stats.connected_clients;
  ++live_conns_;
  if (size_t(fd) >= conns_.size()) conns_.resize(size_t(fd) * 2 + 1);
  uint64_t id = shared_.server->next_client_id.fetch_add(1);
  conns_[fd] = std::make_unique<Connection>(*this, fd, id, parser_limits_);
  Connection* c = conns_[fd].get();
  c->client().created_ms = shared_.server->clock->NowUnixMillis();
  // Connected while no password is set: authenticated for good (as Redis's default user).
  c->client().authenticated = !AuthEnabled(*shared_.server);
  c->client().addr = SocketAddress(fd, /*peer=*/true);
  c->client().laddr = SocketAddress(fd, /*peer=*/false);
  c->client().cluster_port = node ? node_port_ : shared_.main_cluster_port;
  c->client().node_shard = node ? int32_t(id_) : -1;
  shard_thread().clients().Add(c);
  c->idle.owner = c;
  idle_.Touch(&c->idle, now_ns_ / 1'000'000);
  return c;
}

void Reactor::OnReceived(Connection* c, const char* data, size_t len) {
  ThreadStats& stats = shard_thread().stats();
  stats.net_input_bytes += uint64_t(len);
  ++stats.reads_processed;
  // A closing connection has left the idle list for good: touching it would link it back
  // in, and it would be freed while still linked (receives still arrive for a client
  // killed mid-pipeline).
  if (c->closing()) return;
  if (nested_ && c->InUse()) return Keep(c, std::string_view(data, len), /*gone=*/false);
  Feed(c, data, len);
}

void Reactor::Feed(Connection* c, const char* data, size_t len) {
  idle_.Touch(&c->idle, now_ns_ / 1'000'000);
  c->OnData(data, len);
  // QUIT or SHUTDOWN with nothing left to send closes right away.
  if (c->close_after_flush() && c->Drained()) Close(c);
}

void Reactor::QueueSend(Connection* c) {
  if (!c->dirty) {
    c->dirty = true;
    dirty_.push_back(c);
  }
}

void Reactor::FlushSends() {
  held_.clear();
  hold_until_ns_ = INT64_MAX;
  // Newest first, as Redis writes its pending clients: a consumer that this turn's push
  // served gets its job before the pusher gets its acknowledgement.
  const size_t queued = dirty_.size();
  for (size_t i = queued; i-- > 0;) FlushOne(dirty_[i]);
  // An engine that sends at once may finish (and queue more) inside Send(): those come
  // after, by index, as the vector may grow.
  for (size_t i = queued; i < dirty_.size(); ++i) FlushOne(dirty_[i]);
  dirty_.swap(held_);
}

void Reactor::FlushOne(Connection* c) {
  if (c->closing() || c->sending() || !c->HasOutput()) {
    c->dirty = false;
    return;
  }
  if (nested_ && c->InUse()) {
    // A reply builder on the stack below appends to its output: it leaves afterwards.
    held_.push_back(c);
    return;
  }
  if (const int64_t until = c->HoldUntil(now_ns_); until != 0) {
    held_.push_back(c);  // stays dirty
    hold_until_ns_ = std::min(hold_until_ns_, until);
    return;
  }
  c->dirty = false;
  c->StartSend();
  Send(c);
}

void Reactor::SendDone(Connection* c) {
  c->FinishSend();
  if (c->HasOutput()) {
    QueueSend(c);
  } else if (c->close_after_flush() && c->Drained()) {
    Close(c);
  }
}

void Reactor::SendFailed(Connection* c) {
  c->FinishSend();
  OnSocketGone(c);
}

void Reactor::Close(Connection* c) {
  if (c->closing()) return;
  c->set_closing();
  std::erase_if(kept_, [c](const Kept& k) { return k.c == c; });
  idle_.Remove(&c->idle);
  shard_thread().clients().Remove(c->client().id, shared_.server->introspect.monitors);
  if (c->client().is_replica) shards_.replicas().Detach(c->client().id);
  shard_thread().stats().blocked_clients -= std::erase(parked_, c);
  DropSubscriptions(shard_thread().pubsub(), c->client(), c, *shared_.server);
  UnwatchAll(shard_thread(), shards_, c->client());
  // A blocked command ends without a trace; its reply slot keeps `c` until it has.
  BlockedClientClosed(c->client());
  Forget(c);
  shared_.connected_clients.fetch_sub(1);
  --shard_thread().stats().connected_clients;
  --live_conns_;
  // Last, as Redis unlinks a client before it closes the socket: a peer that sees the
  // close no longer finds the client in INFO or CLIENT LIST. It ends an armed receive
  // (io_uring: it completes with 0) and any send in flight; the fd itself stays open
  // until the connection is freed, so its number cannot be reused under us.
  ::shutdown(c->fd(), SHUT_RDWR);
  FreeIfDone(c);
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
