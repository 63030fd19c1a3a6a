#pragma once
// The compact encoding of a small sorted set, Redis's listpack in spirit: all members inline
// in ONE malloc'd block, in Redis's order (zset_internal::Less), so a 15-byte member costs
// 25 bytes instead of a 48-byte node plus its index and leaf slots, and a set costs one
// chunk. Lookups are linear scans, bounded by zset-max-listpack-entries (as Redis's are).
//
//   [count: u32][used: u32] then per member, ascending:
//   [score: 8][len: 1][member bytes: len][len: 1]
//
// The trailing length lets an iterator step backwards. `used` counts the header too; the
// block is realloc'd to exactly `used` on every insert and erase, so the chunk it holds is
// the smallest that fits (malloc_usable_size decides, ChunkBytes accounts it). An empty
// set holds no block at all (callers keep nullptr).
//
// Single-threaded; every function takes the block, nothing else is touched.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace rc::zset_internal {

// The longest member a block can hold: its lengths are one byte. (How many members and
// how long they may be before a set leaves the encoding is ZSet::Limits.)
inline constexpr size_t kCompactMaxMember = 255;

class Compact {
 public:
  static constexpr uint32_t kHeader = 8;     // count + used
  static constexpr uint32_t kOverhead = 10;  // score + two length bytes

  static uint32_t Count(const char* b) { return Load<uint32_t>(b); }
  static uint32_t Used(const char* b) { return Load<uint32_t>(b + 4); }
  // Offset of the first entry and one past the last.
  static uint32_t Begin() { return kHeader; }
  static uint32_t End(const char* b) { return Used(b); }

  static double Score(const char* b, uint32_t off) { return Load<double>(b + off); }
  static std::string_view Member(const char* b, uint32_t off) {
    return {b + off + 9, uint8_t(b[off + 8])};
  }
  static uint32_t Next(const char* b, uint32_t off) {
    return off + kOverhead + uint8_t(b[off + 8]);
  }
  // The entry before `off` (> Begin()).
  static uint32_t Prev(const char* b, uint32_t off) {
    return off - kOverhead - uint8_t(b[off - 1]);
  }

  // Offset of `member`, or 0 when absent; *rank (if given) gets its rank.
  static uint32_t Find(const char* b, std::string_view member, size_t* rank = nullptr);
  // Inserts a member that is not present (member.size() <= kCompactMaxMember); `b` may be
  // null. Returns the block, which realloc may have moved.
  static char* Insert(char* b, std::string_view member, double score);
  // Removes the entry at `off`. Returns the block (moved, or null once empty: freed).
  static char* Erase(char* b, uint32_t off);
  // Gives the entry at `off` a new score and moves it to its place; same size, no realloc.
  static void SetScore(char* b, uint32_t off, double score);
  // Offset of the entry at `rank` (< Count()).
  static uint32_t AtRank(const char* b, size_t rank);
  // How many leading entries satisfy `before(score, member)` (monotone in the order).
  template <typename Pred>
  static size_t CountBefore(const char* b, Pred&& before) {
    size_t n = 0;
    for (uint32_t off = Begin(), end = End(b); off < end; off = Next(b, off), ++n) {
      if (!before(Score(b, off), Member(b, off))) break;
    }
    return n;
  }
  // Aborts unless count, order, uniqueness, lengths and `used` agree. Returns the count.
  static size_t Verify(const char* b);

 private:
  template <typename T>
  static T Load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  template <typename T>
  static void Store(char* p, T v) {
    std::memcpy(p, &v, sizeof v);
  }
  // First offset whose entry does not sort before (score, member).
  static uint32_t InsertPos(const char* b, double score, std::string_view member);
  static void WriteEntry(char* p, std::string_view member, double score);
};

}  // namespace rc::zset_internal
