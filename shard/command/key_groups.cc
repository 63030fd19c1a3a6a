#include "shard/command/key_groups.h"

#include <cstring>

#include "core/entry_table.h"

namespace rc {

// See the inline capacities: make_shared adds a 16-byte control block.
static_assert(sizeof(KeyGroups) + 16 <= 1032, "KeyGroups outgrew glibc's thread cache");

KeyGroups::KeyGroups(const ShardSet& set, ArgList args, size_t first, size_t width)
    : width_(width) {
  const size_t n = args.size() < first ? 0 : (args.size() - first) / width;
  // Counting sort by shard: ascending shards, argument order within each.
  absl::InlinedVector<uint32_t, 16> owner(n);
  absl::InlinedVector<uint32_t, 17> count(set.size() + 1, 0);
  size_t total = 0;
  for (size_t item = 0; item < n; ++item) {
    owner[item] = set.ShardOf(args[first + item * width]);
    ++count[owner[item] + 1];
    for (size_t k = 0; k < width; ++k) total += args[first + item * width + k].size();
  }
  absl::InlinedVector<uint32_t, 16> next(set.size());
  begin_.push_back(0);
  for (uint32_t s = 0; s < set.size(); ++s) {
    count[s + 1] += count[s];
    next[s] = count[s];
    if (count[s + 1] > count[s]) {
      shards_.push_back(s);
      begin_.push_back(count[s + 1]);
    }
  }
  items_.resize(n);
  hashes_.resize(n);
  views_.resize(n * width);
  bytes_.resize(total);
  char* p = bytes_.data();
  for (size_t item = 0; item < n; ++item) {
    const uint32_t at = next[owner[item]]++;
    items_[at] = uint32_t(item);
    for (size_t k = 0; k < width; ++k) {
      std::string_view a = args[first + item * width + k];
      if (!a.empty()) std::memcpy(p, a.data(), a.size());
      views_[at * width + k] = std::string_view(p, a.size());
      p += a.size();
    }
    hashes_[at] = HashKey(views_[at * width]);
  }
}

KeyGroups::KeyGroups(std::vector<uint32_t> shards)
    : shards_(std::move(shards)), begin_(shards_.size() + 1, 0) {}

}  // namespace rc
