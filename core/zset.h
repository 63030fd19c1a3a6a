#pragma once
// A sorted set: members (binary strings) ordered by (score, member bytes), as Redis
// orders them. Two encodings, as Redis has listpack and skiplist:
//   - compact (core/zset_compact.h): while the set has at most zset-max-listpack-entries
//     members of at most zset-max-listpack-value bytes (Limits), all of them sorted in one
//     malloc'd block, searched linearly;
//   - big: a member index (hash) for ZSCORE / ZADD / ZREM lookups by name, and an
//     order-statistic tree keyed by (score, member) with subtree counts, so rank queries
//     (ZRANK, ZRANGE at any offset) are O(log n).
// An Add that would break either limit converts the set to big for good (Redis never turns
// a skiplist back into a listpack either).
// Single-threaded: the shard thread that owns the key calls every method; a large set
// that is deleted is handed whole to the thread pool, whose thread only destroys it.
//
// Ranks are 0-based in ascending order. Scores are never NaN (callers reject NaN before
// calling Add).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "core/zset_node.h"

namespace rc {

// One end of a score range: ZRANGEBYSCORE's `(1.5`, `-inf`, `+inf`, `3`.
struct ScoreBound {
  double value = 0;
  bool exclusive = false;
};

// One end of a lex range: `-`, `+`, `[abc`, `(abc`.
struct LexBound {
  enum class Kind : uint8_t { kMin, kMax, kInclusive, kExclusive };
  Kind kind = Kind::kMin;
  std::string_view value;
};

// zset-max-listpack-entries / -value: the most members, and the longest member, a compact
// set may hold; `value` is at most zset_internal::kCompactMaxMember. The defaults are
// Redis's; the server passes its configuration's.
struct ZSetListpackLimits {
  size_t entries = 128;
  size_t value = 64;
};

class ZSet {
 public:
  ZSet();
  ~ZSet();
  ZSet(const ZSet&) = delete;
  ZSet& operator=(const ZSet&) = delete;

  size_t size() const;
  // A deep copy in the same encoding (COPY; Redis's zsetDup keeps a skiplist a skiplist).
  std::unique_ptr<ZSet> Clone() const;
  // Whether the set is in the compact encoding (Redis: listpack), else big (skiplist).
  bool compact() const { return big_ == nullptr; }

  using Limits = ZSetListpackLimits;
  // Inserts `member` with `score`, or moves an existing member to `score`; a compact set
  // that would break `limits` converts first.
  enum class AddResult { kAdded, kUpdated, kUnchanged };
  AddResult Add(std::string_view member, double score, const Limits& limits = Limits());
  // Returns whether the member was there.
  bool Remove(std::string_view member);
  std::optional<double> Score(std::string_view member) const;
  // Ascending 0-based rank; nullopt when absent.
  std::optional<size_t> Rank(std::string_view member) const;

  // How many members sort before the first member inside the bound taken as a range
  // start: for {v, inclusive} the count of scores < v; for {v, exclusive} of scores <= v.
  // So the members with min <= score <= max are ranks [ScoreRank(min), ScoreRankEnd(max)).
  size_t ScoreRank(ScoreBound min) const;
  // The count of members inside the range ending at `max`: scores <= v (inclusive) or
  // < v (exclusive).
  size_t ScoreRankEnd(ScoreBound max) const;
  // The same two for lex ranges (meaningful when all scores are equal, as in Redis;
  // otherwise they follow the (score, member) order the way Redis's do).
  size_t LexRank(const LexBound& min) const;
  size_t LexRankEnd(const LexBound& max) const;

  // A position in the order, for walking a rank range. Any Add or Remove invalidates it.
  class Iterator {
   public:
    bool Valid() const;
    std::string_view member() const;
    double score() const;
    void Next();  // towards higher ranks; past the last, !Valid()
    void Prev();  // towards lower ranks; before rank 0, !Valid()

   private:
    friend class ZSet;
    // A big set's leaf with pos_ its slot, or a compact block with the low bit set and
    // pos_ a byte offset into it.
    const void* node_ = nullptr;
    size_t pos_ = 0;
  };
  // The member at `rank` (< size()), or an invalid iterator.
  Iterator AtRank(size_t rank) const;

  // Visits members in an order of the implementation's choice, with Redis's SCAN
  // guarantee: a member present for the whole scan is visited at least once, across
  // calls that pass the returned cursor back; 0 means done. Visits about `count`.
  uint64_t Scan(uint64_t cursor, size_t count,
                absl::FunctionRef<void(std::string_view member, double score)> fn) const;

  // Bytes the allocator holds for this set (INFO used_memory, MEMORY USAGE).
  size_t MemoryBytes() const;
  // OBJECT ENCODING in Redis's words: a compact set is what Redis keeps as a listpack.
  std::string_view Encoding() const { return compact() ? "listpack" : "skiplist"; }
  // Blocks freed when the set is destroyed: a compact set is one, as Redis's
  // lazyfreeGetFreeEffort counts a listpack.
  size_t FreeEffort() const { return compact() ? 1 : size(); }
  // Aborts with a message if counts, order or the index disagree.
  void Verify() const;

 private:
  struct Big;  // index + tree, in its own block so a compact set does not carry them

  void ToBig();
  template <typename Pred>
  size_t CountScores(Pred before) const;
  template <typename Pred>
  size_t CountMembers(Pred before) const;

  char* small_ = nullptr;  // the compact block; null when empty or big
  Big* big_ = nullptr;
};

}  // namespace rc
