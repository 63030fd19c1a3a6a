// A memtier-style load generator (memtier_benchmark is not packaged for Debian): client
// threads, each driving its share of the connections with epoll, every connection keeping
// one pipeline of --pipeline requests in flight. Keys are random over --keys (or new and
// sequential with --new-keys), SET:GET in the --ratio given, values of --value-size bytes.
//
//   loadgen --port 6379 --threads 2 --conns 50 --pipeline 16 --keys 100000 --ratio 1:10
//           --seconds 10 [--per-second]
//
// --cluster: a cluster-aware client. It reads CLUSTER SLOTS from --port, spreads its
// connections over the nodes, and sends each connection only keys of its node's slots
// (random keys drawn until one lands there; --new-keys walks each node's keys in order),
// as redis-py's RedisCluster or memtier --cluster-mode route by slot.
//
// Prints one summary line (requests, seconds, req/s, mean and max pipeline latency) and,
// with --per-second, one line per second: req/s, and that second's mean and max latency
// of a pipeline round trip. Exit status 1 on a protocol or connection error.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/key_slot.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int port = 6379;
  int threads = 1;
  int conns = 50;
  int pipeline = 1;
  uint64_t keys = 100000;
  int sets = 1, gets = 10;
  int value_size = 32;
  double seconds = 10;
  uint64_t requests = 0;  // stop after this many in all (0: run for --seconds)
  bool new_keys = false;  // SET only, each key new: key:<n> for n = 0, 1, 2, ...
  bool per_second = false;
  bool cluster = false;
};

// Per second of the run, summed over threads.
struct Second {
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> rounds{0};
  std::atomic<uint64_t> latency_ns{0};
  std::atomic<uint64_t> max_ns{0};
};

struct Shared {
  Options opt;
  Clock::time_point start;
  std::atomic<uint64_t> issued{0};  // requests handed out (for --requests / --new-keys)
  std::atomic<bool> stop{false};
  std::atomic<bool> failed{false};
  std::vector<Second> seconds;
  // --cluster: each slot's node (index into node_ports), and per node the next key number
  // --new-keys has not looked at yet.
  std::vector<int> node_ports;
  std::vector<uint16_t> slot_node;
  std::unique_ptr<std::atomic<uint64_t>[]> node_next;
};

struct Conn {
  int fd = -1;
  std::string out;
  size_t out_off = 0;
  std::string in;
  int expect = 0;  // replies still owed for the pipeline in flight
  Clock::time_point sent;
  int node = 0;  // --cluster: the node it talks to
};

void AppendCommand(std::string* out, std::initializer_list<std::string_view> args) {
  *out += '*' + std::to_string(args.size()) + "\r\n";
  for (std::string_view a : args) {
    *out += '$' + std::to_string(a.size()) + "\r\n";
    out->append(a);
    *out += "\r\n";
  }
}

// Consumes one complete reply of the kinds GET and SET produce; returns bytes used, 0
// when incomplete, -1 on an error reply or garbage.
long ParseReply(std::string_view s) {
  if (s.empty()) return 0;
  size_t eol = s.find("\r\n");
  if (eol == std::string_view::npos) return 0;
  switch (s[0]) {
    case '+':
    case ':':
      return long(eol + 2);
    case '$': {
      long len = std::strtol(std::string(s.substr(1, eol - 1)).c_str(), nullptr, 10);
      if (len < 0) return long(eol + 2);
      size_t need = eol + 2 + size_t(len) + 2;
      return s.size() >= need ? long(need) : 0;
    }
    default:
      std::fprintf(stderr, "loadgen: unexpected reply: %.*s\n", int(eol), s.data());
      return -1;
  }
}

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::perror("loadgen: connect");
    std::exit(1);
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// Reads one reply of CLUSTER SLOTS from `in` at *pos into `ranges` (first, last, port);
// false when more bytes are needed.
bool ParseSlots(const std::string& in, size_t* pos, int depth, std::vector<int64_t>* ints) {
  size_t eol = in.find("\r\n", *pos);
  if (eol == std::string::npos) return false;
  const char kind = in[*pos];
  const int64_t n = std::strtoll(in.substr(*pos + 1, eol - *pos - 1).c_str(), nullptr, 10);
  *pos = eol + 2;
  if (kind == ':') {
    // Start and end (depth 2), then the port of each node (depth 3).
    if (depth == 2 || depth == 3) ints->push_back(n);
    return true;
  }
  if (kind == '$') {
    if (n < 0) return true;
    if (in.size() < *pos + size_t(n) + 2) return false;
    *pos += size_t(n) + 2;
    return true;
  }
  if (kind == '*' || kind == '%') {
    const int64_t items = kind == '%' ? 2 * n : n;
    if (depth == 1) ints->push_back(-1);  // a new range starts
    for (int64_t i = 0; i < items; ++i) {
      if (!ParseSlots(in, pos, depth + 1, ints)) return false;
    }
    return true;
  }
  std::fprintf(stderr, "loadgen: CLUSTER SLOTS answered %s\n", in.c_str());
  std::exit(1);
}

// --cluster: asks --port for the slot map.
void LoadSlots(Shared& s) {
  int fd = Connect(s.opt.port);
  const std::string ask = "*2\r\n$7\r\nCLUSTER\r\n$5\r\nSLOTS\r\n";
  if (send(fd, ask.data(), ask.size(), 0) != ssize_t(ask.size())) std::exit(1);
  std::string in;
  std::vector<int64_t> ints;
  char buf[65536];
  for (;;) {
    ssize_t got = recv(fd, buf, sizeof buf, 0);
    if (got <= 0) std::exit(1);
    in.append(buf, size_t(got));
    size_t pos = 0;
    ints.clear();
    if (ParseSlots(in, &pos, 0, &ints)) break;
  }
  close(fd);
  s.slot_node.assign(rc::kNumKeySlots, 0);
  // ints: -1 first last port [-1 first last port ...] (replicas' ports would follow).
  for (size_t i = 0; i + 3 < ints.size(); ++i) {
    if (ints[i] != -1) continue;
    const int port = int(ints[i + 3]);
    auto it = std::find(s.node_ports.begin(), s.node_ports.end(), port);
    if (it == s.node_ports.end()) it = s.node_ports.insert(s.node_ports.end(), port);
    for (int64_t slot = ints[i + 1]; slot <= ints[i + 2]; ++slot) {
      s.slot_node[size_t(slot)] = uint16_t(it - s.node_ports.begin());
    }
  }
  if (s.node_ports.empty()) {
    std::fprintf(stderr, "loadgen: CLUSTER SLOTS listed no node\n");
    std::exit(1);
  }
  s.node_next = std::make_unique<std::atomic<uint64_t>[]>(s.node_ports.size());
}

class Worker {
 public:
  Worker(Shared& shared, int conns, int first_conn, uint64_t seed)
      : s_(shared), rng_(seed), value_(size_t(shared.opt.value_size), 'v') {
    ep_ = epoll_create1(0);
    conns_.resize(size_t(conns));
    for (Conn& c : conns_) {
      int port = s_.opt.port;
      if (s_.opt.cluster) {
        c.node = first_conn++ % int(s_.node_ports.size());
        port = s_.node_ports[size_t(c.node)];
      }
      c.fd = Connect(port);
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.ptr = &c;
      epoll_ctl(ep_, EPOLL_CTL_ADD, c.fd, &ev);
    }
  }
  ~Worker() {
    for (Conn& c : conns_) close(c.fd);
    close(ep_);
  }

  void Run() {
    for (Conn& c : conns_) SendRound(c);
    std::vector<epoll_event> events(conns_.size());
    char buf[1 << 16];
    while (!s_.stop.load(std::memory_order_relaxed)) {
      int n = epoll_wait(ep_, events.data(), int(events.size()), 100);
      for (int i = 0; i < n; ++i) {
        Conn& c = *static_cast<Conn*>(events[i].data.ptr);
        if (events[i].events & EPOLLOUT) Flush(c);
        if (!(events[i].events & EPOLLIN)) continue;
        ssize_t got = recv(c.fd, buf, sizeof buf, 0);
        if (got <= 0) return Fail("connection closed by the server");
        c.in.append(buf, size_t(got));
        size_t off = 0;
        while (c.expect > 0) {
          long used = ParseReply(std::string_view(c.in).substr(off));
          if (used < 0) return Fail("bad reply");
          if (used == 0) break;
          off += size_t(used);
          --c.expect;
        }
        c.in.erase(0, off);
        if (c.expect == 0) {
          Finished(c);
          if (!SendRound(c)) return;
        }
      }
    }
  }

 private:
  void Fail(const char* why) {
    std::fprintf(stderr, "loadgen: %s\n", why);
    s_.failed = true;
    s_.stop = true;
  }

  void Finished(Conn& c) {
    Clock::time_point now = Clock::now();
    auto ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(now - c.sent).count());
    size_t sec = size_t(std::chrono::duration_cast<std::chrono::seconds>(now - s_.start).count());
    if (sec >= s_.seconds.size()) return;
    Second& b = s_.seconds[sec];
    b.requests.fetch_add(uint64_t(s_.opt.pipeline), std::memory_order_relaxed);
    b.rounds.fetch_add(1, std::memory_order_relaxed);
    b.latency_ns.fetch_add(ns, std::memory_order_relaxed);
    uint64_t prev = b.max_ns.load(std::memory_order_relaxed);
    while (ns > prev && !b.max_ns.compare_exchange_weak(prev, ns)) {
    }
  }

  // Starts the next pipeline on `c`; false once the run is over.
  bool SendRound(Conn& c) {
    const Options& o = s_.opt;
    if (Clock::now() - s_.start >= std::chrono::duration<double>(o.seconds)) {
      s_.stop = true;
      return false;
    }
    uint64_t first = s_.issued.fetch_add(uint64_t(o.pipeline), std::memory_order_relaxed);
    if (o.requests > 0 && first >= o.requests) {
      s_.stop = true;
      return false;
    }
    c.out.clear();
    c.out_off = 0;
    char key[32];
    for (int i = 0; i < o.pipeline; ++i) {
      uint64_t k = o.new_keys ? first + uint64_t(i) : rng_() % o.keys;
      std::snprintf(key, sizeof key, "key:%012llu", static_cast<unsigned long long>(k));
      while (o.cluster && s_.slot_node[rc::KeySlot(key)] != c.node) {
        k = o.new_keys ? s_.node_next[size_t(c.node)].fetch_add(1, std::memory_order_relaxed)
                       : rng_() % o.keys;
        std::snprintf(key, sizeof key, "key:%012llu", static_cast<unsigned long long>(k));
      }
      bool set = o.new_keys || rng_() % uint64_t(o.sets + o.gets) < uint64_t(o.sets);
      if (set) {
        AppendCommand(&c.out, {"SET", key, value_});
      } else {
        AppendCommand(&c.out, {"GET", key});
      }
    }
    c.expect = o.pipeline;
    c.sent = Clock::now();
    Flush(c);
    return true;
  }

  void Flush(Conn& c) {
    while (c.out_off < c.out.size()) {
      ssize_t n = send(c.fd, c.out.data() + c.out_off, c.out.size() - c.out_off, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EAGAIN) break;
        return Fail("send failed");
      }
      c.out_off += size_t(n);
    }
    epoll_event ev{};
    ev.events = EPOLLIN | (c.out_off < c.out.size() ? uint32_t(EPOLLOUT) : 0u);
    ev.data.ptr = &c;
    epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &ev);
  }

  Shared& s_;
  std::mt19937_64 rng_;
  std::string value_;
  int ep_;
  std::vector<Conn> conns_;
};

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--port") {
      o->port = std::atoi(next());
    } else if (a == "--threads") {
      o->threads = std::max(1, std::atoi(next()));
    } else if (a == "--conns") {
      o->conns = std::max(1, std::atoi(next()));
    } else if (a == "--pipeline") {
      o->pipeline = std::max(1, std::atoi(next()));
    } else if (a == "--keys") {
      o->keys = std::max<uint64_t>(1, std::strtoull(next(), nullptr, 10));
    } else if (a == "--ratio") {
      if (std::sscanf(next(), "%d:%d", &o->sets, &o->gets) != 2 || o->sets + o->gets <= 0) {
        return false;
      }
    } else if (a == "--value-size") {
      o->value_size = std::atoi(next());
    } else if (a == "--seconds") {
      o->seconds = std::atof(next());
    } else if (a == "--requests") {
      o->requests = std::strtoull(next(), nullptr, 10);
    } else if (a == "--new-keys") {
      o->new_keys = true;
    } else if (a == "--per-second") {
      o->per_second = true;
    } else if (a == "--cluster") {
      o->cluster = true;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Shared s;
  if (!ParseArgs(argc, argv, &s.opt)) {
    std::fprintf(stderr,
                 "usage: loadgen [--port N] [--threads N] [--conns N] [--pipeline N] "
                 "[--keys N] [--ratio SETS:GETS] [--value-size N] [--seconds S] "
                 "[--requests N] [--new-keys] [--per-second] [--cluster]\n");
    return 2;
  }
  const Options& o = s.opt;
  s.seconds = std::vector<Second>(size_t(o.seconds) + 2);
  if (o.cluster) LoadSlots(s);
  std::vector<std::unique_ptr<Worker>> workers;
  int first_conn = 0;
  for (int t = 0; t < o.threads; ++t) {
    int conns = o.conns / o.threads + (t < o.conns % o.threads ? 1 : 0);
    if (conns > 0) {
      workers.push_back(std::make_unique<Worker>(s, conns, first_conn, 1234 + uint64_t(t)));
    }
    first_conn += conns;
  }
  s.start = Clock::now();
  std::vector<std::thread> threads;
  for (auto& w : workers) threads.emplace_back([&w] { w->Run(); });
  for (auto& t : threads) t.join();
  double elapsed = std::chrono::duration<double>(Clock::now() - s.start).count();

  uint64_t requests = 0, rounds = 0, latency = 0, max_ns = 0;
  for (size_t i = 0; i < s.seconds.size(); ++i) {
    const Second& b = s.seconds[i];
    requests += b.requests;
    rounds += b.rounds;
    latency += b.latency_ns;
    max_ns = std::max<uint64_t>(max_ns, b.max_ns);
    if (o.per_second && b.rounds > 0) {
      std::printf("second %zu %llu req/s mean %.3f ms max %.3f ms\n", i,
                  static_cast<unsigned long long>(b.requests.load()),
                  double(b.latency_ns) / double(b.rounds) / 1e6, double(b.max_ns) / 1e6);
    }
  }
  std::printf("requests %llu seconds %.3f rps %.0f mean_ms %.3f max_ms %.3f\n",
              static_cast<unsigned long long>(requests), elapsed, double(requests) / elapsed,
              rounds ? double(latency) / double(rounds) / 1e6 : 0.0, double(max_ns) / 1e6);
  return s.failed ? 1 : 0;
}
