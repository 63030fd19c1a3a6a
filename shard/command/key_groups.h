#pragma once
// Splits a multi-key command's arguments by owning shard, so each shard receives only
// its own keys (copied, since the work runs on other threads), and remembers where each
// key came from so replies can be put back in argument order.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "shard/command/command.h"
#include "shard/command/reply_sink.h"
#include "shard/runtime/shard_set.h"

namespace rc {

struct KeyGroups {
  std::vector<uint32_t> shards;  // each shard owning at least one item, ascending
  // Per shard: the items' arguments flattened (`width` strings per item, key first).
  std::vector<std::vector<std::string>> args;
  // Per shard: each item's index among all items, in argument order.
  std::vector<std::vector<size_t>> items;
  size_t item_count = 0;
};

// Items start at args[first] and are `width` arguments wide (MGET: 1, MSET: 2).
KeyGroups GroupKeys(const ShardSet& set, ArgList args, size_t first, size_t width);

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
