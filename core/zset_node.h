#pragma once
// One sorted-set member in a single malloc'd block, shared by the member index (which
// chains through `next`) and the order tree (whose leaves point at it):
//
//   [next: 8][score: 8][len: 1 | 0xFF + len: 4][member bytes]
//
// A 15-byte member needs 32 bytes, which glibc serves from a 48-byte chunk. The hash is
// not stored: the index recomputes it on the rare rehash move, as the keyspace does.

#include <malloc.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "absl/hash/hash.h"
#include "core/chunk_bytes.h"

namespace rc::zset_internal {

[[noreturn]] void Fail(const char* what);

class ZNode {
 public:
  static ZNode* Make(std::string_view member, double score) {
    const bool wide = member.size() >= kWideMark;
    const size_t header = kLenOffset + (wide ? 1 + sizeof(uint32_t) : 1);
    auto* n = static_cast<ZNode*>(std::malloc(header + member.size()));
    if (n == nullptr) Fail("out of memory for a member");
    n->next_ = nullptr;
    n->score_ = score;
    char* base = reinterpret_cast<char*>(n);
    if (wide) {
      base[kLenOffset] = char(kWideMark);
      const uint32_t len = uint32_t(member.size());
      std::memcpy(base + kLenOffset + 1, &len, sizeof(len));
    } else {
      base[kLenOffset] = char(member.size());
    }
    if (!member.empty()) std::memcpy(base + header, member.data(), member.size());
    return n;
  }
  static void Free(ZNode* n) { std::free(n); }

  std::string_view member() const {
    const char* base = reinterpret_cast<const char*>(this);
    const uint8_t b = uint8_t(base[kLenOffset]);
    if (b != kWideMark) return {base + kLenOffset + 1, b};
    uint32_t len;
    std::memcpy(&len, base + kLenOffset + 1, sizeof(len));
    return {base + kLenOffset + 1 + sizeof(len), len};
  }

  ZNode* next() const { return next_; }
  void set_next(ZNode* n) { next_ = n; }
  // Never NaN; -0.0 and 0.0 compare equal, as in Redis.
  double score() const { return score_; }
  void set_score(double s) { score_ = s; }

 private:
  static constexpr uint8_t kWideMark = 0xFF;
  static constexpr size_t kLenOffset = 16;

  ZNode() = default;
  ZNode* next_;
  double score_;
  // The length byte and member bytes follow, unaligned.
};
static_assert(sizeof(ZNode) == 16);

inline uint64_t HashMember(std::string_view m) { return absl::Hash<std::string_view>{}(m); }

struct ZNodeTraits {
  static ZNode* Next(const ZNode* n) { return n->next(); }
  static void SetNext(ZNode* n, ZNode* next) { n->set_next(next); }
  static uint64_t Hash(const ZNode* n) { return HashMember(n->member()); }
};

// Redis's order: by score, then by member bytes as memcmp sees them, a prefix first.
// (char_traits<char>::compare is memcmp-like, i.e. unsigned, and shorter sorts first.)
inline bool Less(double as, std::string_view am, double bs, std::string_view bm) {
  if (as < bs) return true;
  if (bs < as) return false;
  return am.compare(bm) < 0;
}
inline bool Less(const ZNode* a, const ZNode* b) {
  return Less(a->score(), a->member(), b->score(), b->member());
}

}  // namespace rc::zset_internal
