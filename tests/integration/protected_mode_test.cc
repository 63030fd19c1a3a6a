// protected-mode against redis-server: both listen on 0.0.0.0 and are reached through a
// non-loopback address of this machine (skipped when it has none). With no password the
// peer gets Redis's DENIED text and is closed; a password or protected-mode no lets it in.

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

// The first IPv4 address of an interface that is up and not loopback.
std::optional<in_addr> NonLoopbackAddress() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return std::nullopt;
  std::optional<in_addr> found;
  for (ifaddrs* i = list; i != nullptr && !found; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    in_addr a = reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr;
    if ((ntohl(a.s_addr) >> 24) != 127) found = a;
  }
  freeifaddrs(list);
  return found;
}

// Connects to addr:port, sends `request`, returns everything read until the peer closes
// or 2 s pass (then with "<open>" appended).
std::string Exchange(in_addr addr, int port, const std::string& request) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(uint16_t(port));
  sa.sin_addr = addr;
  if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    ::close(fd);
    return "<connect failed>";
  }
  [[maybe_unused]] ssize_t sent = send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string got;
  char buf[4096];
  while (true) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 2000) <= 0) {
      got += "<open>";
      break;
    }
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;  // closed (or reset after the reply)
    got.append(buf, size_t(n));
    if (got.back() == '\n' && got.rfind("-DENIED", 0) != 0) {
      got += "<open>";  // a normal reply: the connection stays
      break;
    }
  }
  ::close(fd);
  return got;
}

class ProtectedModeTest : public DiffTest {
 protected:
  Args ExtraFlags() const override { return {"--bind", "0.0.0.0", "--protected-mode", "yes"}; }
  void SetUp() override {
    addr_ = NonLoopbackAddress();
    if (!addr_) GTEST_SKIP() << "no non-loopback IPv4 address on this machine";
    DiffTest::SetUp();
  }
  // The same exchange with both servers through the outside address; returns ringcache's.
  std::string SameFromOutside(const std::string& request) {
    std::string want = Exchange(*addr_, redis_->port(), request);
    std::string got = Exchange(*addr_, rc_->port(), request);
    EXPECT_EQ(got, want) << "request " << request;
    return got;
  }
  std::optional<in_addr> addr_;
};

TEST_P(ProtectedModeTest, OutsidePeersAreDeniedUntilAPasswordIsSet) {
  std::string denied = SameFromOutside("PING\r\n");
  EXPECT_EQ(denied.rfind("-DENIED Redis is running in protected mode because protected mode "
                         "is enabled and no password is set for the default user.",
                         0),
            0u)
      << denied;
  EXPECT_EQ(denied.find("<open>"), std::string::npos) << "the connection must be closed";
  Same({"PING"});  // loopback clients are served
  // A password lets outside peers in (to authenticate).
  Same({"CONFIG", "SET", "requirepass", "pw"});
  EXPECT_EQ(SameFromOutside("PING\r\n"), "-NOAUTH Authentication required.\r\n<open>");
  EXPECT_EQ(SameFromOutside("AUTH pw\r\n"), "+OK\r\n<open>");
  Same({"AUTH", "pw"});
  Same({"CONFIG", "SET", "requirepass", ""});
  SameFromOutside("PING\r\n");
  // So does protected-mode no.
  Same({"CONFIG", "SET", "protected-mode", "no"});
  EXPECT_EQ(SameFromOutside("PING\r\n"), "+PONG\r\n<open>");
}

INSTANTIATE_TEST_SUITE_P(Threads, ProtectedModeTest, ::testing::Values(2), ThreadsName);

}  // namespace
}  // namespace rc::it
