#include "shard/command/key_groups.h"

#include <algorithm>

namespace rc {

KeyGroups GroupKeys(const ShardSet& set, ArgList args, size_t first, size_t width) {
  KeyGroups g;
  std::vector<int> index_of(set.size(), -1);
  for (size_t pos = first, item = 0; pos + width <= args.size(); pos += width, ++item) {
    uint32_t shard = set.ShardOf(args[pos]);
    if (index_of[shard] < 0) {
      index_of[shard] = int(g.shards.size());
      g.shards.push_back(shard);
      g.args.emplace_back();
      g.items.emplace_back();
    }
    size_t gi = size_t(index_of[shard]);
    for (size_t k = 0; k < width; ++k) g.args[gi].emplace_back(args[pos + k]);
    g.items[gi].push_back(item);
    ++g.item_count;
  }
  // Ascending shard order: the order multi-shard commands take their locks in.
  std::vector<size_t> order(g.shards.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return g.shards[a] < g.shards[b]; });
  KeyGroups sorted;
  sorted.item_count = g.item_count;
  for (size_t i : order) {
    sorted.shards.push_back(g.shards[i]);
    sorted.args.push_back(std::move(g.args[i]));
    sorted.items.push_back(std::move(g.items[i]));
  }
  return sorted;
}

}  // namespace rc
