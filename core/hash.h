#pragma once
// A hash: fields (binary strings) with values, Redis's hash type. Storage is a PackedMap
// (core/packed_map.h): compact while Redis would keep a listpack, in insertion order as a
// listpack is, then big (Redis: hashtable) for good. The conversion follows Redis 7.0's
// rules (t_hash.c): a field or value longer than hash-max-listpack-value converts before
// it is set, and more than hash-max-listpack-entries fields convert after.
// Single-threaded: the owning shard's thread calls every method; a large hash that is
// deleted is handed whole to the thread pool, whose thread only destroys it.

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string_view>

#include "core/packed_map.h"

namespace rc {

class Hash : public PackedMap<true> {
 public:
  // hash-max-listpack-entries / hash-max-listpack-value.
  struct Limits {
    size_t max_entries = 512;
    size_t max_value = 64;
  };

  // Redis's hashTypeTryConversion: the command's longest field or value, checked before
  // anything is set (HSET converts even when every value it sets is unchanged).
  void FitLength(size_t longest, const Limits& limits) {
    if (compact() && longest > limits.max_value) ToBig();
  }
  // Redis's hashTypeSet. Returns whether the field is new.
  bool Set(std::string_view field, std::string_view value, const Limits& limits) {
    FitLength(std::max(field.size(), value.size()), limits);
    const bool added = Upsert(field, value);
    if (compact() && size() > limits.max_entries) ToBig();
    return added;
  }

  // An equal hash in the same encoding and order (COPY).
  std::unique_ptr<Hash> Clone() const {
    auto h = std::make_unique<Hash>();
    CopyTo(h.get());
    return h;
  }

  // Bytes the allocator holds for this hash, the object included.
  size_t MemoryBytes() const { return kObjectBytes + PackedMap::MemoryBytes(); }
  std::string_view Encoding() const { return compact() ? "listpack" : "hashtable"; }
  // Blocks freed when the hash is destroyed: a compact one is one, as a listpack for
  // Redis's lazyfreeGetFreeEffort.
  size_t FreeEffort() const { return compact() ? 1 : size(); }

 private:
  // The object's glibc chunk (its 24 bytes take the smallest, 32).
  static constexpr size_t kObjectBytes = 32;
};
static_assert(sizeof(Hash) <= 24);

}  // namespace rc
