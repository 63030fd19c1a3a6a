#include "net/server.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <latch>

#include "absl/strings/str_format.h"
#include "core/log.h"
#include "core/strings.h"
#include "net/epoll_engine.h"
#include "net/metrics_server.h"
#include "net/uring_engine.h"
#include "shard/families/families.h"
#include "shard/persist/aof.h"
#include "shard/persist/aof_replay.h"
#include "shard/persist/rdb_load.h"
#include "shard/persist/save.h"
#include "shard/state/memory_info.h"
#include "timers/clock.h"

namespace rc::net {

Server::Server(const Config& config) : table_(BuildCommandTable()) {
  state_.config = config;
  state_.commands = &table_;
  state_.start_unix_us = state_.clock->NowUnixMicros();
  state_.start_mono_ns = MonotonicNanos();
  state_.run_id = RandomReplicationId();
  state_.replication.replid = RandomReplicationId();
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) state_.executable.assign(exe, size_t(n));
}

Server::~Server() {
  RequestShutdown();
  Wait();
  // Out of LISTEN before the rings go: the kernel tears a ring down after close, and its
  // pending accepts hold the listeners that long (up to ~100 ms seen), during which the
  // port refused a restarted server and a connection to it waited on a dead backlog.
  for (const std::vector<int>& fds : listen_fds_) {
    for (int fd : fds) ::shutdown(fd, SHUT_RDWR);
  }
  for (int fd : node_listen_fds_) ::shutdown(fd, SHUT_RDWR);
  {
    // The signal thread may still be waking the reactors: let it finish, and let no later
    // call start, before their wake fds close (a reused fd number would get the write).
    std::lock_guard<std::mutex> lock(wake_mu_);
    remote_waker_.reset();
  }
  reactors_.clear();
  for (const std::vector<int>& fds : listen_fds_) {
    for (int fd : fds) ::close(fd);
  }
  for (int fd : node_listen_fds_) ::close(fd);
}

int Server::BindListener(const std::string& host, int port, BindMode mode, int* bound_port,
                         std::string* error, int* err_no) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
  if (rc != 0) {
    *error = StrCat("cannot resolve bind address '", host, "': ", gai_strerror(rc));
    if (err_no != nullptr) *err_no = rc == EAI_FAMILY ? EAFNOSUPPORT : EADDRNOTAVAIL;
    return -1;
  }
  int fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    if (err_no != nullptr) *err_no = errno;
    *error = StrCat("could not listen on ", host, ":", port, ": ", std::strerror(errno));
    freeaddrinfo(res);
    return -1;
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  // As Redis: an IPv6 socket takes IPv6 only, so "*" and "::*" can both be bound.
  if (res->ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
  if (mode == BindMode::kListenShared) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
  if (bind(fd, res->ai_addr, res->ai_addrlen) < 0 ||
      (mode != BindMode::kProbe && listen(fd, state_.config.tcp_backlog) < 0)) {
    if (err_no != nullptr) *err_no = errno;
    *error = StrCat("could not listen on ", host, ":", port, ": ", std::strerror(errno));
    ::close(fd);
    freeaddrinfo(res);
    return -1;
  }
  freeaddrinfo(res);
  if (mode == BindMode::kProbe) {
    ::close(fd);
    return 0;
  }
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  *bound_port = ss.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                                         : ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  return fd;
}

bool Server::Listen(int count, std::string* error) {
  int port = state_.config.port;
  listen_fds_.assign(size_t(count), {});
  for (const BindAddress& addr : BindAddresses(state_.config.bind)) {
    // SO_REUSEPORT would let this process join the listeners of another one on the port
    // (a second ringcache started by mistake): each would get part of the clients and
    // its own copy of the keys. A socket bound without it fails while anyone listens, as
    // Redis fails to start on a taken port.
    int unused, err_no = 0;
    std::string why;
    // Redis's anetTcpServer skips an optional address for these, as an IPv6 one on a
    // host without IPv6.
    auto skipped = [&] {
      if (!addr.optional || (err_no != EADDRNOTAVAIL && err_no != EAFNOSUPPORT &&
                             err_no != EPROTONOSUPPORT && err_no != ESOCKTNOSUPPORT &&
                             err_no != EPFNOSUPPORT && err_no != ENOPROTOOPT)) {
        return false;
      }
      Log(LogLevel::kWarning, "Could not create server TCP listening socket ", addr.host, ":",
          port, " (optional, skipped): ", why);
      return true;
    };
    if (port > 0 && BindListener(addr.host, port, BindMode::kProbe, &unused, &why, &err_no) < 0) {
      if (skipped()) continue;
      *error = why;
      return false;
    }
    for (int i = 0; i < count; ++i) {
      // One listener per thread on the same port: the kernel spreads connections. With
      // an ephemeral port, the other listeners join the one the kernel chose.
      int fd = BindListener(addr.host, port, BindMode::kListenShared, &port, &why, &err_no);
      if (fd < 0) {
        if (i == 0 && skipped()) break;  // port 0: no probe came first
        *error = why;
        return false;
      }
      listen_fds_[size_t(i)].push_back(fd);
      if (first_bound_.empty()) first_bound_ = addr.host;
    }
  }
  if (count > 0 && listen_fds_[0].empty()) {
    *error = StrCat("no address of bind '", state_.config.bind, "' could be bound");
    return false;
  }
  state_.bound_port = port;
  return true;
}

bool Server::ListenNodes(int count, std::string* error) {
  const Config& c = state_.config;
  std::vector<int> ports;
  std::vector<std::vector<SlotRange>> ranges;
  for (int i = 0; i < count; ++i) {
    // cluster-port-base + i; else the ports after the main one; ephemeral with port 0.
    int port = c.cluster_port_base > 0 ? c.cluster_port_base + i
               : c.port > 0            ? state_.bound_port + 1 + i
                                       : 0;
    if (port > 65535) {
      *error = StrCat("cluster node port of thread ", i, " would be ", port, ", above 65535");
      return false;
    }
    int fd = BindListener(FirstBound(), port, BindMode::kListen, &port, error);
    if (fd < 0) return false;
    node_listen_fds_.push_back(fd);
    ports.push_back(port);
    ranges.push_back(shards_->RangesOf(uint32_t(i)));
  }
  state_.cluster.Publish(ClusterMap::PerThread(AnnouncedIp(c), ports, ranges));
  node_ports_ = std::move(ports);
  return true;
}

bool Server::Start(std::string* error) {
  int n = state_.config.EffectiveThreads();
  const Config& config = state_.config;
  const bool map_file = config.cluster_enabled && !config.cluster_config_file.empty();
  if (map_file) {
    // Loaded before the shards exist: they spread this process's slots over the threads.
    if (config.port == 0) {
      *error = "cluster-config-file needs a fixed port: the map names this node by it";
      return false;
    }
    std::unique_ptr<ClusterMap> map =
        LoadClusterMap(config.cluster_config_file, AnnouncedIp(config), config.port, error);
    if (map == nullptr) return false;
    state_.cluster.Publish(std::move(map));
  }
  if (!Listen(n, error)) return false;
  IoEngine engine = IoEngine::kUring;
  if (!ParseIoEngine(state_.config.io_engine, &engine)) {
    *error = StrCat("unknown io-engine '", state_.config.io_engine, "'");
    return false;
  }
  state_.wake_all = [this] { WakeAll(); };

  lazyfree_ = std::make_unique<ThreadPool>(size_t(state_.config.lazyfree_threads),
                                           ThreadPool::Priority::kIdle);
  state_.lazyfree = lazyfree_.get();
  network_io_ = std::make_unique<ThreadPool>(1);
  state_.network_io = network_io_.get();
  shards_ = std::make_unique<ShardSet>(size_t(n), &state_);
  if (config.cluster_enabled && !map_file && !ListenNodes(n, error)) return false;
  shared_.main_cluster_port = map_file ? state_.bound_port : 0;
  dispatcher_ = std::make_unique<Dispatcher>(table_, *shards_, state_);
  scripts_ = std::make_unique<ScriptRegistry>(*shards_, state_, table_);
  state_.scripts = scripts_.get();
  shared_.shards = shards_.get();
  shared_.dispatcher = dispatcher_.get();
  replica_link_ = std::make_unique<ReplicaLink>(*shards_, state_, *dispatcher_);
  state_.replication.link_thread = replica_link_.get();
  shared_.server = &state_;
  if (!LoadData(error)) return false;

  if (!StartReactors(engine, error)) {
    if (engine != IoEngine::kUring) return false;
    // io_uring is missing (an old kernel, or a seccomp profile that blocks it, as
    // container runtimes do): epoll serves the same clients, somewhat slower.
    Log(LogLevel::kWarning, "io_uring unavailable (", *error, "), using the epoll io engine");
    error->clear();
    engine = IoEngine::kEpoll;
    if (!StartReactors(engine, error)) return false;
  }
  if (state_.config.appendonly.get() && !StartLog(error)) {
    state_.RequestShutdown();
    Wait();
    return false;
  }
  std::string target;  // the file's `replicaof host port` (checked when it was read)
  {
    // The reactors run: REPLICAOF may change it already.
    std::lock_guard<std::mutex> lock(state_.config_mu);
    target = state_.config.replicaof;
  }
  if (!target.empty()) {
    const size_t space = target.find(' ');
    const std::string host = target.substr(0, space);
    const int port = std::atoi(target.c_str() + space + 1);
    {
      std::lock_guard<std::mutex> lock(state_.replication.mu);
      state_.replication.master_host = host;
      state_.replication.master_port = port;
    }
    state_.replication.link.store(LinkState::kConnect);
    state_.replication.replica.store(true);
    replica_link_->Follow(host, port);
  }
  Log(LogLevel::kNotice, "ringcache 0.1.0 started: threads=", n, " io=", IoEngineName(engine),
      " bind=", state_.config.bind, " port=", state_.bound_port, " pid=", getpid());
  if (state_.config.metrics_port > 0) {
    metrics_ = std::make_unique<MetricsServer>(*shards_, state_, table_);
    if (!metrics_->Start(FirstBound(), state_.config.metrics_port, error)) {
      state_.RequestShutdown();
      Wait();
      return false;
    }
    Log(LogLevel::kNotice, "Metrics on http://", FirstBound(), ":", metrics_->port(),
        "/metrics");
  }
  for (size_t i = 0; i < node_ports_.size(); ++i) {
    Log(LogLevel::kNotice, "Cluster node of thread ", i, " on port ", node_ports_[i]);
  }
  Log(LogLevel::kNotice, "Ready to accept connections tcp port=", state_.bound_port);
  return true;
}

bool Server::StartReactors(IoEngine engine, std::string* error) {
  size_t n = listen_fds_.size();
  std::unique_ptr<RemoteWaker> waker;
  if (engine == IoEngine::kUring) {
    auto uring_waker = std::make_unique<UringRemoteWaker>();
    if (!uring_waker->Init(error)) return false;
    waker = std::move(uring_waker);
  } else {
    waker = std::make_unique<EpollRemoteWaker>();
  }
  {
    std::lock_guard<std::mutex> lock(wake_mu_);
    remote_waker_ = std::move(waker);
  }
  // What runs, for CONFIG GET io-engine and INFO; written before any reactor thread
  // exists, never after.
  state_.config.io_engine = std::string(IoEngineName(engine));
  shared_.wake_fds.assign(n, -1);
  for (size_t i = 0; i < n; ++i) {
    if (engine == IoEngine::kUring) {
      reactors_.push_back(std::make_unique<UringReactor>(uint32_t(i), listen_fds_[i], shared_));
    } else {
      reactors_.push_back(std::make_unique<EpollReactor>(uint32_t(i), listen_fds_[i], shared_));
    }
    if (i < node_listen_fds_.size())
      reactors_[i]->SetNodeListener(node_listen_fds_[i], node_ports_[i]);
  }

  // Each engine is set up on its own thread (a ring has a single issuer); all must exist
  // before any reactor can wake another.
  engines_ready_ = std::make_unique<std::latch>(n + 1);
  init_errors_.assign(n, std::string());
  for (size_t i = 0; i < n; ++i) {
    threads_.emplace_back([this, i] {
      Reactor& r = *reactors_[i];
      bool ok = r.Init(&init_errors_[i]);
      shared_.wake_fds[i] = ok ? r.wake_fd() : -1;
      engines_ready_->arrive_and_wait();
      bool all_ok = true;
      for (int fd : shared_.wake_fds) all_ok &= fd >= 0;
      if (all_ok) r.Run();
    });
  }
  engines_ready_->arrive_and_wait();
  for (const auto& e : init_errors_) {
    if (!e.empty()) {
      *error = e;
      Wait();
      {
        std::lock_guard<std::mutex> lock(wake_mu_);
        remote_waker_.reset();
      }
      reactors_.clear();
      return false;
    }
  }
  return true;
}

bool Server::StartLog(std::string* error) {
  const int64_t start_ns = MonotonicNanos();
  if (!aof_replay_.empty()) {
    if (!ReplayAofFiles(*shards_, state_, *dispatcher_, aof_replay_, error)) return false;
    char seconds[32];
    std::snprintf(seconds, sizeof(seconds), "%.3f", double(MonotonicNanos() - start_ns) / 1e9);
    Log(LogLevel::kNotice, "DB loaded from append only file: ", seconds, " seconds");
  }
  if (!AofStart(*shards_, state_, error)) return false;
  // What was loaded is on disk already: no change to save yet.
  state_.persist.dirty_at_save.store(DirtySum(*shards_));
  state_.persist.aof_loading.store(false, std::memory_order_release);
  WakeAll();
  return true;
}

bool Server::LoadData(std::string* error) {
  state_.memory.startup.store(UsedMemory(), std::memory_order_relaxed);
  Config& config = state_.config;
  if (config.dir.empty()) {
    char cwd[PATH_MAX];
    config.dir = ::getcwd(cwd, sizeof(cwd)) != nullptr ? cwd : ".";
  }
  state_.persist.lastsave_unix.store(state_.clock->NowUnixMillis() / 1000);
  if (config.appendonly.get()) {
    // As Redis: with the log on, it alone says what the data is; the RDB file is not read.
    // The workers wait for its replay before letting clients in (StartLog).
    state_.persist.aof_loading.store(true);
    return AofLoadBase(*shards_, state_, &aof_replay_, error);
  }
  const std::string path = StrCat(config.dir, "/", config.dbfilename);
  const int64_t start_ns = MonotonicNanos();
  LoadStats stats;
  if (!LoadRdbFile(path, *shards_, state_, &stats, error)) return false;
  if (!stats.found) return true;
  state_.persist.dirty_at_save.store(DirtySum(*shards_));
  state_.persist.loaded_keys.store(stats.keys);
  state_.persist.loaded_expired.store(stats.expired);
  Log(LogLevel::kNotice, "Done loading RDB, keys loaded: ", stats.keys,
      ", keys expired: ", stats.expired, ".");
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%.3f", double(MonotonicNanos() - start_ns) / 1e9);
  Log(LogLevel::kNotice, "DB loaded from disk: ", seconds, " seconds");
  return true;
}

void Server::AbandonSave() {
  PersistState& persist = state_.persist;
  std::function<void()> abandon;
  {
    std::lock_guard<std::mutex> lock(persist.abandon_mu);
    abandon = std::move(persist.abandon);
  }
  if (abandon) abandon();
  // The writer's thread uses this server's state until it reports: wait for it.
  for (int i = 0; i < 5000 && persist.saving.load(); ++i) usleep(1000);
}

void Server::StopOnSignal() {
  ShardSet* shards = shards_.get();
  ServerState* state = &state_;
  std::vector<Message> batch;
  batch.emplace_back([shards, state] {
    if (!SavePointsSet(*state)) return state->RequestShutdown();
    SaveThenShutdown(shards->thread(0), *shards, *state, /*force=*/false, nullptr);
  });
  shards_->thread(0).inbox().PushBatch(&batch);
  WakeAll();
}

void Server::WakeAll() {
  std::lock_guard<std::mutex> lock(wake_mu_);
  if (remote_waker_) remote_waker_->WakeAll(shared_.wake_fds);
}

void Server::Wait() {
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
  if (shards_ != nullptr) AofStop(*shards_, state_);
  AbandonSave();
  if (metrics_ != nullptr) metrics_->Stop();
  // No reactor is left to submit: a MIGRATE under way ends (its timeouts bound it) and
  // posts to an inbox nobody drains.
  state_.network_io = nullptr;
  network_io_.reset();
  state_.replication.link_thread = nullptr;
  replica_link_.reset();
}

}  // namespace rc::net
