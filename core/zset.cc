// ZSet = a compact block (core/zset_compact.h) while small, else a Big: a member index
// (IntrusiveTable chaining through each ZNode) + an order tree (ZTree, a counted B+tree
// whose leaves point at the same ZNodes). A big member is one malloc block that both
// structures share; see core/zset_node.h and core/zset_tree.h for layouts and docs/ZSET.md
// for the measured bytes per member.
//
//   Add ──> compact? ─┬─ fits:  Compact::Find ─> Insert / SetScore (linear, <= 128)
//                     └─ 129th member or one > 64 B: ToBig, then as big
//           big: Find ─┬─ absent:  ZNode::Make ─> index.Insert ─> tree.Insert
//                      └─ present: tree.SetScore (in place, or erase + insert)
//   Remove ─> compact: Compact::Erase │ big: index.Detach ─> tree.Erase ─> ZNode::Free
//   Rank / ScoreRank / LexRank ─> Compact::CountBefore │ tree.CountBefore
//   Scan ─> compact: everything, cursor 0 │ index.Scan (Redis dictScan cursor)

#include "core/zset.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "core/intrusive_table.h"
#include "core/zset_compact.h"
#include "core/zset_tree.h"

namespace rc {

using zset_internal::Compact;
using zset_internal::HashMember;
using zset_internal::Leaf;
using Node = zset_internal::ZNode;

namespace {

struct MemberEq {
  std::string_view member;
  bool operator()(const Node* n) const { return n->member() == member; }
};

constexpr uintptr_t kCompactTag = 1;  // leaves and malloc blocks are 16-aligned

const char* Block(const void* tagged) {
  return reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(tagged) & ~kCompactTag);
}
bool IsCompact(const void* tagged) {
  return (reinterpret_cast<uintptr_t>(tagged) & kCompactTag) != 0;
}

}  // namespace

struct ZSet::Big {
  using Index = IntrusiveTable<Node, zset_internal::ZNodeTraits>;

  Node* Find(std::string_view member) const {
    return index.Find(HashMember(member), MemberEq{member});
  }

  // Lookups advance the index's incremental rehash (as Redis's dictFind does), so even
  // const methods may move buckets: hence mutable. Nothing else changes under const.
  mutable Index index;        // owns nothing; members are freed through tree order
  zset_internal::ZTree tree;  // also counts the member nodes' allocator bytes
};

// Every set pays for the object; compact ones for nothing else of the big encoding.
// (malloc(16..24) is the smallest glibc chunk, 32 B.)
static_assert(sizeof(ZSet) <= 24);

ZSet::ZSet() = default;

// Runs on a thread-pool thread for large sets: only this set's own blocks are touched.
ZSet::~ZSet() {
  std::free(small_);
  if (big_ != nullptr) {
    big_->tree.Clear([](Node* n) { Node::Free(n); });
    delete big_;
  }
}

size_t ZSet::size() const {
  if (big_ != nullptr) return big_->index.size();
  return small_ ? Compact::Count(small_) : 0;
}

std::unique_ptr<ZSet> ZSet::Clone() const {
  auto z = std::make_unique<ZSet>();
  if (small_ != nullptr) {
    // The block is exactly its used bytes (Compact::Insert reallocates to fit).
    const uint32_t used = Compact::Used(small_);
    z->small_ = static_cast<char*>(std::malloc(used));
    if (z->small_ == nullptr) throw std::bad_alloc();
    std::memcpy(z->small_, small_, used);
  } else if (big_ != nullptr) {
    z->ToBig();
    // In order, so each insert lands at the tree's right edge.
    for (Iterator it = AtRank(0); it.Valid(); it.Next()) {
      Node* n = Node::Make(it.member(), it.score());
      z->big_->index.Insert(n, HashMember(it.member()));
      z->big_->tree.Insert(n);
      z->big_->tree.AddMemberBytes(ChunkBytes(n));
    }
  }
  return z;
}

// Redis's zsetConvert: every member moves into a node, in order, and the block goes.
void ZSet::ToBig() {
  auto big = std::make_unique<Big>();
  if (small_ != nullptr) {
    for (uint32_t off = Compact::Begin(), end = Compact::End(small_); off < end;
         off = Compact::Next(small_, off)) {
      const std::string_view member = Compact::Member(small_, off);
      Node* n = Node::Make(member, Compact::Score(small_, off));
      big->index.Insert(n, HashMember(member));
      big->tree.Insert(n);
      big->tree.AddMemberBytes(ChunkBytes(n));
    }
    std::free(small_);
    small_ = nullptr;
  }
  big_ = big.release();
}

ZSet::AddResult ZSet::Add(std::string_view member, double score, const Limits& limits) {
  if (big_ == nullptr) {
    if (const uint32_t off = Compact::Find(small_, member)) {
      if (Compact::Score(small_, off) == score) return AddResult::kUnchanged;  // -0 == 0
      Compact::SetScore(small_, off, score);
      return AddResult::kUpdated;
    }
    if (size() < limits.entries &&
        member.size() <= std::min(limits.value, zset_internal::kCompactMaxMember)) {
      small_ = Compact::Insert(small_, member, score);
      return AddResult::kAdded;
    }
    ToBig();  // the member is new, so the add below inserts it
  }
  const uint64_t hash = HashMember(member);
  if (Node* n = big_->index.Find(hash, MemberEq{member})) {
    if (n->score() == score) return AddResult::kUnchanged;  // -0.0 == 0.0, as in Redis
    big_->tree.SetScore(n, score);
    return AddResult::kUpdated;
  }
  Node* n = Node::Make(member, score);
  big_->index.Insert(n, hash);
  big_->tree.Insert(n);
  big_->tree.AddMemberBytes(ChunkBytes(n));
  return AddResult::kAdded;
}

bool ZSet::Remove(std::string_view member) {
  if (big_ == nullptr) {
    const uint32_t off = Compact::Find(small_, member);
    if (off == 0) return false;
    small_ = Compact::Erase(small_, off);
    return true;
  }
  Node* n = big_->index.Detach(HashMember(member), MemberEq{member});
  if (n == nullptr) return false;
  big_->tree.Erase(n);
  big_->tree.SubMemberBytes(ChunkBytes(n));
  Node::Free(n);
  return true;
}

std::optional<double> ZSet::Score(std::string_view member) const {
  if (big_ == nullptr) {
    const uint32_t off = Compact::Find(small_, member);
    if (off == 0) return std::nullopt;
    return Compact::Score(small_, off);
  }
  const Node* n = big_->Find(member);
  if (n == nullptr) return std::nullopt;
  return n->score();
}

std::optional<size_t> ZSet::Rank(std::string_view member) const {
  if (big_ == nullptr) {
    size_t rank;
    if (Compact::Find(small_, member, &rank) == 0) return std::nullopt;
    return rank;
  }
  const Node* n = big_->Find(member);
  if (n == nullptr) return std::nullopt;
  return big_->tree.Rank(n);
}

// The tree's predicates see a node; score-only ones must not read its member bytes (a
// cache miss per level), hence one helper for scores and one for members.
template <typename Pred>
size_t ZSet::CountScores(Pred before) const {
  if (big_ != nullptr) {
    return big_->tree.CountBefore([&](double s, const Node*) { return before(s); });
  }
  if (small_ == nullptr) return 0;
  return Compact::CountBefore(small_, [&](double s, std::string_view) { return before(s); });
}

template <typename Pred>
size_t ZSet::CountMembers(Pred before) const {
  if (big_ != nullptr) {
    return big_->tree.CountBefore([&](double, const Node* n) { return before(n->member()); });
  }
  if (small_ == nullptr) return 0;
  return Compact::CountBefore(small_, [&](double, std::string_view m) { return before(m); });
}

size_t ZSet::ScoreRank(ScoreBound min) const {
  const double v = min.value;
  if (min.exclusive) return CountScores([v](double s) { return s <= v; });
  return CountScores([v](double s) { return s < v; });
}

size_t ZSet::ScoreRankEnd(ScoreBound max) const {
  const double v = max.value;
  if (max.exclusive) return CountScores([v](double s) { return s < v; });
  return CountScores([v](double s) { return s <= v; });
}

size_t ZSet::LexRank(const LexBound& min) const {
  const std::string_view v = min.value;
  switch (min.kind) {
    case LexBound::Kind::kMin:
      return 0;
    case LexBound::Kind::kMax:
      return size();
    case LexBound::Kind::kInclusive:
      return CountMembers([v](std::string_view m) { return m < v; });
    case LexBound::Kind::kExclusive:
      return CountMembers([v](std::string_view m) { return m <= v; });
  }
  return 0;
}

size_t ZSet::LexRankEnd(const LexBound& max) const {
  const std::string_view v = max.value;
  switch (max.kind) {
    case LexBound::Kind::kMin:
      return 0;
    case LexBound::Kind::kMax:
      return size();
    case LexBound::Kind::kInclusive:
      return CountMembers([v](std::string_view m) { return m <= v; });
    case LexBound::Kind::kExclusive:
      return CountMembers([v](std::string_view m) { return m < v; });
  }
  return 0;
}

// ---- Iterator --------------------------------------------------------------------------

bool ZSet::Iterator::Valid() const { return node_ != nullptr; }

std::string_view ZSet::Iterator::member() const {
  if (IsCompact(node_)) return Compact::Member(Block(node_), uint32_t(pos_));
  return static_cast<const Leaf*>(node_)->items[pos_]->member();
}

double ZSet::Iterator::score() const {
  if (IsCompact(node_)) return Compact::Score(Block(node_), uint32_t(pos_));
  return static_cast<const Leaf*>(node_)->items[pos_]->score();
}

void ZSet::Iterator::Next() {
  if (IsCompact(node_)) {
    const char* b = Block(node_);
    pos_ = Compact::Next(b, uint32_t(pos_));
    if (pos_ == Compact::End(b)) node_ = nullptr;
    return;
  }
  const auto* leaf = static_cast<const Leaf*>(node_);
  if (++pos_ < leaf->count) return;
  node_ = leaf->next;
  pos_ = 0;
}

void ZSet::Iterator::Prev() {
  if (IsCompact(node_)) {
    if (pos_ == Compact::Begin()) {
      node_ = nullptr;
    } else {
      pos_ = Compact::Prev(Block(node_), uint32_t(pos_));
    }
    return;
  }
  const auto* leaf = static_cast<const Leaf*>(node_);
  if (pos_ > 0) {
    --pos_;
    return;
  }
  leaf = leaf->prev;
  node_ = leaf;
  pos_ = leaf ? leaf->count - 1 : 0;
}

ZSet::Iterator ZSet::AtRank(size_t rank) const {
  Iterator it;
  if (rank >= size()) return it;
  if (big_ == nullptr) {
    it.node_ = reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(small_) | kCompactTag);
    it.pos_ = Compact::AtRank(small_, rank);
    return it;
  }
  const zset_internal::ZTree::Pos pos = big_->tree.AtRank(rank);
  it.node_ = pos.leaf;
  it.pos_ = pos.idx;
  return it;
}

// ---- Scan, memory, Verify --------------------------------------------------------------

uint64_t ZSet::Scan(uint64_t cursor, size_t count,
                    absl::FunctionRef<void(std::string_view member, double score)> fn) const {
  if (big_ == nullptr) {
    // Like Redis's listpack: the whole set in order, in one call, whatever the cursor.
    for (auto it = AtRank(0); it.Valid(); it.Next()) fn(it.member(), it.score());
    return 0;
  }
  // Like Redis, bound the buckets read per call, so a sparse table (after mass removals,
  // before its shrink finishes) cannot make one call walk millions of empty buckets.
  size_t visited = 0;
  size_t buckets_left = std::max<size_t>(count, 1) * 10;
  do {
    cursor = big_->index.Scan(cursor, [&](const Node* n) {
      fn(n->member(), n->score());
      ++visited;
    });
  } while (cursor != 0 && visited < count && --buckets_left > 0);
  return cursor;
}

size_t ZSet::MemoryBytes() const {
  if (big_ == nullptr) return small_ ? ChunkBytes(small_) : 0;
  // The bucket arrays come from calloc: one size word each on top of the slots.
  const size_t buckets = big_->index.BucketBytes();
  const size_t arrays = buckets == 0 ? 0 : buckets + 16;
  return ChunkBytes(big_) + big_->tree.Bytes() + arrays;
}

void ZSet::Verify() const {
  using zset_internal::Fail;
  if (big_ == nullptr) {
    Compact::Verify(small_);
    return;
  }
  if (small_ != nullptr) Fail("a big set keeps a compact block");
  big_->index.Verify();
  const size_t in_tree = big_->tree.Verify([&](const Node* n) {  // also checks the bytes
    if (big_->index.Find(HashMember(n->member()), [n](const Node* x) { return x == n; }) != n) {
      Fail("a tree member is missing from the index");
    }
  });
  if (big_->index.size() != in_tree) Fail("index and tree hold different member counts");
}

}  // namespace rc
