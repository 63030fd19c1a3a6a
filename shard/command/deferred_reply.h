#pragma once
// The reply of a command that answers later, from other threads' results (fan-out,
// multi-shard commands): its position in the connection's pipeline is reserved when the
// command runs, and filled, on the connection's thread, when the answer is known.

#include <cstdint>
#include <string>

#include "core/reply_builder.h"
#include "shard/wire/command.h"
#include "shard/wire/reply_sink.h"

namespace rc {

// A reply position reserved now and written later, on the connection's thread.
class DeferredReply {
 public:
  explicit DeferredReply(CoordCmd& cmd)
      : sink_(&cmd.sink), slot_(cmd.sink.Defer()), resp3_(cmd.reply.resp3()) {}
  // Connection's thread: build(ReplyBuilder&) writes the reply.
  template <typename Build>
  void Send(Build&& build) const {
    std::string out;
    ReplyBuilder rb(&out, resp3_);
    build(rb);
    sink_->Fulfill(slot_, std::move(out));
  }

 private:
  ReplySink* sink_;
  uint64_t slot_;
  bool resp3_;
};

}  // namespace rc
