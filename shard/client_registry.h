#pragma once
// The connections of one worker thread, as CLIENT LIST / KILL / INFO see them. The
// network layer registers each connection on its own thread when it is accepted and
// removes it when it closes; CLIENT fans out to every thread and each thread reads or
// closes only its own connections, so nothing here is shared or locked.

#include <cstdint>
#include <map>
#include <string>
#include <string>

#include "shard/client_state.h"

namespace rc {

// Buffer figures only the connection knows (CLIENT LIST's qbuf, obl, oll, omem...).
struct ClientBuffers {
  size_t qbuf = 0;       // unparsed input bytes
  size_t qbuf_free = 0;  // room left in the input buffer
  size_t obl = 0;        // bytes waiting in the output buffer
  size_t oll = 0;        // replies queued behind a pending one
  size_t omem = 0;       // bytes of those queued replies
  size_t rbs = 0;        // output buffer capacity
  int64_t last_active_ms = 0;  // monotonic ms of the last read
  bool writing = false;        // a send is in flight (events=rw)
};

// Implemented by net::Connection. Every method runs on the connection's own thread.
class ClientHandle {
 public:
  virtual ~ClientHandle() = default;
  virtual ClientState& client() = 0;
  virtual ClientBuffers Buffers() const = 0;
  // CLIENT KILL: closes now, or once the current reply is written when the client kills
  // itself.
  virtual void Kill(bool after_reply) = 0;
  // MONITOR: an out-of-band line, queued after replies already owed.
  virtual void Push(std::string resp) = 0;
};

class ClientRegistry {
 public:
  void Add(ClientHandle* c) { clients_[c->client().id] = c; }
  // Returns whether the client was a monitor (the caller keeps the server-wide count).
  bool Remove(uint64_t id) {
    clients_.erase(id);
    return monitors_.erase(id) > 0;
  }
  // MONITOR clients of this thread; each gets every command of every thread.
  void AddMonitor(ClientHandle* c) { monitors_[c->client().id] = c; }
  bool RemoveMonitor(uint64_t id) { return monitors_.erase(id) > 0; }
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
