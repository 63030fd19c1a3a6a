#include "tests/integration/shared_servers.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/integration/polling.h"

namespace rc::it {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

struct Entry {
  std::string key;  // what a test asks for: kind, thread count, flags
  std::unique_ptr<ServerProcess> server;
  std::string password;  // from --requirepass, for the janitor
  Settings start_settings;
  bool lent = false;
};

// gtest's main thread only (see the header).
std::vector<Entry>& Pool() {
  static std::vector<Entry> pool;
  return pool;
}

// Stops every idle server before gtest reports, so that an unclean exit fails the run
// (a static destructor would run after the result is out).
class StopAtEnd : public ::testing::Environment {
 public:
  void TearDown() override { Pool().clear(); }
};
const auto* const kStopAtEnd = ::testing::AddGlobalTestEnvironment(new StopAtEnd);

std::string PasswordIn(const Args& flags) {
  auto it = std::find(flags.begin(), flags.end(), "--requirepass");
  return it != flags.end() && it + 1 != flags.end() ? *(it + 1) : "";
}

Settings SettingsOf(const redisReply* r) {
  Settings out;
  std::vector<std::string> flat = Strings(r);
  for (size_t i = 0; i + 1 < flat.size(); i += 2) out.emplace_back(flat[i], flat[i + 1]);
  std::sort(out.begin(), out.end());
  return out;
}

// A logged-in connection for the pool's own commands; null if that fails. The last
// test's clients may still fill a --maxclients server: it waits for a place.
std::unique_ptr<Client> Janitor(const Entry& e, std::string* why) {
  const Args hello = e.password.empty() ? Args{"PING"} : Args{"AUTH", e.password};
  const std::string want = e.password.empty() ? "+PONG" : "+OK";
  std::unique_ptr<Client> c;
  std::string got;
  PollUntil([&] {
    c = Client::Connect(e.server->port(), why, milliseconds(10000));
    got = c ? c->Cmd(hello) : "";
    return got != "-ERR max number of clients reached";
  }, milliseconds(10000));
  if (c && got != want) {
    *why = absl::StrCat(Describe(hello), " -> ", got);
    return nullptr;
  }
  return c;
}

bool Quiet(Client& c) {
  auto clients = InfoFields(c, "clients");
  return clients["connected_clients"] == "1" && clients["blocked_clients"] == "0" &&
         c.Cmd({"PUBSUB", "NUMPAT"}) == ":0" && c.Cmd({"PUBSUB", "CHANNELS"}) == "*[]";
}

// Puts `e`'s server back in its start-up state (header); false with `*why` if it cannot.
bool Reset(const Entry& e, std::string* why) {
  std::unique_ptr<Client> c = Janitor(e, why);
  if (!c) return false;
  auto step = [&](const Args& cmd, const std::string& want) {
    std::string got = c->Cmd(cmd);
    if (got != want && !(want == ":" && got[0] == ':')) {
      *why = absl::StrCat(Describe(cmd), " -> ", got);
      return false;
    }
    return true;
  };
  if (!step({"CLIENT", "UNPAUSE"}, "+OK")) return false;
  // The test's clients closed their sockets; the server may not have seen it yet.
  if (!PollUntil([&] { return Quiet(*c); }, milliseconds(10000))) {
    *why = absl::StrCat("a client of the last test lingers: CLIENT LIST ",
                        c->Cmd({"CLIENT", "LIST"}), " PUBSUB CHANNELS ",
                        c->Cmd({"PUBSUB", "CHANNELS"}));
    return false;
  }
  if (!step({"FLUSHALL", "SYNC"}, "+OK") || !step({"SCRIPT", "FLUSH"}, "+OK") ||
      !step({"FUNCTION", "FLUSH"}, "+OK")) {
    return false;
  }
  // Values the last test handed to a lazy-free thread count in INFO once freed: not
  // after RESETSTAT.
  if (!PollUntil([&] { return InfoInt(*c, "memory", "lazyfree_pending_objects") == 0; },
                 milliseconds(10000))) {
    *why = "lazy frees still pending";
    return false;
  }
  Settings now = SettingsOf(c->RawCmd({"CONFIG", "GET", "*"}).get());
  if (now.size() != e.start_settings.size()) {
    *why = "CONFIG GET * lists other settings than at start";
    return false;
  }
  for (size_t i = 0; i < now.size(); ++i) {
    if (now[i] != e.start_settings[i] &&
        !step({"CONFIG", "SET", e.start_settings[i].first, e.start_settings[i].second}, "+OK")) {
      return false;
    }
  }
  if (!step({"SLOWLOG", "RESET"}, "+OK") || !step({"LATENCY", "RESET"}, ":") ||
      !step({"CONFIG", "RESETSTAT"}, "+OK")) {
    return false;
  }
  // Closed and seen closed: both servers unlink a client before they close its socket, so
  // the next test's first INFO counts its own connection only.
  ::shutdown(c->ctx()->fd, SHUT_WR);
  char buf[256];
  for (;;) {
    pollfd p{c->ctx()->fd, POLLIN, 0};
    if (poll(&p, 1, 10000) <= 0) {
      *why = "the janitor's connection was not closed";
      return false;
    }
    if (recv(c->ctx()->fd, buf, sizeof buf, 0) <= 0) return true;
  }
}

template <typename Start>
ServerRef Borrow(const std::string& key, const std::string& password, Start start,
                 std::string* error) {
  for (Entry& e : Pool()) {
    if (e.key == key && !e.lent) {
      e.lent = true;
      return ServerRef::Borrowed(e.server.get());
    }
  }
  std::unique_ptr<ServerProcess> server = start();
  if (!server) return ServerRef();
  if (SharedServers::FreshOnly()) {
    ServerRef own;
    own = std::move(server);
    return own;
  }
  Entry e{key, std::move(server), password, {}, true};
  {
    std::unique_ptr<Client> c = Janitor(e, error);
    if (!c) return ServerRef();
    e.start_settings = SettingsOf(c->RawCmd({"CONFIG", "GET", "*"}).get());
  }
  // Its first test starts as every later one does.
  if (!Reset(e, error)) return ServerRef();
  Pool().push_back(std::move(e));
  return ServerRef::Borrowed(Pool().back().server.get());
}

}  // namespace

ServerRef& ServerRef::operator=(std::unique_ptr<ServerProcess> own) {
  reset();
  own_ = std::move(own);
  return *this;
}

ServerRef ServerRef::Borrowed(ServerProcess* shared) {
  ServerRef r;
  r.shared_ = shared;
  return r;
}

ServerRef::ServerRef(ServerRef&& other) noexcept
    : own_(std::move(other.own_)), shared_(std::exchange(other.shared_, nullptr)) {}

ServerRef& ServerRef::operator=(ServerRef&& other) noexcept {
  if (this != &other) {
    reset();
    own_ = std::move(other.own_);
    shared_ = std::exchange(other.shared_, nullptr);
  }
  return *this;
}

void ServerRef::reset() {
  own_.reset();
  if (ServerProcess* s = std::exchange(shared_, nullptr)) SharedServers::GiveBack(s);
}

bool SharedServers::FreshOnly() {
  const char* v = std::getenv("RINGCACHE_TEST_FRESH");
  return v != nullptr && std::string(v) == "1";
}

ServerRef SharedServers::Ringcache(int threads, const Args& flags, std::string* error) {
  std::string key = absl::StrCat("ringcache --threads ", threads, " ", absl::StrJoin(flags, " "));
  return Borrow(key, PasswordIn(flags),
                [&] { return ServerProcess::StartRingcache(threads, flags, error); }, error);
}

ServerRef SharedServers::Redis(const Args& flags, std::string* error) {
  return Borrow(absl::StrCat("redis-server ", absl::StrJoin(flags, " ")), PasswordIn(flags),
                [&] { return ServerProcess::StartRedis(error, flags); }, error);
}

void SharedServers::GiveBack(ServerProcess* server) {
  auto& pool = Pool();
  auto it = std::find_if(pool.begin(), pool.end(),
                         [server](const Entry& e) { return e.server.get() == server; });
  if (it == pool.end()) return;
  std::string why;
  // One that exited (a test of SHUTDOWN, or a crash) is reported by its destructor.
  const bool running = !server->WaitExit(milliseconds(0)).has_value();
  if (running && Reset(*it, &why)) {
    it->lent = false;
    return;
  }
  if (running) {
    std::fprintf(stderr, "[shared servers] %s not reused: %s\n", it->key.c_str(), why.c_str());
  }
  pool.erase(it);
}

}  // namespace rc::it
