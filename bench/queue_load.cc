// The job-queue workload of issue 15 against one server, with a checker: producers push
// jobs (pipelined) onto --queues queues, consumers pop them with a blocking pop, and every
// job is counted when it comes out. Two phases:
//
//   throughput  --producers connections keep --pipeline LPUSH (or ZADD) in flight for
//               --seconds; --consumers connections each wait on their share of the
//               queues (queue q belongs to consumer q % consumers) with BRPOP (BZPOPMIN)
//               and a 1 s timeout;
//               then producers stop and consumers drain. Jobs/s counts jobs consumed
//               while producers ran.
//   wake-up     every consumer blocked on empty queues; one connection pushes --samples
//               single jobs (not pipelined), each carrying its send time, onto a random
//               queue; a consumer's receive time minus it is a blocked consumer's wake-up
//               latency (same host, CLOCK_MONOTONIC on both ends).
//
//   queue_load --port 6379 --queues 100 --producers 10 --consumers 40 --pipeline 16
//              --seconds 5 [--zset] [--tagged] [--samples 2000]
//
// Prints one line of key=value pairs: jobs, jobs_per_sec, lost, duplicated, and the
// wake-up latency p50/p99/max in microseconds. Exit status 1 on an error, or when a job
// was lost or duplicated.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int port = 6379;
  int queues = 100;
  int producers = 10;
  int consumers = 40;
  int pipeline = 16;
  double seconds = 5;
  int samples = 2000;
  bool zset = false;  // ZADD / BZPOPMIN instead of LPUSH / BRPOP
  // Each consumer's queues under one hash tag, so they share a shard (as Redis Cluster
  // requires of a multi-key BRPOP); else named queue:<n>, spread over every shard.
  bool tagged = false;
};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "queue_load: %s\n", why.c_str());
  std::exit(1);
}

std::string Encode(const std::vector<std::string>& args) {
  std::string out;
  out.append("*").append(std::to_string(args.size())).append("\r\n");
  for (const std::string& a : args) {
    out.append("$").append(std::to_string(a.size())).append("\r\n").append(a).append("\r\n");
  }
  return out;
}

// One blocking connection with just enough of a RESP reader for this workload: integers,
// nulls, bulk strings and flat arrays of them.
class Conn {
 public:
  explicit Conn(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(uint16_t(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) Die("connect");
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  ~Conn() { ::close(fd_); }

  void Send(const std::string& bytes) {
    for (size_t off = 0; off < bytes.size();) {
      ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n <= 0) Die("send");
      off += size_t(n);
    }
  }
  // A reply as its string elements: {} for a null, {":5"} for an integer, the items of
  // an array (nested arrays flattened), {"-ERR ..."} for an error.
  std::vector<std::string> Reply() {
    std::vector<std::string> out;
    Read(&out);
    return out;
  }

 private:
  std::string Line() {
    for (;;) {
      size_t end = buf_.find("\r\n", pos_);
      if (end != std::string::npos) {
        std::string line = buf_.substr(pos_, end - pos_);
        pos_ = end + 2;
        return line;
      }
      Fill();
    }
  }
  void Fill() {
    if (pos_ > 0) {
      buf_.erase(0, pos_);
      pos_ = 0;
    }
    char tmp[65536];
    ssize_t n = ::recv(fd_, tmp, sizeof(tmp), 0);
    if (n <= 0) Die("connection closed");
    buf_.append(tmp, size_t(n));
  }
  void Read(std::vector<std::string>* out) {
    std::string line = Line();
    if (line.empty()) Die("empty reply line");
    const long n = std::strtol(line.c_str() + 1, nullptr, 10);
    switch (line[0]) {
      case ':':
      case '+':
      case '-':
        out->push_back(line);
        return;
      case '_':
        return;
      case ',':
        out->push_back(line.substr(1));
        return;
      case '$': {
        if (n < 0) return;
        while (buf_.size() - pos_ < size_t(n) + 2) Fill();
        out->push_back(buf_.substr(pos_, size_t(n)));
        pos_ += size_t(n) + 2;
        return;
      }
      case '*':
        for (long i = 0; i < n; ++i) Read(out);
        return;
      default:
        Die("unexpected reply: " + line);
    }
  }

  int fd_ = -1;
  std::string buf_;
  size_t pos_ = 0;
};

int g_consumers = 1;
bool g_tagged = false;

// Queue q is consumer (q % consumers)'s.
std::string Queue(int q) {
  if (!g_tagged) return "queue:" + std::to_string(q);
  return "{c" + std::to_string(q % g_consumers) + "}:queue:" + std::to_string(q);
}

// A job is "<producer>:<seq>:<send ns>"; ids are producer << 32 | seq.
uint64_t JobId(std::string_view job, int64_t* sent_ns) {
  const char* p = job.data();
  char* end;
  const uint64_t producer = std::strtoull(p, &end, 10);
  const uint64_t seq = std::strtoull(end + 1, &end, 10);
  *sent_ns = std::strtoll(end + 1, nullptr, 10);
  return producer << 32 | seq;
}

struct Shared {
  Options opt;
  std::atomic<bool> producing{true};
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> produced{0};
  std::atomic<uint64_t> consumed{0};
  std::atomic<uint64_t> consumed_while_producing{0};
  std::mutex mu;
  std::vector<uint64_t> ids;          // every job consumed (guarded by mu, merged at the end)
  std::vector<int64_t> latencies_ns;  // wake-up phase
  std::atomic<bool> measuring_latency{false};
};

std::string PushCommand(const Options& opt, int q, const std::string& job) {
  if (opt.zset) return Encode({"ZADD", Queue(q), "0", job});
  return Encode({"LPUSH", Queue(q), job});
}

void Producer(Shared& s, int id) {
  Conn c(s.opt.port);
  std::mt19937 rng(uint32_t(id) * 7919u + 1);
  uint64_t seq = 0;
  while (s.producing.load(std::memory_order_relaxed)) {
    std::string batch;
    for (int i = 0; i < s.opt.pipeline; ++i) {
      const int q = int(rng() % uint32_t(s.opt.queues));
      batch += PushCommand(
          s.opt, q,
          std::to_string(id) + ":" + std::to_string(seq++) + ":" + std::to_string(NowNs()));
    }
    c.Send(batch);
    for (int i = 0; i < s.opt.pipeline; ++i) {
      std::vector<std::string> r = c.Reply();
      if (r.size() != 1 || r[0][0] != ':') Die("push failed: " + (r.empty() ? "" : r[0]));
    }
    s.produced.fetch_add(uint64_t(s.opt.pipeline));
  }
}

void Consumer(Shared& s, int id) {
  Conn c(s.opt.port);
  std::vector<std::string> cmd = {s.opt.zset ? "BZPOPMIN" : "BRPOP"};
  for (int q = id; q < s.opt.queues; q += s.opt.consumers) cmd.push_back(Queue(q));
  if (cmd.size() == 1) return;  // more consumers than queues: nothing of its own
  cmd.push_back("1");
  const std::string bytes = Encode(cmd);
  std::vector<uint64_t> mine;
  std::vector<int64_t> latencies;
  while (!s.stop.load(std::memory_order_relaxed)) {
    c.Send(bytes);
    std::vector<std::string> r = c.Reply();
    const int64_t now = NowNs();
    if (r.empty()) continue;  // timed out
    if (r.size() < 2) Die("pop failed: " + r[0]);
    int64_t sent = 0;
    mine.push_back(JobId(r[1], &sent));
    if (s.producing.load(std::memory_order_relaxed)) {
      s.consumed_while_producing.fetch_add(1, std::memory_order_relaxed);
    }
    s.consumed.fetch_add(1, std::memory_order_relaxed);
    if (s.measuring_latency.load(std::memory_order_relaxed)) {
      latencies.push_back(now - sent);
    }
  }
  std::lock_guard<std::mutex> lock(s.mu);
  s.ids.insert(s.ids.end(), mine.begin(), mine.end());
  s.latencies_ns.insert(s.latencies_ns.end(), latencies.begin(), latencies.end());
}

void WaitFor(const std::function<bool()>& done, double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (!done() && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

int64_t Percentile(std::vector<int64_t>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  Shared s;
  Options& o = s.opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] {
      if (i + 1 >= argc) Die("missing value for " + a);
      return std::string(argv[++i]);
    };
    if (a == "--port") {
      o.port = std::stoi(next());
    } else if (a == "--queues") {
      o.queues = std::stoi(next());
    } else if (a == "--producers") {
      o.producers = std::stoi(next());
    } else if (a == "--consumers") {
      o.consumers = std::stoi(next());
    } else if (a == "--pipeline") {
      o.pipeline = std::stoi(next());
    } else if (a == "--seconds") {
      o.seconds = std::stod(next());
    } else if (a == "--samples") {
      o.samples = std::stoi(next());
    } else if (a == "--zset") {
      o.zset = true;
    } else if (a == "--tagged") {
      o.tagged = true;
    } else {
      Die("unknown option " + a);
    }
  }
  g_consumers = o.consumers;
  g_tagged = o.tagged;
  {
    Conn c(o.port);
    c.Send(Encode({"FLUSHALL"}));
    c.Reply();
  }
  std::vector<std::thread> consumers, producers;
  for (int i = 0; i < o.consumers; ++i) consumers.emplace_back(Consumer, std::ref(s), i);
  const auto start = Clock::now();
  for (int i = 0; i < o.producers; ++i) producers.emplace_back(Producer, std::ref(s), i);
  std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds));
  s.producing.store(false);
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  for (std::thread& t : producers) t.join();
  WaitFor([&] { return s.consumed.load() >= s.produced.load(); }, 30);
  const uint64_t throughput_jobs = s.consumed_while_producing.load();

  // Wake-up phase: the queues are empty and every consumer waits.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  s.measuring_latency.store(true);
  const uint64_t before = s.consumed.load();
  {
    Conn c(o.port);
    std::mt19937 rng(12345);
    const int producer_id = o.producers;  // ids of its own
    for (int i = 0; i < o.samples; ++i) {
      const int q = int(rng() % uint32_t(o.queues));
      c.Send(PushCommand(
          o, q,
          std::to_string(producer_id) + ":" + std::to_string(i) + ":" + std::to_string(NowNs())));
      c.Reply();
      s.produced.fetch_add(1);
      // Let the consumer take it (and block again) before the next one.
      WaitFor([&] { return s.consumed.load() >= before + uint64_t(i) + 1; }, 5);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  WaitFor([&] { return s.consumed.load() >= s.produced.load(); }, 30);
  s.stop.store(true);
  for (std::thread& t : consumers) t.join();

  std::sort(s.ids.begin(), s.ids.end());
  uint64_t duplicated = 0;
  for (size_t i = 1; i < s.ids.size(); ++i) duplicated += s.ids[i] == s.ids[i - 1];
  const uint64_t distinct = s.ids.size() - duplicated;
  const uint64_t produced = s.produced.load();
  const uint64_t lost = produced > distinct ? produced - distinct : 0;
  std::vector<int64_t>& lat = s.latencies_ns;
  const int64_t p50 = Percentile(lat, 0.50), p99 = Percentile(lat, 0.99);
  const int64_t max = lat.empty() ? 0 : lat.back();
  std::printf(
      "jobs=%llu seconds=%.2f jobs_per_sec=%.0f produced=%llu consumed=%llu lost=%llu "
      "duplicated=%llu wakeup_samples=%zu wakeup_p50_us=%.1f wakeup_p99_us=%.1f "
      "wakeup_max_us=%.1f\n",
      (unsigned long long)throughput_jobs, elapsed, double(throughput_jobs) / elapsed,
      (unsigned long long)produced, (unsigned long long)s.ids.size(), (unsigned long long)lost,
      (unsigned long long)duplicated, lat.size(), double(p50) / 1e3, double(p99) / 1e3,
      double(max) / 1e3);
  return lost == 0 && duplicated == 0 ? 0 : 1;
}
