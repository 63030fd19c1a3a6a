#include "net/admission.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "shard/state/auth.h"

namespace rc::net {

namespace {

// Redis 7.0's text, byte for byte (clients and monitoring match on its start).
constexpr std::string_view kDenied =
    "-DENIED Redis is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from "
    "the loopback interface. If you want to connect from external computers to Redis you may "
    "adopt one of the following solutions: 1) Just disable protected mode sending the command "
    "'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from "
    "the same host the server is running, however MAKE SURE Redis is not publicly accessible "
    "from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) "
    "Alternatively you can just disable the protected mode by editing the Redis "
    "configuration file, and setting the protected mode option to 'no', and then restarting "
    "the server. 3) If you started the server manually just for testing, restart it with the "
    "'--protected-mode no' option. 4) Setup a an authentication password for the default "
    "user. NOTE: You only need to do one of the above things in order for the server to "
    "start accepting connections from the outside.\r\n";

}  // namespace

bool PeerIsLoopback(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return false;
  if (ss.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&ss);
    return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  }
  if (ss.ss_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&a)) return true;
    return IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127;
  }
  return ss.ss_family == AF_UNIX;
}

std::string_view ProtectedModeRefusal(const ServerState& server, int fd) {
  if (!server.config.protected_mode || AuthEnabled(server)) return {};
  return PeerIsLoopback(fd) ? std::string_view() : kDenied;
}

}  // namespace rc::net
