#include "tests/integration/server_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rc::it {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kReadyMarker = "Ready to accept connections tcp port=";

// A pollable handle that becomes readable when the process exits (glibc here lacks the
// wrapper).
int PidfdOpen(pid_t pid) { return int(syscall(SYS_pidfd_open, pid, 0)); }

int RemainingMs(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : int(left);
}

// Port number after the ready marker, once its line is complete; 0 if not there yet.
int ParseReadyPort(const std::string& out) {
  size_t at = out.find(kReadyMarker);
  if (at == std::string::npos) return 0;
  size_t end = out.find('\n', at);
  if (end == std::string::npos) return 0;
  return std::atoi(out.c_str() + at + kReadyMarker.size());
}

std::string DescribeStatus(int status) {
  if (WIFEXITED(status)) return absl::StrCat("exit code ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return absl::StrCat("killed by signal ", WTERMSIG(status));
  return absl::StrCat("wait status ", status);
}

void AppendEscaped(std::string* out, std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  for (unsigned char c : s) {
    if (c < 0x20 || c >= 0x7f || c == ',' || c == '[' || c == ']' || c == '\\') {
      out->append({'\\', 'x', kHex[c >> 4], kHex[c & 15]});
    } else {
      out->push_back(char(c));
    }
  }
}

// hiredis reads $-1 and *-1 alike as a REDIS_REPLY_NIL; its reader still knows which it
// parsed, so this one marks a null array in the reply's unused `integer`.
constexpr long long kNullArray = 1;

void* CreateNil(const redisReadTask* task) {
  auto* r = static_cast<redisReply*>(std::calloc(1, sizeof(redisReply)));
  if (r == nullptr) return nullptr;
  r->type = REDIS_REPLY_NIL;
  if (task->type == REDIS_REPLY_ARRAY) r->integer = kNullArray;
  if (task->parent != nullptr) {
    static_cast<redisReply*>(task->parent->obj)->element[task->idx] = r;
  }
  return r;
}

// hiredis's own reply builders (its table is not exported) with CreateNil in place.
redisReplyObjectFunctions* ReplyFunctions() {
  static redisReplyObjectFunctions fns = [] {
    redisReader* r = redisReaderCreate();
    redisReplyObjectFunctions f = *r->fn;
    redisReaderFree(r);
    f.createNil = CreateNil;
    return f;
  }();
  return &fns;
}

void CanonInto(const redisReply* r, std::string* out) {
  switch (r->type) {
    case REDIS_REPLY_STATUS:
      out->append("+").append(r->str, r->len);
      return;
    case REDIS_REPLY_ERROR:
      out->append("-").append(r->str, r->len);
      return;
    case REDIS_REPLY_INTEGER:
      out->append(":").append(std::to_string(r->integer));
      return;
    case REDIS_REPLY_NIL:
      out->append(r->integer == kNullArray ? "(nil-array)" : "(nil)");
      return;
    case REDIS_REPLY_STRING:
      out->push_back('$');
      AppendEscaped(out, std::string_view(r->str, r->len));
      return;
    case REDIS_REPLY_ARRAY:
      out->append("*[");
      for (size_t i = 0; i < r->elements; ++i) {
        if (i) out->push_back(',');
        CanonInto(r->element[i], out);
      }
      out->push_back(']');
      return;
    default:
      out->append("?type=").append(std::to_string(r->type));
  }
}

int ConnectTcp(int port, std::string* error) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    *error = absl::StrCat("connect to port ", port, ": ", strerror(errno));
    close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

}  // namespace

std::string RingcacheBinary() {
  const char* server = std::getenv("RINGCACHE_SERVER");
  return server != nullptr && *server ? server : RINGCACHE_BINARY;
}

int PickFreePort() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

int KeySlot(std::string_view key) {
  size_t open = key.find('{');
  if (open != std::string_view::npos) {
    size_t close_at = key.find('}', open + 1);
    if (close_at != std::string_view::npos && close_at != open + 1) {
      key = key.substr(open + 1, close_at - open - 1);
    }
  }
  uint16_t crc = 0;
  for (unsigned char c : key) {
    crc ^= uint16_t(c) << 8;
    for (int i = 0; i < 8; ++i) crc = (crc & 0x8000) ? uint16_t((crc << 1) ^ 0x1021) : crc << 1;
  }
  return crc & 16383;
}

std::vector<std::string> KeysOnShard(std::string_view prefix, int shard, int threads, int count) {
  std::vector<std::string> keys;
  for (int i = 0; int(keys.size()) < count; ++i) {
    std::string key = std::string(prefix) + std::to_string(i);
    if (ShardOf(key, threads) == shard) keys.push_back(std::move(key));
  }
  return keys;
}

// ---------------------------------------------------------------------------------------
// ServerProcess

namespace {

#if defined(__x86_64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#endif

// Seccomp program: io_uring_setup fails with ENOSYS, everything else is allowed.
const sock_filter kNoIoUringFilter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

// In the child, between fork and exec (async-signal-safe: two prctl calls).
bool InstallSandbox(Sandbox sandbox) {
  if (sandbox == Sandbox::kNone) return true;
  sock_fprog prog{static_cast<unsigned short>(std::size(kNoIoUringFilter)),
                  const_cast<sock_filter*>(kNoIoUringFilter)};
  // Without privileges a filter may only be installed with no_new_privs set.
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

// Forks and execs `argv` with stdout and stderr into a pipe; returns pid and the read end.
bool Spawn(const Args& args, pid_t* pid, int* out_fd, std::string* error,
           Sandbox sandbox = Sandbox::kNone) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *error = absl::StrCat("pipe2: ", strerror(errno));
    return false;
  }
  pid_t child = fork();
  if (child < 0) {
    *error = absl::StrCat("fork: ", strerror(errno));
    return false;
  }
  if (child == 0) {
    // Only async-signal-safe calls between fork and exec.
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // Never outlive a crashed test binary.
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    // The test's client sockets (hiredis opens them without O_CLOEXEC) must not live on in
    // the server: a client the test closed would stay connected to a shared server.
    syscall(SYS_close_range, 3u, ~0u, 0u);
    if (!InstallSandbox(sandbox)) {
      static const char kSandboxMsg[] = "seccomp filter could not be installed\n";
      (void)!write(2, kSandboxMsg, sizeof kSandboxMsg - 1);
      _exit(126);
    }
    execv(argv[0], argv.data());
    static const char kMsg[] = "exec failed\n";
    (void)!write(2, kMsg, sizeof kMsg - 1);
    _exit(127);
  }
  close(fds[1]);
  *pid = child;
  *out_fd = fds[0];
  return true;
}

}  // namespace

ServerProcess::ServerProcess(std::string name, pid_t pid, int pidfd, int out_fd)
    : name_(std::move(name)), pid_(pid), pidfd_(pidfd) {
  drain_ = std::thread([this, out_fd] { DrainLoop(out_fd); });
}

void ServerProcess::DrainLoop(int fd) {
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    std::lock_guard lock(mu_);
    if (n <= 0) {
      output_closed_ = true;
      cv_.notify_all();
      break;
    }
    output_.append(buf, size_t(n));
    cv_.notify_all();
  }
  close(fd);
}

template <typename Pred>
bool ServerProcess::WaitOutput(Pred pred, milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return pred(output_) || output_closed_; });
  return pred(output_);
}

bool ServerProcess::Sanitized() const {
  // gcc links the sanitizers' runtimes as shared libraries.
  std::ifstream maps("/proc/" + std::to_string(pid_) + "/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("/libasan.so") != std::string::npos ||
        line.find("/libtsan.so") != std::string::npos) {
      return true;
    }
  }
  return false;
}

std::string ServerProcess::Output() const {
  std::lock_guard lock(mu_);
  return output_;
}

std::unique_ptr<ServerProcess> ServerProcess::StartRingcache(int threads, const Args& extra,
                                                             std::string* error, Sandbox sandbox) {
  Args args = {RingcacheBinary(), "--port", "0", "--threads", std::to_string(threads)};
  // ctest runs the suite a second time with RINGCACHE_IO_ENGINE=epoll; `extra` comes
  // after, so a test that names its engine keeps it.
  if (const char* engine = std::getenv("RINGCACHE_IO_ENGINE"); engine != nullptr && *engine) {
    args.insert(args.end(), {"--io-engine", engine});
  }
  // No snapshots, and a `dir` of its own: a test server neither leaves a dump.rdb in the
  // working directory nor loads one another server left there. A test that names either
  // flag (one about persistence) keeps its own.
  auto named_flag = [&extra](std::string_view flag) {
    return std::find(extra.begin(), extra.end(), flag) != extra.end();
  };
  if (!named_flag("--save")) args.insert(args.end(), {"--save", ""});
  // Tests ask DEBUG where connections and keys live; Redis's default refuses DEBUG.
  if (!named_flag("--enable-debug-command")) {
    args.insert(args.end(), {"--enable-debug-command", "local"});
  }
  std::string dir;
  if (!named_flag("--dir")) {
    std::error_code ec;
    std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
    if (ec) tmp = "/tmp";
    dir = (tmp / "ringcache-test-XXXXXX").string();
    if (mkdtemp(dir.data()) == nullptr) {
      *error = absl::StrCat("mkdtemp ", dir, ": ", strerror(errno));
      return nullptr;
    }
    args.insert(args.end(), {"--dir", dir});
  }
  args.insert(args.end(), extra.begin(), extra.end());
  pid_t pid;
  int out_fd;
  if (!Spawn(args, &pid, &out_fd, error, sandbox)) {
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
    return nullptr;
  }
  std::unique_ptr<ServerProcess> p(new ServerProcess("ringcache", pid, PidfdOpen(pid), out_fd));
  p->dir_ = std::move(dir);
  if (!p->WaitOutput([](const std::string& o) { return ParseReadyPort(o) > 0; }, kReadyTimeout)) {
    std::optional<int> status = p->WaitExit(milliseconds(0));
    *error = absl::StrCat(
        "ringcache (", Describe(args), ") printed no ready line within ", kReadyTimeout.count(),
        " ms (", status ? DescribeStatus(*status) : "still running", "); output:\n", p->Output());
    p->report_exit_ = false;
    return nullptr;  // The destructor stops it.
  }
  p->port_ = ParseReadyPort(p->Output());
  // The environment's engine must be the one that runs, or a rerun tests nothing new. A
  // host without io_uring is told apart: the caller skips (and CI fails, gtest_main.cc).
  const char* engine = std::getenv("RINGCACHE_IO_ENGINE");
  if (engine != nullptr && *engine && !named_flag("--io-engine") &&
      p->Output().find(absl::StrCat(" io=", engine, " ")) == std::string::npos) {
    if (std::string_view(engine) == "io_uring" && p->Output().find(" io=epoll ") != std::string::npos) {
      p->io_uring_fell_back_ = true;
      return p;
    }
    *error = absl::StrCat("RINGCACHE_IO_ENGINE=", engine, " but ringcache runs another engine:\n",
                          p->Output());
    p->report_exit_ = false;
    return nullptr;
  }
  return p;
}

std::unique_ptr<ServerProcess> ServerProcess::StartRedis(std::string* error, const Args& extra) {
  // The free port can be taken between PickFreePort and redis binding it: retry.
  for (int attempt = 0; attempt < 5; ++attempt) {
    int port = PickFreePort();
    Args args = {"/usr/bin/redis-server", "--port", std::to_string(port), "--bind", "127.0.0.1",
                 "--save", "", "--appendonly", "no", "--loglevel", "warning",
                 // SIGTERM is acted on in serverCron: 100 Hz makes stopping take ~10 ms.
                 "--hz", "100"};
    args.insert(args.end(), extra.begin(), extra.end());
    pid_t pid;
    int out_fd;
    if (!Spawn(args, &pid, &out_fd, error)) return nullptr;
    std::unique_ptr<ServerProcess> p(
        new ServerProcess("redis-server", pid, PidfdOpen(pid), out_fd));
    p->port_ = port;
    auto deadline = Clock::now() + kReadyTimeout;
    while (Clock::now() < deadline) {
      if (auto status = p->WaitExit(milliseconds(0))) {
        *error = absl::StrCat("redis-server exited (", DescribeStatus(*status), "); output:\n",
                              p->Output());
        break;
      }
      std::string ignored;
      if (auto c = Client::Connect(port, &ignored, milliseconds(1000))) {
        // With --requirepass, NOAUTH says it is up just as well. Another test's server may
        // have bound the port first (ours then exits): the answer must come from our pid.
        std::string pong = c->Cmd({"PING"});
        if (pong == "-NOAUTH Authentication required.") return p;
        if (pong == "+PONG") {
          Client::ReplyPtr info = c->RawCmd({"INFO", "server"});
          if (info && info->type == REDIS_REPLY_STRING &&
              std::string_view(info->str, info->len)
                      .find(absl::StrCat("process_id:", pid, "\r\n")) != std::string_view::npos) {
            return p;
          }
        }
      }
      // Not listening yet: wait for the next line of output (or 20 ms) before retrying.
      size_t seen = p->Output().size();
      p->WaitOutput([seen](const std::string& o) { return o.size() > seen; }, milliseconds(20));
    }
    if (!p->exit_status_) {
      *error = absl::StrCat("redis-server did not answer PING; output:\n", p->Output());
      p->report_exit_ = false;
      return nullptr;
    }
    p->report_exit_ = false;  // Expected failure mode (port taken): try another port.
  }
  return nullptr;
}

std::optional<int> ServerProcess::WaitExit(milliseconds timeout) {
  if (exit_status_) return exit_status_;
  pollfd pfd{pidfd_, POLLIN, 0};
  int ready;
  do {
    ready = poll(&pfd, 1, int(timeout.count()));
  } while (ready < 0 && errno == EINTR);
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) exit_status_ = status;
  return exit_status_;
}

bool ServerProcess::Signal(int sig) { return !exit_status_ && kill(pid_, sig) == 0; }

ServerProcess::~ServerProcess() {
  bool exited_before = WaitExit(milliseconds(0)).has_value();
  if (!exited_before) Signal(SIGTERM);
  std::optional<int> status = WaitExit(kStopTimeout);
  if (!report_exit_) {
    if (!status) {
      kill(pid_, SIGKILL);
      WaitExit(kStopTimeout);
    }
  } else if (!status) {
    ADD_FAILURE() << name_ << " did not exit within " << kStopTimeout.count()
                  << " ms of SIGTERM; killing it. Output:\n"
                  << Output();
    kill(pid_, SIGKILL);
    status = WaitExit(kStopTimeout);
  } else if (*status != 0) {
    ADD_FAILURE() << name_ << (exited_before ? " had already exited: " : " stopped with ")
                  << DescribeStatus(*status) << ". Output:\n"
                  << Output();
  }
  drain_.join();
  close(pidfd_);
  if (!dir_.empty()) {
    std::error_code ec;  // What the server wrote there goes with it.
    std::filesystem::remove_all(dir_, ec);
  }
}

// ---------------------------------------------------------------------------------------
// Replies and clients

std::string Canon(const redisReply* reply) {
  std::string out;
  CanonInto(reply, &out);
  return out;
}

std::vector<std::string> Strings(const redisReply* reply) {
  std::vector<std::string> out;
  if (reply == nullptr || reply->type != REDIS_REPLY_ARRAY) return out;
  for (size_t i = 0; i < reply->elements; ++i) {
    const redisReply* e = reply->element[i];
    out.emplace_back(e->str ? std::string(e->str, e->len) : std::string());
  }
  return out;
}

std::string EncodeCommand(const Args& args) {
  std::string out = absl::StrCat("*", args.size(), "\r\n");
  for (const std::string& a : args) absl::StrAppend(&out, "$", a.size(), "\r\n", a, "\r\n");
  return out;
}

std::string Describe(const Args& args) {
  std::vector<std::string> parts;
  for (const std::string& a : args) {
    std::string s = a.size() > 48 ? absl::StrCat(a.substr(0, 40), "...(", a.size(), " bytes)") : a;
    if (s.empty() || s.find_first_of(" \"\r\n") != std::string::npos) {
      std::string q = "\"";
      AppendEscaped(&q, s);
      s = q + "\"";
    }
    parts.push_back(std::move(s));
  }
  return absl::StrJoin(parts, " ");
}

std::unique_ptr<Client> Client::Connect(int port, std::string* error, milliseconds timeout) {
  timeval tv{long(timeout.count() / 1000), long(timeout.count() % 1000) * 1000};
  redisContext* ctx = redisConnectWithTimeout("127.0.0.1", port, tv);
  if (ctx == nullptr || ctx->err) {
    *error = absl::StrCat("connect to ", port, ": ", ctx ? ctx->errstr : "out of memory");
    redisFree(ctx);
    return nullptr;
  }
  redisSetTimeout(ctx, tv);
  ctx->reader->fn = ReplyFunctions();
  return std::unique_ptr<Client>(new Client(ctx));
}

Client::~Client() { redisFree(ctx_); }

Client::ReplyPtr Client::RawCmd(const Args& args) {
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  void* r = redisCommandArgv(ctx_, int(args.size()), argv.data(), lens.data());
  return ReplyPtr(static_cast<redisReply*>(r), freeReplyObject);
}

std::string Client::Cmd(const Args& args) {
  ReplyPtr r = RawCmd(args);
  if (!r) return absl::StrCat("!IO: ", ctx_->errstr);
  return Canon(r.get());
}

void Client::Append(const Args& args) {
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  redisAppendCommandArgv(ctx_, int(args.size()), argv.data(), lens.data());
}

std::string Client::GetReply() {
  void* r = nullptr;
  if (redisGetReply(ctx_, &r) != REDIS_OK || r == nullptr) {
    return absl::StrCat("!IO: ", ctx_->errstr);
  }
  ReplyPtr reply(static_cast<redisReply*>(r), freeReplyObject);
  return Canon(reply.get());
}

std::unique_ptr<RawConn> RawConn::Connect(int port, std::string* error) {
  int fd = ConnectTcp(port, error);
  if (fd < 0) return nullptr;
  return std::unique_ptr<RawConn>(new RawConn(fd));
}

RawConn::RawConn(int fd) : fd_(fd), reader_(redisReaderCreateWithFunctions(ReplyFunctions())) {
  reader_->maxbuf = 0;  // Never shrink/limit: large replies are expected.
}

RawConn::~RawConn() {
  redisReaderFree(reader_);
  close(fd_);
}

bool RawConn::Send(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(size_t(n));
  }
  return true;
}

std::vector<std::string> RawConn::ReadReplies(size_t n, milliseconds timeout) {
  std::vector<std::string> out;
  auto deadline = Clock::now() + timeout;
  std::vector<char> buf(1 << 16);
  while (out.size() < n) {
    void* r = nullptr;
    if (redisReaderGetReply(reader_, &r) != REDIS_OK) {
      out.push_back(absl::StrCat("!PROTO: ", reader_->errstr));
      return out;
    }
    if (r != nullptr) {
      out.push_back(Canon(static_cast<redisReply*>(r)));
      freeReplyObject(r);
      continue;
    }
    if (eof_) return out;
    pollfd pfd{fd_, POLLIN, 0};
    if (poll(&pfd, 1, RemainingMs(deadline)) <= 0) return out;
    ssize_t got = recv(fd_, buf.data(), buf.size(), 0);
    if (got <= 0) {
      eof_ = true;
      continue;
    }
    redisReaderFeed(reader_, buf.data(), size_t(got));
  }
  return out;
}

std::string RawConn::ReadReply(milliseconds timeout) {
  std::vector<std::string> r = ReadReplies(1, timeout);
  return r.empty() ? (eof_ ? "!EOF" : "!TIMEOUT") : r[0];
}

bool RawConn::WaitClosed(milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  char buf[4096];
  while (!eof_) {
    pollfd pfd{fd_, POLLIN, 0};
    if (poll(&pfd, 1, RemainingMs(deadline)) <= 0) return false;
    ssize_t got = recv(fd_, buf, sizeof buf, 0);
    if (got <= 0) eof_ = true;
  }
  return true;
}

}  // namespace rc::it
