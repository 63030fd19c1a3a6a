#include "net/metrics_server.h"

#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <future>
#include <memory>
#include <vector>

#include "core/prometheus.h"
#include "core/strings.h"
#include "shard/command/invoke.h"
#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"
#include "shard/wire/command.h"
#include "shard/wire/reply_sink.h"

namespace rc::net {

namespace {

constexpr auto kInfoTimeout = std::chrono::seconds(5);
constexpr int kReadTimeoutMs = 2000;

// What INFO sees as its client: it answers once, possibly from a later task, always on
// worker 0's thread.
class InfoSink final : public ReplySink {
 public:
  uint64_t Defer() override { return 0; }
  void Fulfill(uint64_t, std::string resp) override { done.set_value(std::move(resp)); }
  void Resume() override {}
  void Push(std::string) override {}

  ClientState client;
  std::string inline_reply;
  std::promise<std::string> done;
};

// "$N\r\n<text>\r\n" -> text.
std::string_view BulkBody(std::string_view resp) {
  size_t start = resp.find("\r\n");
  if (resp.empty() || resp[0] != '$' || start == std::string_view::npos) return {};
  std::string_view body = resp.substr(start + 2);
  if (body.size() >= 2) body.remove_suffix(2);
  return body;
}

void WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return;
    data.remove_prefix(size_t(n));
  }
}

}  // namespace

bool MetricsServer::Start(const std::string& bind, int port, std::string* error) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  std::string port_text = std::to_string(port);
  if (int rc = getaddrinfo(bind.c_str(), port_text.c_str(), &hints, &res); rc != 0) {
    *error = StrCat("metrics: cannot resolve '", bind, "': ", gai_strerror(rc));
    return false;
  }
  listen_fd_ = ::socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (listen_fd_ < 0 || ::bind(listen_fd_, res->ai_addr, res->ai_addrlen) < 0 ||
      ::listen(listen_fd_, 16) < 0) {
    *error = StrCat("metrics: could not listen on ", bind, ":", port, ": ", std::strerror(errno));
    freeaddrinfo(res);
    if (listen_fd_ >= 0) ::close(listen_fd_);
    listen_fd_ = -1;
    return false;
  }
  freeaddrinfo(res);
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&ss), &len);
  port_ = ss.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                                   : ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  thread_ = std::thread([this] { Loop(); });
  return true;
}

void MetricsServer::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
}

void MetricsServer::Loop() {
  while (!stop_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    // Wakes now and then to notice Stop(): no extra fd to signal it.
    if (::poll(&p, 1, 100) <= 0) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    Serve(fd);
    ::close(fd);
  }
}

void MetricsServer::Serve(int fd) {
  std::string request;
  char buf[4096];
  while (request.find("\r\n\r\n") == std::string::npos && request.size() < 16384) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, kReadTimeoutMs) <= 0) return;
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return;
    request.append(buf, size_t(n));
  }
  std::string_view line(request);
  line = line.substr(0, line.find("\r\n"));
  const bool metrics = line.substr(0, 13) == "GET /metrics " || line == "GET /metrics";
  if (!metrics) {
    WriteAll(fd,
             "HTTP/1.1 404 Not Found\r\nContent-Length: 10\r\nConnection: close\r\n\r\n"
             "not found\n");
    return;
  }
  std::string body = InfoToPrometheus(RunInfo());
  std::string head = StrCat(
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n"
      "Content-Length: ",
      body.size(), "\r\nConnection: close\r\n\r\n");
  WriteAll(fd, head);
  WriteAll(fd, body);
}

std::string MetricsServer::RunInfo() {
  auto sink = std::make_shared<InfoSink>();
  std::future<std::string> reply = sink->done.get_future();
  ShardSet* shards = &shards_;
  ServerState* server = &server_;
  const CommandTable* table = &table_;
  std::vector<Message> batch;
  batch.emplace_back([sink, shards, server, table] {
    // Worker 0's thread.
    static const std::string_view kArgs[] = {"INFO", "everything"};
    const CommandSpec* info = table->Find("info");
    std::string inline_out;
    ReplyBuilder rb(&inline_out);
    CoordCmd cmd{shards->thread(0), *shards, *server, sink->client, *sink, *table,
                 ArgList(kArgs, 2), rb};
    // A scrape is not a client's command: INFO's own statistics do not count it.
    InvokeOnCoord(cmd, *info, InvokeAs{InvokePath::kInternal});
    if (!inline_out.empty()) sink->done.set_value(std::move(inline_out));
  });
  shards_.thread(0).inbox().PushBatch(&batch);
  if (server_.wake_all) server_.wake_all();
  if (reply.wait_for(kInfoTimeout) != std::future_status::ready) return "";
  std::string resp = reply.get();
  return std::string(BulkBody(resp));
}

}  // namespace rc::net
