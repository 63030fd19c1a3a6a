#pragma once
// Splits a multi-key command's arguments by owning shard, so each shard receives only
// its own keys (copied, since the work runs on other threads), and remembers where each
// key came from so replies can be put back in argument order.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "shard/command/command.h"
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

}  // namespace rc
