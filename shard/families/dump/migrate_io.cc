#include "shard/families/dump/migrate_io.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "core/strings.h"

namespace rc {

namespace {

using SteadyClock = std::chrono::steady_clock;
enum class Io { kOk, kError, kTimeout };

// Redis's MIGRATE_SOCKET_CACHE_TTL and its 64 KiB write chunks (each chunk, each reply
// line gets the whole timeout, as connSyncWrite / connSyncReadLine give it).
constexpr auto kCacheTtl = std::chrono::seconds(10);
constexpr size_t kWriteChunk = 64 * 1024;

Io WaitFor(int fd, short events, SteadyClock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - SteadyClock::now()).count();
    if (left <= 0) return Io::kTimeout;
    pollfd p{fd, events, 0};
    const int n = poll(&p, 1, int(std::min<int64_t>(left, INT32_MAX)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Io::kError;
    // Readiness, an error or a hangup: the read or write that follows tells which.
    return n == 0 ? Io::kTimeout : Io::kOk;
  }
}

// As Redis's connBlockingConnect: a non-blocking connect to the first address that takes
// it, then a wait (bounded by the timeout) for the socket to become writable, whose
// outcome Redis does not check: a refused or unanswered connection shows in the first
// write ("writing to target instance"), and only a name that does not resolve or an
// address that refuses at once is a connect error.
int Connect(const std::string& host, const std::string& port, int64_t timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* addrs = nullptr;
  // Redis reads the port with atoi.
  const std::string service = std::to_string(std::atoi(port.c_str()));
  if (getaddrinfo(host.c_str(), service.c_str(), &hints, &addrs) != 0) return -1;
  int fd = -1;
  for (addrinfo* a = addrs; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(addrs);
  if (fd < 0) return -1;
  WaitFor(fd, POLLOUT, SteadyClock::now() + std::chrono::milliseconds(timeout_ms));
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

struct Conn {
  int fd = -1;
  int64_t last_db = -1;  // the db its last successful MIGRATE selected
  SteadyClock::time_point last_use;
  std::string in;  // bytes read past the last line
};

Io WriteAll(Conn& c, std::string_view data, int64_t timeout_ms) {
  while (!data.empty()) {
    const std::string_view chunk = data.substr(0, kWriteChunk);
    const SteadyClock::time_point deadline = SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
    size_t done = 0;
    while (done < chunk.size()) {
      const ssize_t n = send(c.fd, chunk.data() + done, chunk.size() - done, MSG_NOSIGNAL);
      if (n > 0) {
        done += size_t(n);
      } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        if (Io w = WaitFor(c.fd, POLLOUT, deadline); w != Io::kOk) return w;
      } else {
        return Io::kError;
      }
    }
    data.remove_prefix(chunk.size());
  }
  return Io::kOk;
}

// One reply line, without its CRLF.
Io ReadLine(Conn& c, std::string* line, int64_t timeout_ms) {
  const SteadyClock::time_point deadline = SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    if (const size_t nl = c.in.find('\n'); nl != std::string::npos) {
      line->assign(c.in, 0, nl > 0 && c.in[nl - 1] == '\r' ? nl - 1 : nl);
      c.in.erase(0, nl + 1);
      return Io::kOk;
    }
    char buf[4096];
    const ssize_t n = recv(c.fd, buf, sizeof buf, 0);
    if (n > 0) {
      c.in.append(buf, size_t(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (Io w = WaitFor(c.fd, POLLIN, deadline); w != Io::kOk) return w;
    } else {
      return Io::kError;  // closed, or failed
    }
  }
}

// The network thread's connections by "host:port".
class ConnCache {
 public:
  ~ConnCache() {
    for (auto& [name, c] : conns_) close(c.fd);
  }
  Conn* Get(const MigrateRequest& r, const std::string& name) {
    const SteadyClock::time_point now = SteadyClock::now();
    for (auto it = conns_.begin(); it != conns_.end();) {
      auto cur = it++;
      if (now - cur->second.last_use > kCacheTtl) {
        close(cur->second.fd);
        conns_.erase(cur);
      }
    }
    if (auto it = conns_.find(name); it != conns_.end()) {
      it->second.last_use = now;
      return &it->second;
    }
    const int fd = Connect(r.host, r.port, r.timeout_ms);
    if (fd < 0) return nullptr;
    Conn& c = conns_[name];
    c.fd = fd;
    c.last_use = now;
    return &c;
  }
  void Close(const std::string& name) {
    if (auto it = conns_.find(name); it != conns_.end()) {
      close(it->second.fd);
      conns_.erase(it);
    }
  }

 private:
  absl::flat_hash_map<std::string, Conn> conns_;
};

void AppendBulk(std::string* out, std::string_view s) {
  char len[24];
  const int n = std::snprintf(len, sizeof len, "$%zu\r\n", s.size());
  out->append(len, size_t(n));
  out->append(s.data(), s.size());
  out->append("\r\n", 2);
}

std::string Restores(const MigrateRequest& r) {
  std::string out;
  for (const MigrateRequest::Item& item : r.items) {
    StrAppend(&out, "*", r.replace ? 5 : 4, "\r\n");
    AppendBulk(&out, r.asking ? "RESTORE-ASKING" : "RESTORE");
    AppendBulk(&out, item.key);
    AppendBulk(&out, std::to_string(item.ttl_ms));
    AppendBulk(&out, item.payload);
    if (r.replace) AppendBulk(&out, "REPLACE");
  }
  return out;
}

}  // namespace

MigrateResult RunMigrate(const MigrateRequest& r) {
  thread_local ConnCache cache;
  MigrateResult res;
  res.acked.assign(r.items.size(), false);
  const std::string name = StrCat(r.host, ":", r.port);
  const std::string restores = Restores(r);
  // Redis's retry: once, on a socket error before the first RESTORE's reply and not for
  // a timeout, since a cached connection the target closed is common.
  bool may_retry = true;
  for (;;) {
    Conn* c = cache.Get(r, name);
    if (c == nullptr) {
      res.error = "IOERR error or timeout connecting to the client";
      return res;
    }
    std::string head;
    if (r.auth) {
      StrAppend(&head, "*", r.username.empty() ? 2 : 3, "\r\n");
      AppendBulk(&head, "AUTH");
      if (!r.username.empty()) AppendBulk(&head, r.username);
      AppendBulk(&head, r.password);
    }
    const bool select = c->last_db != r.db;
    if (select) {
      head += "*2\r\n";
      AppendBulk(&head, "SELECT");
      AppendBulk(&head, std::to_string(r.db));
    }
    bool writing = true;
    Io io = WriteAll(*c, head, r.timeout_ms);
    if (io == Io::kOk) io = WriteAll(*c, restores, r.timeout_ms);
    std::string auth_reply, select_reply, reply;
    if (io == Io::kOk) {
      writing = false;
      if (r.auth) io = ReadLine(*c, &auth_reply, r.timeout_ms);
      if (io == Io::kOk && select) io = ReadLine(*c, &select_reply, r.timeout_ms);
    }
    size_t j = 0;
    bool from_target = false;
    if (io == Io::kOk) {
      for (; j < r.items.size(); ++j) {
        io = ReadLine(*c, &reply, r.timeout_ms);
        if (io != Io::kOk) break;
        const std::string* error = !auth_reply.empty() && auth_reply[0] == '-'       ? &auth_reply
                                   : !select_reply.empty() && select_reply[0] == '-' ? &select_reply
                                   : !reply.empty() && reply[0] == '-'               ? &reply
                                                                                     : nullptr;
        if (error == nullptr) {
          res.acked[j] = true;
        } else if (!from_target) {
          from_target = true;
          c->last_db = -1;
          res.error = StrCat("ERR Target instance replied with error: ", error->substr(1));
        }
      }
      if (io == Io::kOk) {
        if (!from_target) c->last_db = r.db;
        return res;
      }
    }
    cache.Close(name);
    // Keys the target acknowledged before the socket failed stay acknowledged: they go.
    if (from_target) return res;
    if (j == 0 && may_retry && io != Io::kTimeout) {
      may_retry = false;
      continue;
    }
    res.error =
        StrCat("IOERR error or timeout ", writing ? "writing" : "reading", " to target instance");
    return res;
  }
}

}  // namespace rc
