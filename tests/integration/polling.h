// Helpers for tests that wait for what the server does on its own (keys expiring,
// messages being delivered): poll a condition until a generous deadline instead of
// sleeping a fixed time, so a fast run stays fast and a sanitizer run (3-10x slower, two
// cores in CI) does not flake. Header-only: the suite's CMake globs *_test.cc files.

#ifndef RINGCACHE_TESTS_INTEGRATION_POLLING_H_
#define RINGCACHE_TESTS_INTEGRATION_POLLING_H_

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>

#include "tests/integration/server_process.h"

namespace rc::it {

// Upper bound for anything that should happen "soon" (an expired key vanishing, a
// message arriving). Only a failing test waits this long.
inline constexpr milliseconds kEventually{30000};

// Calls `pred` every `step` until it returns true (then true) or `timeout` passed (then
// false, after one last try).
template <typename Pred>
bool PollUntil(Pred pred, milliseconds timeout = kEventually, milliseconds step = milliseconds(2)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (pred()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return pred();
    std::this_thread::sleep_for(step);
  }
}

// Unix time in milliseconds from this machine's clock (the servers run on it too).
inline int64_t NowUnixMs() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The value of an integer reply (":42" -> 42), or INT64_MIN for any other reply.
inline int64_t AsInt(const std::string& canon) {
  if (canon.size() < 2 || canon[0] != ':') return INT64_MIN;
  return std::strtoll(canon.c_str() + 1, nullptr, 10);
}
inline int64_t IntCmd(Client& c, const Args& cmd) { return AsInt(c.Cmd(cmd)); }

// "field:value" lines of an INFO reply (all sections asked for with `section`).
inline std::map<std::string, std::string> InfoFields(Client& c, const std::string& section) {
  std::map<std::string, std::string> out;
  Client::ReplyPtr r = c.RawCmd({"INFO", section});
  if (!r || r->type != REDIS_REPLY_STRING) return out;
  std::string text(r->str, r->len);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find("\r\n", pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    size_t colon = line.find(':');
    if (!line.empty() && line[0] != '#' && colon != std::string::npos) {
      out[line.substr(0, colon)] = line.substr(colon + 1);
    }
    pos = end + 2;
  }
  return out;
}

// An integer INFO field ("expired_keys" of "stats"); -1 when absent.
inline int64_t InfoInt(Client& c, const std::string& section, const std::string& field) {
  auto fields = InfoFields(c, section);
  auto it = fields.find(field);
  return it == fields.end() ? -1 : std::strtoll(it->second.c_str(), nullptr, 10);
}

// INFO keyspace's db0 line split into keys / expires / avg_ttl; empty when there is no
// db0 line (an empty keyspace).
inline std::map<std::string, int64_t> KeyspaceDb0(Client& c) {
  std::map<std::string, int64_t> out;
  auto fields = InfoFields(c, "keyspace");
  auto it = fields.find("db0");
  if (it == fields.end()) return out;
  const std::string& v = it->second;  // keys=3,expires=1,avg_ttl=1234
  size_t pos = 0;
  while (pos < v.size()) {
    size_t comma = v.find(',', pos);
    if (comma == std::string::npos) comma = v.size();
    std::string item = v.substr(pos, comma - pos);
    size_t eq = item.find('=');
    if (eq != std::string::npos) {
      out[item.substr(0, eq)] = std::strtoll(item.c_str() + eq + 1, nullptr, 10);
    }
    pos = comma + 1;
  }
  return out;
}

}  // namespace rc::it

#endif  // RINGCACHE_TESTS_INTEGRATION_POLLING_H_
