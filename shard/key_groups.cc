#include "shard/key_groups.h"

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
  return g;
}

}  // namespace rc
