#include "shard/persist/replica_link.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <future>
#include <string_view>
#include <utility>
#include <vector>

#include "core/log.h"
#include "core/split_args.h"
#include "absl/types/span.h"
#include "core/aof_reader.h"
#include "core/strings.h"
#include "shard/persist/stream_applier.h"
#include "shard/state/server_state.h"

namespace rc {

namespace {

// A lost link tries again after this long, as Redis's replicationCron does each second.
constexpr int64_t kRetryMs = 1000;
// The replica tells its master its offset this often, and whenever asked.
constexpr int64_t kAckEveryMs = 1000;
// Stream bytes worker 0 has not applied yet at most: past it the link stops reading,
// and the master's output buffer for this replica takes the rest.
constexpr size_t kMaxQueued = size_t{64} << 20;
// Handshake replies and the snapshot's first line: Redis's repl-timeout default.
constexpr int64_t kTimeoutMs = 60'000;

int64_t NowMs() { return std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                      .count(); }

}  // namespace

// The master's socket, read through a buffer; every wait wakes at least every 100 ms to
// see whether the session should end (`alive`).
class MasterSocket {
 public:
  MasterSocket(int wake_fd, std::function<bool()> alive) : wake_fd_(wake_fd), alive_(std::move(alive)) {}
  ~MasterSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }

  bool Connect(const std::string& host, int port, std::string* error) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    const std::string service = std::to_string(port);
    if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &res); rc != 0) {
      *error = gai_strerror(rc);
      return false;
    }
    bool ok = false;
    for (addrinfo* ai = res; ai != nullptr && !ok; ai = ai->ai_next) {
      fd_ = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      if (fd_ < 0) continue;
      if (::connect(fd_, ai->ai_addr, ai->ai_addrlen) == 0 || errno == EINPROGRESS) {
        ok = WaitFor(POLLOUT, NowMs() + kTimeoutMs) && SocketError() == 0;
      }
      if (!ok) {
        *error = std::strerror(errno != 0 ? errno : ECONNREFUSED);
        ::close(fd_);
        fd_ = -1;
      }
    }
    ::freeaddrinfo(res);
    if (!ok) return false;
    const int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    ::setsockopt(fd_, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    return true;
  }

  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n > 0) {
        bytes.remove_prefix(size_t(n));
      } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        if (!WaitFor(POLLOUT, NowMs() + kTimeoutMs)) return false;
      } else {
        return false;
      }
    }
    return true;
  }

  // One line without its "\r\n"; false on a timeout, an error or the end.
  bool ReadLine(std::string* line, int64_t deadline_ms) {
    for (;;) {
      const size_t eol = buf_.find('\n', pos_);
      if (eol != std::string::npos) {
        size_t end = eol;
        if (end > pos_ && buf_[end - 1] == '\r') --end;
        line->assign(buf_, pos_, end - pos_);
        pos_ = eol + 1;
        return true;
      }
      if (!Fill(deadline_ms)) return false;
    }
  }

  // What is buffered, then what the socket has within `wait_ms`: appended to `out`.
  // False when the socket failed or closed.
  bool ReadSome(std::string* out, int64_t wait_ms) {
    if (pos_ < buf_.size()) {
      out->append(buf_, pos_);
      buf_.clear();
      pos_ = 0;
      return true;
    }
    buf_.clear();
    pos_ = 0;
    pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (::poll(fds, 2, int(wait_ms)) < 0 && errno != EINTR) return false;
    if (fds[1].revents & POLLIN) {
      uint64_t v;
      (void)::read(wake_fd_, &v, sizeof(v));
    }
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) return true;
    char chunk[64 * 1024];
    const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (n > 0) {
      out->append(chunk, size_t(n));
      return true;
    }
    return n < 0 && (errno == EAGAIN || errno == EINTR);
  }

  // Up to `max` bytes into `out` (cleared first), waiting until `deadline_ms`.
  bool ReadUpTo(std::string* out, size_t max, int64_t deadline_ms) {
    out->clear();
    if (pos_ == buf_.size() && !Fill(deadline_ms)) return false;
    const size_t n = std::min(max, buf_.size() - pos_);
    out->assign(buf_, pos_, n);
    pos_ += n;
    return true;
  }

 private:
  int SocketError() const {
    int err = 0;
    socklen_t len = sizeof(err);
    ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) errno = err;
    return err;
  }
  // Waits for `events` in slices, ending early when the session should end.
  bool WaitFor(short events, int64_t deadline_ms) {
    while (alive_()) {
      const int64_t left = deadline_ms - NowMs();
      if (left <= 0) {
        errno = ETIMEDOUT;
        return false;
      }
      pollfd p{fd_, events, 0};
      const int n = ::poll(&p, 1, int(std::min<int64_t>(left, 100)));
      if (n > 0) return true;
      if (n < 0 && errno != EINTR) return false;
    }
    errno = ECANCELED;
    return false;
  }
  bool Fill(int64_t deadline_ms) {
    if (pos_ == buf_.size()) {
      buf_.clear();
      pos_ = 0;
    }
    for (;;) {
      char chunk[64 * 1024];
      const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
      if (n > 0) {
        buf_.append(chunk, size_t(n));
        return true;
      }
      if (n == 0) return false;
      if (errno != EAGAIN && errno != EINTR) return false;
      if (!WaitFor(POLLIN, deadline_ms)) return false;
    }
  }

  int fd_ = -1;
  const int wake_fd_;
  std::function<bool()> alive_;
  std::string buf_;
  size_t pos_ = 0;
};

namespace {

std::string Command(std::initializer_list<std::string_view> args) {
  std::string out;
  AofAppendCommand(absl::MakeConstSpan(args.begin(), args.size()), &out);
  return out;
}

// Waits for `f`, giving up only when the server stops (`stopping`): a load that began
// ends before anything else happens on the link.
template <typename F, typename Stopping>
bool WaitFor(F& f, Stopping stopping) {
  while (f.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
    if (stopping()) return false;
  }
  return true;
}

}  // namespace

ReplicaLink::ReplicaLink(ShardSet& shards, ServerState& server, const Dispatcher& dispatcher)
    : shards_(shards), server_(server) {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  applier_ = std::make_unique<StreamApplier>(shards, server, dispatcher, wake_fd_);
  thread_ = std::thread([this] { Run(); });
}

ReplicaLink::~ReplicaLink() {
  Stop();
  if (thread_.joinable()) thread_.join();
  ::close(wake_fd_);
}

bool ReplicaLink::Follow(const std::string& host, int port) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (target_.port == port && target_.host == host) return false;
    ++target_.generation;
    target_.host = host;
    target_.port = port;
  }
  changed_.notify_all();
  const uint64_t one = 1;
  (void)::write(wake_fd_, &one, sizeof(one));
  return true;
}

void ReplicaLink::Unfollow() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++target_.generation;
    target_.host.clear();
    target_.port = 0;
  }
  changed_.notify_all();
  const uint64_t one = 1;
  (void)::write(wake_fd_, &one, sizeof(one));
}

void ReplicaLink::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    ++target_.generation;
  }
  changed_.notify_all();
  const uint64_t one = 1;
  (void)::write(wake_fd_, &one, sizeof(one));
}

bool ReplicaLink::Current(uint64_t generation) const {
  std::lock_guard<std::mutex> lock(mu_);
  return !stopping_ && target_.generation == generation;
}

void ReplicaLink::Session(const Target& t) {
  ReplicationState& repl = server_.replication;
  const uint64_t generation = t.generation;
  auto alive = [this, generation] { return Current(generation); };
  auto stopping = [this] {
    std::lock_guard<std::mutex> lock(mu_);
    return stopping_;
  };
  auto lost = [&repl] {
    repl.link.store(LinkState::kConnect);
    int64_t zero = 0;
    repl.down_since_ms.compare_exchange_strong(zero, NowMs());
  };
  MasterSocket sock(wake_fd_, alive);
  repl.link.store(LinkState::kConnecting);
  Log(LogLevel::kNotice, "Connecting to MASTER ", t.host, ":", t.port);
  std::string error;
  if (!sock.Connect(t.host, t.port, &error)) {
    Log(LogLevel::kWarning, "Error condition on socket for SYNC: ", error);
    return lost();
  }
  Log(LogLevel::kNotice, "MASTER <-> REPLICA sync started");
  repl.link.store(LinkState::kHandshake);
  std::string line;
  auto ask = [&](const std::string& command) {
    return sock.Send(command) && sock.ReadLine(&line, NowMs() + kTimeoutMs);
  };
  // As Redis: a master that wants a password still answers PING with an error naming it.
  if (!ask(Command({"PING"}))) {
    Log(LogLevel::kWarning, "Master did not respond to PING");
    return lost();
  }
  if (!line.empty() && line[0] == '-' && line.rfind("-NOAUTH", 0) != 0 &&
      line.rfind("-NOPERM", 0) != 0 && line.rfind("-ERR operation not permitted", 0) != 0) {
    Log(LogLevel::kWarning, "Error reply to PING from master: '", line, "'");
    return lost();
  }
  std::string auth, user;
  {
    std::lock_guard<std::mutex> lock(server_.config_mu);
    auth = server_.config.masterauth;
    user = server_.config.masteruser;
  }
  if (!auth.empty()) {
    const bool sent = user.empty() ? ask(Command({"AUTH", auth})) : ask(Command({"AUTH", user, auth}));
    if (!sent || line != "+OK") {
      Log(LogLevel::kWarning, "Unable to AUTH to MASTER: ", line);
      return lost();
    }
  }
  // Errors here are logged and the sync goes on, as in Redis.
  if (!ask(Command({"REPLCONF", "listening-port", std::to_string(server_.bound_port)}))) return lost();
  if (!line.empty() && line[0] == '-') {
    Log(LogLevel::kNotice, "(Non critical) Master does not understand REPLCONF listening-port: ", line);
  }
  if (!ask(Command({"REPLCONF", "capa", "eof", "capa", "psync2"}))) return lost();
  std::string replid;
  int64_t offset = 0;
  {
    std::lock_guard<std::mutex> lock(repl.mu);
    replid = repl.replid;
  }
  offset = repl.offset.load();
  if (!ask(Command({"PSYNC", replid, std::to_string(offset + 1)}))) return lost();
  if (line.rfind("+FULLRESYNC ", 0) == 0) {
    const std::vector<std::string> parts = SplitArgs(line).value_or(std::vector<std::string>{});
    if (parts.size() < 3 || parts[1].size() != 40) {
      Log(LogLevel::kWarning, "Master replied with wrong +FULLRESYNC syntax.");
      return lost();
    }
    replid = parts[1];
    offset = std::strtoll(parts[2].c_str(), nullptr, 10);
    Log(LogLevel::kNotice, "Full resync from master: ", replid, ":", offset);
    if (!FullSync(sock, alive, stopping)) {
      lost();
      // What was queued belongs to no sync now.
      std::future<void> dropped = applier_->Drop(true);
      WaitFor(dropped, stopping);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(repl.mu);
      repl.replid = replid;
    }
    repl.offset.store(offset);
    repl.read_offset.store(offset);
    repl.full_syncs.fetch_add(1);
    Log(LogLevel::kNotice, "MASTER <-> REPLICA sync: Finished with success");
  } else if (line.rfind("+CONTINUE", 0) == 0) {
    const std::vector<std::string> parts = SplitArgs(line).value_or(std::vector<std::string>{});
    if (parts.size() >= 2 && parts[1].size() == 40 && parts[1] != replid) {
      // The master's history has a new id from here on: the old one stays as replid2.
      std::lock_guard<std::mutex> lock(repl.mu);
      repl.replid2 = repl.replid;
      repl.second_offset = offset + 1;
      repl.replid = parts[1];
    }
    repl.partial_syncs.fetch_add(1);
    Log(LogLevel::kNotice, "Successful partial resynchronization with master.");
  } else {
    Log(LogLevel::kWarning, "Unexpected reply to PSYNC from master: ", line);
    return lost();
  }
  Stream(sock, alive);
  lost();
  std::future<void> dropped = applier_->Drop(false);
  WaitFor(dropped, stopping);
  repl.read_offset.store(repl.offset.load());
}

bool ReplicaLink::FullSync(MasterSocket& sock, const std::function<bool()>& alive,
                           const std::function<bool()>& stopping) {
  ReplicationState& repl = server_.replication;
  repl.link.store(LinkState::kSync);
  repl.sync_start_ms.store(NowMs());
  repl.sync_read.store(0);
  std::string line;
  // Newlines keep the link alive while the master prepares the snapshot.
  do {
    if (!sock.ReadLine(&line, NowMs() + kTimeoutMs)) {
      Log(LogLevel::kWarning, "I/O error reading bulk count from MASTER");
      return false;
    }
    repl.last_io_ms.store(NowMs());
  } while (line.empty());
  if (line[0] == '-') {
    Log(LogLevel::kWarning, "MASTER aborted replication with an error: ", line.substr(1));
    return false;
  }
  if (line[0] != '$') {
    Log(LogLevel::kWarning, "Bad protocol from MASTER, the first byte is not '$' (we received '",
        line, "'), are you sure the host and port are right?");
    return false;
  }
  constexpr size_t kMarkLen = 40;
  std::string mark;
  int64_t total = -1;
  if (line.rfind("$EOF:", 0) == 0 && line.size() >= 5 + kMarkLen) {
    mark = line.substr(5, kMarkLen);
  } else {
    total = std::strtoll(line.c_str() + 1, nullptr, 10);
    if (total < 0) return false;
  }
  repl.sync_total.store(total);
  std::string dir, file;
  {
    std::lock_guard<std::mutex> lock(server_.config_mu);
    dir = server_.config.dir;
    file = server_.config.dbfilename;
  }
  const std::string temp = StrCat(dir, "/temp-", NowMs() / 1000, ".", ::getpid(), ".rdb");
  const int fd = ::open(temp.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    Log(LogLevel::kWarning, "Opening the temp file needed for MASTER <-> REPLICA synchronization: ",
        std::strerror(errno));
    return false;
  }
  auto write_all = [fd](std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd, bytes.data(), bytes.size());
      if (n <= 0 && errno != EINTR) return false;
      if (n > 0) bytes.remove_prefix(size_t(n));
    }
    return true;
  };
  bool ok = true;
  std::string chunk, tail;
  int64_t read = 0;
  while (ok) {
    const size_t want = total >= 0 ? size_t(std::min<int64_t>(total - read, 1 << 20)) : 1 << 20;
    if (total >= 0 && want == 0) break;
    if (!sock.ReadUpTo(&chunk, want, NowMs() + kTimeoutMs)) {
      Log(LogLevel::kWarning, "I/O error trying to sync with MASTER: connection lost");
      ok = false;
      break;
    }
    read += int64_t(chunk.size());
    repl.sync_read.store(read);
    repl.last_io_ms.store(NowMs());
    if (total >= 0) {
      ok = write_all(chunk);
      continue;
    }
    // Diskless: the snapshot ends with the mark; hold back its length until it is seen.
    tail += chunk;
    if (tail.size() >= kMarkLen && tail.compare(tail.size() - kMarkLen, kMarkLen, mark) == 0) {
      ok = write_all(std::string_view(tail).substr(0, tail.size() - kMarkLen));
      break;
    }
    if (tail.size() > kMarkLen) {
      ok = write_all(std::string_view(tail).substr(0, tail.size() - kMarkLen));
      tail.erase(0, tail.size() - kMarkLen);
    }
  }
  if (ok && ::fsync(fd) != 0) ok = false;
  ::close(fd);
  const std::string path = StrCat(dir, "/", file);
  if (ok && ::rename(temp.c_str(), path.c_str()) != 0) {
    Log(LogLevel::kWarning, "Failed trying to rename the temp DB into ", file,
        " in MASTER <-> REPLICA synchronization: ", std::strerror(errno));
    ok = false;
  }
  if (!ok) {
    ::unlink(temp.c_str());
    return false;
  }
  if (!alive()) return false;
  Log(LogLevel::kNotice, "MASTER <-> REPLICA sync: receiving ", read, " bytes from master to disk");
  Log(LogLevel::kNotice, "MASTER <-> REPLICA sync: Loading DB in memory");
  std::future<SnapshotLoad> loaded = applier_->Load(path);
  if (!WaitFor(loaded, stopping)) return false;
  const SnapshotLoad result = loaded.get();
  if (!result.ok) {
    Log(LogLevel::kWarning, "Failed trying to load the MASTER synchronization DB from disk: ",
        result.error);
    return false;
  }
  server_.persist.loaded_keys.store(result.keys);
  return true;
}

void ReplicaLink::Stream(MasterSocket& sock, const std::function<bool()>& alive) {
  ReplicationState& repl = server_.replication;
  repl.link.store(LinkState::kConnected);
  repl.down_since_ms.store(0);
  int64_t last_io = NowMs();
  repl.last_io_ms.store(last_io);
  int64_t next_ack = 0;  // at once: the master learns the offset right after a sync
  std::string data;
  while (alive() && !applier_->Broken()) {
    const int64_t now = NowMs();
    if (applier_->TakeAckRequest() || now >= next_ack) {
      if (!sock.Send(Command({"REPLCONF", "ACK", std::to_string(repl.offset.load())}))) {
        Log(LogLevel::kWarning, "Connection with master lost.");
        return;
      }
      next_ack = now + kAckEveryMs;
    }
    if (applier_->Queued() > kMaxQueued) {
      // Worker 0 is behind: let the master's buffer hold the rest meanwhile.
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    data.clear();
    if (!sock.ReadSome(&data, 100)) {
      Log(LogLevel::kWarning, "Connection with master lost.");
      return;
    }
    if (!data.empty()) {
      last_io = now;
      repl.last_io_ms.store(now);
      repl.read_offset.fetch_add(int64_t(data.size()));
      applier_->Feed(data);
    } else if (now - last_io > kTimeoutMs) {
      Log(LogLevel::kWarning, "MASTER timeout: no data nor PING received...");
      return;
    }
  }
}

void ReplicaLink::Run() {
  for (;;) {
    Target target;
    {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait(lock, [this] { return stopping_ || target_.port != 0; });
      if (stopping_) return;
      target = target_;
    }
    Session(target);
    // A lost link retries after a pause, unless the target changed meanwhile.
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait_for(lock, std::chrono::milliseconds(kRetryMs), [&] {
      return stopping_ || target_.generation != target.generation;
    });
    if (stopping_) return;
  }
}

}  // namespace rc
