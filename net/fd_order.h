#pragma once
// Descriptor numbers are reused across threads: one the metrics thread closed can be the
// next a reactor accepts. The kernel orders the two, but a ring's accept is invisible to
// ThreadSanitizer, which then reports the reactor's later close as racing with the
// metrics thread's last send. This makes the order visible: a thread that closes
// sockets outside the rings bumps the counter just before close(), and a reactor reads it
// after each ring accept. One uncontended atomic load per accepted connection.

#include <atomic>
#include <cstdint>

namespace rc::net {

inline std::atomic<uint64_t> g_foreign_fd_closes{0};

// Any thread that is not a reactor, right before it closes a socket.
inline void BeforeForeignClose() { g_foreign_fd_closes.fetch_add(1, std::memory_order_release); }
// A reactor, right after its ring accepted a connection.
inline void AfterRingAccept() { (void)g_foreign_fd_closes.load(std::memory_order_acquire); }

}  // namespace rc::net
