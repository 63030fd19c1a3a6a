#pragma once
// What a command sees of the connection it answers. Implemented by net::Connection;
// every method runs on the connection's own thread.

#include <cstdint>
#include <string>
#include <string_view>

namespace rc {

class ReplySink {
 public:
  virtual ~ReplySink() = default;
  // Reserves the next reply position, for an answer that will arrive from other threads.
  virtual uint64_t Defer() = 0;
  // Delivers the RESP bytes for a reserved position; replies leave in request order.
  virtual void Fulfill(uint64_t slot, std::string resp) = 0;
  // The same from bytes the caller keeps (a batch of replies from another shard): a sink
  // that can copies them where they go without making a string of its own.
  virtual void FulfillFrom(uint64_t slot, std::string_view resp) {
    Fulfill(slot, std::string(resp));
  }
  // The connection's multi-shard commands have all taken their locks: if it stopped
  // reading because a later command had to wait for that (Dispatcher::Admit, Hold::kForLocks), it goes
  // on now.
  virtual void Resume() = 0;
  // An out-of-band message (pub/sub): queued after every reply already owed.
  virtual void Push(std::string resp) = 0;
};

}  // namespace rc
