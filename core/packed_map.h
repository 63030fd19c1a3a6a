#pragma once
// Binary-string keys with binary-string values (kValues) or without (a set of keys): the
// storage of hashes (core/hash.h) and of sets that are not intsets (core/set.h). Two
// encodings, as Redis has listpack and hashtable:
//
//   - compact: every element in ONE malloc'd block, in insertion order, searched
//     linearly. The owner bounds it (hash-max-listpack-entries/value) and calls ToBig.
//   - big: linear hashing over buckets that are themselves small packed blocks of about
//     kLoad elements. An element costs its bytes plus a length byte or two, and its share
//     of its bucket's block (a size word, glibc's chunk header and rounding) and of the
//     bucket array: no node, no pointer, no stored hash. An insert splits at most one
//     bucket and an erase merges at most two, so no call does O(n) work (a 1M-field hash
//     never stalls its shard on a rehash) and the table follows its size both ways.
//
//   element: [varint key len][key] ([varint value len][value])
//   compact block: elements back to back (count and length live in the object)
//   bucket block:  [used: u32][elements]          (an empty bucket is nullptr)
//
// Bucket of a hash h with 2^level + split buckets: b = h mod 2^level, and
// b = h mod 2^(level+1) when b < split (already split). Scan walks a cursor over the
// virtual table of 2^level (split == 0) or 2^(level+1) buckets in Redis's reverse-binary
// order, which keeps Redis's guarantee across splits and merges.
//
// Views returned by lookups point into the blocks: valid until the next change.
// Single-threaded: the owning shard's thread calls every method; the destructor may run
// on the lazyfree pool.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/random/random.h"

namespace rc {

template <bool kValues>
class PackedMap {
 public:
  using Visit = absl::FunctionRef<void(std::string_view key, std::string_view value)>;

  PackedMap() = default;
  ~PackedMap();
  PackedMap(const PackedMap&) = delete;
  PackedMap& operator=(const PackedMap&) = delete;

  size_t size() const;
  bool compact() const { return big_ == nullptr; }

  // Whether `key` is present; *value (if given) gets its value's bytes.
  bool Find(std::string_view key, std::string_view* value = nullptr) const;
  // Inserts `key` or gives it `value` (in place, keeping its position). Returns whether
  // it was added.
  bool Upsert(std::string_view key, std::string_view value = {});
  // Returns whether the key was there.
  bool Erase(std::string_view key);
  // Makes `*out` (empty) an equal copy, in the same encoding and order (COPY).
  void CopyTo(PackedMap* out) const;
  // Leaves the compact encoding for good (Redis never turns a hashtable back).
  void ToBig();
  // The compact block's bytes (0 when big).
  size_t CompactBytes() const { return big_ == nullptr ? used_ : 0; }

  // Every element: compact ones in insertion order, big ones bucket by bucket.
  void ForEach(Visit fn) const;
  // Redis's SCAN contract: call with 0, then with each returned cursor until it is 0;
  // an element present throughout is visited at least once. A compact map is visited
  // whole with cursor 0. Visits about `count` elements per call.
  uint64_t Scan(uint64_t cursor, size_t count, Visit fn) const;
  // One element chosen at random (the map must not be empty). Big maps pick a bucket,
  // then an element in it, as Redis's dictGetFairRandomKey is near-fair.
  void Random(absl::BitGen& rng, std::string* key, std::string* value = nullptr) const;

  // Allocator bytes of the blocks and the bucket array (not the object holding this).
  size_t MemoryBytes() const;
  // Aborts with a message unless counts, lengths, bucket placement and uniqueness agree.
  void Verify() const;

  // Elements per bucket the big table keeps on average.
  static constexpr size_t kLoad = 6;

 private:
  struct Big;

  char* small_ = nullptr;  // the compact block, null when empty or big
  Big* big_ = nullptr;
  uint32_t count_ = 0;  // compact elements
  uint32_t used_ = 0;   // compact block bytes
};

extern template class PackedMap<true>;
extern template class PackedMap<false>;

}  // namespace rc
