#pragma once
// The connections of one worker thread, as CLIENT LIST / KILL / INFO see them. The
// network layer registers each connection on its own thread when it is accepted and
// removes it when it closes; CLIENT fans out to every thread and each thread reads or
// closes only its own connections, so nothing here is shared or locked.

#include <atomic>
#include <cstdint>
#include <map>
#include <string>

#include "shard/wire/client_state.h"

namespace rc {

// Buffer figures only the connection knows (CLIENT LIST's qbuf, obl, oll, omem...).
struct ClientBuffers {
  size_t qbuf = 0;             // unparsed input bytes
  size_t qbuf_free = 0;        // room left in the input buffer
  size_t obl = 0;              // unsent bytes in the reply buffer (at most rbs)
  size_t oll = 0;              // reply list: 16 KiB nodes of the rest, and replies
                               // queued behind a pending one
  size_t omem = 0;             // bytes in the reply list
  size_t rbs = 0;              // reply buffer size, as Redis would have it
  size_t rbp = 0;              // its recent peak
  int64_t last_active_ms = 0;  // monotonic ms of the last read
  bool writing = false;        // a send is in flight (events=rw)
  bool blocked = false;        // held by CLIENT PAUSE (flag b)
};

// A client's memory as Redis's getClientMemoryUsage counts it, but the arguments of a
// command running now: query buffer and its free room, reply buffer, reply list, a queued
// transaction (CLIENT LIST's tot-mem, MEMORY STATS' clients.normal).
inline size_t ClientMemory(const ClientBuffers& b, const ClientState& c) {
  const size_t multi = c.multi ? MultiMem(c.multi->queued) : c.exec_nested ? c.exec_mem : 0;
  return b.qbuf + b.qbuf_free + b.rbs + b.omem + multi;
}

// Implemented by net::Connection. Every method runs on the connection's own thread.
class ClientHandle {
 public:
  virtual ~ClientHandle() = default;
  virtual ClientState& client() = 0;
  virtual ClientBuffers Buffers() const = 0;
  // CLIENT KILL: closes now, or once the current reply is written when the client kills
  // itself.
  virtual void Kill(bool after_reply) = 0;
  // MONITOR: a line, queued after replies already owed, the reply of the command being
  // run included (Redis feeds monitors once a command ran).
  virtual void PushMonitorLine(std::string line) = 0;
};

class ClientRegistry {
 public:
  void Add(ClientHandle* c) { clients_[c->client().id] = c; }
  // `all_monitors`: the server-wide count of monitors (every thread's), kept in step here
  // so the dispatcher can skip feeding when it is 0.
  void Remove(uint64_t id, std::atomic<int64_t>& all_monitors) {
    clients_.erase(id);
    RemoveMonitor(id, all_monitors);
  }
  // MONITOR clients of this thread; each gets every command of every thread.
  void AddMonitor(ClientHandle* c, std::atomic<int64_t>& all_monitors) {
    if (monitors_.emplace(c->client().id, c).second) {
      all_monitors.fetch_add(1, std::memory_order_relaxed);
    }
  }
  void RemoveMonitor(uint64_t id, std::atomic<int64_t>& all_monitors) {
    if (monitors_.erase(id) > 0) all_monitors.fetch_sub(1, std::memory_order_relaxed);
  }
  const std::map<uint64_t, ClientHandle*>& monitors() const { return monitors_; }
  // Ascending client id, as CLIENT LIST prints them.
  const std::map<uint64_t, ClientHandle*>& all() const { return clients_; }
  ClientHandle* Find(uint64_t id) const {
    auto it = clients_.find(id);
    return it == clients_.end() ? nullptr : it->second;
  }

 private:
  std::map<uint64_t, ClientHandle*> clients_;
  std::map<uint64_t, ClientHandle*> monitors_;
};

}  // namespace rc
