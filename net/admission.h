#pragma once
// Checks on a freshly accepted connection, before it may send anything. Any reactor
// thread; shared by the io_uring engine and any other.

#include <string_view>

#include "shard/state/server_state.h"

namespace rc::net {

// Protected mode (Redis 7): while `protected-mode` is yes and no password is set,
// connections from peers other than the loopback interface get this error and are closed.
// Returns the reply line (with "\r\n") for `fd`'s peer, or an empty view when it may stay.
std::string_view ProtectedModeRefusal(const ServerState& server, int fd);

// Whether `fd`'s peer address is 127.0.0.0/8 or ::1 (also as an IPv4-mapped address).
bool PeerIsLoopback(int fd);

}  // namespace rc::net
