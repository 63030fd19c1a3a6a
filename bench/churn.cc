// Cache-aside churn against one server, the load of bench/eviction.py at C++ speed (the
// Python client tops out near 400k requests/s, too slow to fill a 256 MB cache several
// times): GET a batch of keys in one pipeline, then SET the ones that missed. Keys are
// "k:" and 10 digits, Zipf(--alpha) over --universe ranks mapped to ids by the same
// scramble as eviction.py; values are 32 or 300 bytes, or mixed (one id in four 300 bytes,
// the rest 32). Seeded: one --seed draws one trace.
//
//   churn --port P --requests N [--universe 10000000] [--alpha 0.99] [--values mixed]
//         [--batch 200] [--seed 12]
//
// Prints one line: requests, GETs, hits, SETs, OOM replies, seconds, requests/s.

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bench/zipf.h"

namespace {

struct Options {
  int port = 6379;
  uint64_t requests = 1'000'000;
  uint64_t universe = 10'000'000;
  double alpha = 0.99;
  std::string values = "mixed";
  int batch = 200;
  uint64_t seed = 12;
};

[[noreturn]] void Die(const char* what) {
  std::perror(what);
  std::exit(1);
}

class Conn {
 public:
  explicit Conn(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) Die("connect");
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  void Send(std::string_view out) {
    while (!out.empty()) {
      ssize_t n = write(fd_, out.data(), out.size());
      if (n <= 0) Die("write");
      out.remove_prefix(size_t(n));
    }
  }
  // One reply's kind: 'n' for a null bulk, else its first byte ('$', '+', '-', ':').
  char Reply() {
    std::string_view line = Line();
    if (line[0] != '$') return line[0];
    long len = std::strtol(std::string(line.substr(1)).c_str(), nullptr, 10);
    if (len < 0) return 'n';
    Need(size_t(len) + 2);
    pos_ += size_t(len) + 2;
    return '$';
  }

 private:
  std::string_view Line() {
    for (;;) {
      const char* start = buf_.data() + pos_;
      const void* nl = std::memchr(start, '\n', buf_.size() - pos_);
      if (nl != nullptr) {
        size_t len = size_t(static_cast<const char*>(nl) - start);
        pos_ += len + 1;
        return std::string_view(start, len - 1);
      }
      Fill();
    }
  }
  void Need(size_t n) {
    while (buf_.size() - pos_ < n) Fill();
  }
  void Fill() {
    buf_.erase(0, pos_);
    pos_ = 0;
    char tmp[1 << 16];
    ssize_t n = read(fd_, tmp, sizeof(tmp));
    if (n <= 0) Die("read");
    buf_.append(tmp, size_t(n));
  }
  int fd_;
  std::string buf_;
  size_t pos_ = 0;
};

size_t ValueSize(uint64_t id, const std::string& mode) {
  if (mode == "mixed") return id % 4 == 0 ? 300 : 32;
  return size_t(std::atoi(mode.c_str()));
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string_view f = argv[i];
    const char* v = argv[i + 1];
    if (f == "--port") o.port = std::atoi(v);
    else if (f == "--requests") o.requests = std::strtoull(v, nullptr, 10);
    else if (f == "--universe") o.universe = std::strtoull(v, nullptr, 10);
    else if (f == "--alpha") o.alpha = std::atof(v);
    else if (f == "--values") o.values = v;
    else if (f == "--batch") o.batch = std::atoi(v);
    else if (f == "--seed") o.seed = std::strtoull(v, nullptr, 10);
    else {
      std::fprintf(stderr, "churn: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  Conn conn(o.port);
  rc::bench::Rng rng(o.seed);
  rc::bench::Zipf zipf(o.universe, o.alpha);
  const std::string value(300, 'v');
  uint64_t done = 0, hits = 0, sets = 0, ooms = 0;
  std::vector<uint64_t> ids(size_t(o.batch));
  std::string out;
  char key[16];
  auto key_of = [&](uint64_t id) {
    std::snprintf(key, sizeof(key), "k:%010llu", static_cast<unsigned long long>(id));
    return std::string_view(key, 12);
  };
  const auto t0 = std::chrono::steady_clock::now();
  while (done < o.requests) {
    out.clear();
    for (auto& id : ids) {
      id = ((zipf.Draw(rng) - 1) * 2654435761ULL) % o.universe;
      out += "*2\r\n$3\r\nGET\r\n$12\r\n";
      out += key_of(id);
      out += "\r\n";
    }
    conn.Send(out);
    out.clear();
    int misses = 0;
    for (uint64_t id : ids) {
      if (conn.Reply() != 'n') {
        ++hits;
        continue;
      }
      ++misses;
      const size_t n = ValueSize(id, o.values);
      out += "*3\r\n$3\r\nSET\r\n$12\r\n";
      out += key_of(id);
      out += "\r\n$" + std::to_string(n) + "\r\n";
      out.append(value, 0, n);
      out += "\r\n";
    }
    if (misses > 0) {
      conn.Send(out);
      for (int i = 0; i < misses; ++i) ooms += conn.Reply() == '-';
    }
    done += ids.size() + size_t(misses);
    sets += size_t(misses);
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("requests %llu gets %llu hits %llu sets %llu ooms %llu seconds %.2f rps %.0f\n",
              static_cast<unsigned long long>(done), static_cast<unsigned long long>(done - sets),
              static_cast<unsigned long long>(hits), static_cast<unsigned long long>(sets),
              static_cast<unsigned long long>(ooms), secs, double(done) / secs);
  return 0;
}
