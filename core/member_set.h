#pragma once
// A set of binary strings, Redis's set type, in Redis 7.0's two encodings:
//   - intset: while every member is an integer (string2ll's spelling) and there are at
//     most set-max-intset-entries of them, a sorted array of int64 in one block, so
//     members come out in ascending order, as Redis's intset gives them;
//   - hashtable (Redis's word): a PackedMap without values (core/packed_map.h). While it
//     holds at most kCompactMaxEntries members of at most kCompactMaxMember bytes (Redis
//     7.2's listpack limits) it is one compact block; then big. Redis 7.0 has no set
//     listpack, so OBJECT ENCODING says hashtable for both.
// As in Redis, a set starts as an intset only when its first member is an integer, and
// never goes back. Single-threaded: the owning shard's thread calls every method; the
// destructor may run on the lazyfree pool.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/random/random.h"
#include "core/packed_map.h"

namespace rc {

class MemberSet {
 public:
  using Visit = absl::FunctionRef<void(std::string_view member)>;
  // set-max-intset-entries.
  struct Limits {
    size_t max_intset_entries = 512;
  };
  static constexpr size_t kCompactMaxEntries = 128;
  static constexpr size_t kCompactMaxMember = 64;

  // Redis's setTypeCreate: an intset when the first member will be an integer.
  explicit MemberSet(bool intset) : intset_(intset) {}
  static MemberSet* ForMember(std::string_view first) { return new MemberSet(IsInt(first)); }
  ~MemberSet();
  MemberSet(const MemberSet&) = delete;
  MemberSet& operator=(const MemberSet&) = delete;

  // Whether `m` is an integer an intset may hold (Redis isSdsRepresentableAsLongLong).
  static bool IsInt(std::string_view m, int64_t* v = nullptr);

  size_t size() const { return intset_ ? count_ : map_.size(); }
  bool intset() const { return intset_; }
  bool Contains(std::string_view m) const;
  // Returns whether `m` was added (Redis's setTypeAdd, converting as it does).
  bool Add(std::string_view m, const Limits& limits);
  // Returns whether `m` was there.
  bool Remove(std::string_view m);
  // Every member: an intset's ascending.
  void ForEach(Visit fn) const;
  // An intset's integers, ascending (empty for a hashtable set): what an RDB intset holds.
  std::span<const int64_t> ints() const { return {ints_, intset_ ? count_ : 0}; }
  // Redis's SCAN contract (see PackedMap::Scan); an intset is visited whole.
  uint64_t Scan(uint64_t cursor, size_t count, Visit fn) const;
  // A member chosen at random; the set must not be empty.
  std::string Random(absl::BitGen& rng) const;

  // An equal set in the same encoding and order (COPY).
  std::unique_ptr<MemberSet> Clone() const;

  size_t MemoryBytes() const;
  std::string_view Encoding() const { return intset_ ? "intset" : "hashtable"; }
  size_t FreeEffort() const { return intset_ || map_.compact() ? 1 : size(); }
  void Verify() const;

 private:
  // Position of the first integer >= v.
  size_t LowerBound(int64_t v) const;
  void ToMap();

  PackedMap<false> map_;
  int64_t* ints_ = nullptr;  // the intset, ascending
  uint32_t count_ = 0;       // the intset's members
  bool intset_;
};

}  // namespace rc
