#pragma once
// Splits a multi-key command's arguments by owning shard, so each shard receives only
// its own keys, and remembers where each key came from so replies can be put back in
// argument order. The arguments are copied once into one buffer (the work runs on
// other threads, after the connection's read buffer has moved on), and each key's hash
// is computed once for the key locks.

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "shard/runtime/shard_set.h"
#include "shard/wire/command.h"

namespace rc {

class KeyGroups {
 public:
  // Items start at args[first] and are `width` arguments wide (MGET: 1, MSET: 2).
  KeyGroups(const ShardSet& set, ArgList args, size_t first, size_t width);
  // A group per shard of `shards`, without keys (whole-shard locks).
  explicit KeyGroups(std::vector<uint32_t> shards);
  // Views point into the object's own bytes: it stays where it was built.
  KeyGroups(const KeyGroups&) = delete;
  KeyGroups& operator=(const KeyGroups&) = delete;

  // Each shard owning at least one item, ascending: the order locks are waited for in.
  const std::vector<uint32_t>& shards() const { return shards_; }
  size_t size() const { return shards_.size(); }
  size_t item_count() const { return items_.size(); }
  size_t width() const { return width_; }

  // Group gi's items' arguments flattened (`width` per item, key first).
  ArgList Args(size_t gi) const {
    return ArgList(views_.data() + begin_[gi] * width_, (begin_[gi + 1] - begin_[gi]) * width_);
  }
  // Group gi's items' indexes among all items, in argument order.
  absl::Span<const uint32_t> Items(size_t gi) const {
    return absl::MakeConstSpan(items_.data() + begin_[gi], begin_[gi + 1] - begin_[gi]);
  }
  // HashKey of every key, grouped; of group gi's keys.
  absl::Span<const uint64_t> AllKeyHashes() const { return hashes_; }
  absl::Span<const uint64_t> KeyHashes(size_t gi) const {
    return absl::MakeConstSpan(hashes_.data() + begin_[gi], begin_[gi + 1] - begin_[gi]);
  }

 private:
  std::vector<uint32_t> shards_;
  size_t width_ = 1;
  // Inline capacities fit a typical MGET/DEL of up to 16 keys or MSET of 10 pairs over a
  // few shards, so grouping allocates only the arguments' bytes. The whole object stays
  // under glibc's largest thread-cached size (1032 bytes): above it, every MSET's
  // allocation would take the arena's lock, which all threads share.
  absl::InlinedVector<uint32_t, 5> begin_;   // group gi's items: [begin_[gi], begin_[gi + 1])
  absl::InlinedVector<uint32_t, 16> items_;  // by group, then argument order
  absl::InlinedVector<uint64_t, 16> hashes_;
  absl::InlinedVector<std::string_view, 20> views_;  // into bytes_
  absl::InlinedVector<char, 256> bytes_;
};

}  // namespace rc
