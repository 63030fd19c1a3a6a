#pragma once
// The order-statistic half of a sorted set: a B+tree over ZNode pointers ordered by
// (score, member), whose inner nodes keep each child's item count, so rank and
// access-by-rank are O(log n) (Dragonfly's bptree has the same shape).
//
// Layout. A leaf is a count, its capacity, prev/next links and up to 60 member pointers;
// a full-capacity leaf is one 512-byte chunk and a member costs its leaf slot (8 B / fill).
// Small sets: a root leaf starts with room for 4 items and grows through 8, 16, 32 to 60
// (each size exactly a glibc chunk: 64, 96, 160, 288, 512 B) before it ever splits, and
// shrinks back a step once erases leave it at most half of the smaller capacity. Every
// leaf below the root is full capacity (splits only happen at 60 and make 60s), so merges
// and borrows between siblings never meet a small leaf. An inner node holds,
// per child, the child pointer, the child's item count and a separator: seps[i] is the
// smallest member of child i (i ≥ 1), with a copy of its score so a descent only reads a
// member's bytes when scores tie. Separators are pointers, not copies, so removing a
// subtree's smallest member re-points the one ancestor separator that named it.
//
//   Insert: Descend(< key) ─> counts++ on the path ─> leaf insert
//           full leaf: shift one item to a sibling with room, else split ─> InsertChild
//   Erase:  Locate(n) (descend by <= key, find n's pointer in the leaf) ─> counts--
//           ─> leaf erase ─> fix min separator
//           ─> underfull leaf: merge with or borrow from a sibling ─> RebalanceInner upwards
//
// Splits at either end of the whole order put the new item alone in the new leaf, so ascending
// or descending loads leave full leaves behind (100% fill) instead of half-full ones.
// Leaves may thus hold as little as one item; only an empty non-root leaf is illegal.
// Single-threaded; the destructor touches nothing but its own nodes.

#include <cstddef>
#include <cstdint>
#include <iterator>

#include "core/zset_node.h"

namespace rc::zset_internal {

inline constexpr size_t kLeafCap = 60;  // 24 + 60 * 8 = 504 B: a 512 B chunk
// The capacities a leaf may have, smallest first; the last is kLeafCap.
inline constexpr uint32_t kLeafCaps[] = {4, 8, 16, 32, uint32_t(kLeafCap)};
inline constexpr size_t kLeafMin = kLeafCap / 3;
inline constexpr size_t kInnerCap = 31;  // children; one spare slot absorbs overflow
inline constexpr size_t kInnerMin = kInnerCap / 3;
inline constexpr size_t kMaxDepth = 32;  // min fanout 2 at worst: far beyond 2^32 items

struct Leaf {
  uint32_t count;
  uint32_t cap;  // one of kLeafCaps; kLeafCap for every leaf of a tree taller than 1
  Leaf* prev;
  Leaf* next;
  ZNode* items[];  // `cap` slots (a GNU flexible array member)
};

inline constexpr size_t LeafBytes(size_t cap) { return sizeof(Leaf) + cap * sizeof(ZNode*); }
// glibc's usable sizes are 16k - 8: each capacity fills its chunk with no slack.
static_assert(sizeof(Leaf) == 24);
static_assert([] {
  for (uint32_t c : kLeafCaps) {
    if ((LeafBytes(c) + 8) % 16 != 0 || LeafBytes(c) < 24) return false;
  }
  return kLeafCaps[std::size(kLeafCaps) - 1] == kLeafCap;
}());

struct Inner {
  uint32_t count;  // children
  double sep_score[kInnerCap + 1];
  const ZNode* sep[kInnerCap + 1];  // sep[0] unused
  void* child[kInnerCap + 1];       // Inner* or, one level above the leaves, Leaf*
  uint64_t counts[kInnerCap + 1];
};

class ZTree {
 public:
  ZTree() = default;
  ~ZTree();  // frees tree nodes only; members belong to the caller
  ZTree(const ZTree&) = delete;
  ZTree& operator=(const ZTree&) = delete;

  // No size(): the owner's member index counts the members (keeping ZSet at 88 bytes, a
  // 96-byte chunk); Verify returns the count it finds.
  bool empty() const { return height_ == 0; }
  // Allocator bytes of leaves and inner nodes, plus the member bytes the owner reports
  // (one counter, so a ZSet object stays in a 96-byte chunk).
  size_t Bytes() const { return bytes_; }
  void AddMemberBytes(size_t b) { bytes_ += b; }
  void SubMemberBytes(size_t b) { bytes_ -= b; }

  // `n` must not be in the tree and must not tie with a member that is.
  void Insert(ZNode* n);
  // `n` must be in the tree with its current score.
  void Erase(const ZNode* n);
  // Moves `n` to `score`: in place when its neighbours still bracket it, else erase+insert.
  void SetScore(ZNode* n, double score);

  // The number of members for which before(score, node) holds; `before` must hold for a
  // prefix of the order (it is evaluated on separators and leaf items alike).
  template <typename Pred>
  size_t CountBefore(Pred&& before) const;
  size_t Rank(const ZNode* n) const;

  struct Pos {
    const Leaf* leaf = nullptr;
    size_t idx = 0;
  };
  Pos AtRank(size_t rank) const;  // rank < the member count

  // Calls fn(ZNode*) on every member in order, then frees the tree's nodes.
  template <typename Fn>
  void Clear(Fn&& fn);

  // Aborts on the first broken invariant; calls visit(const ZNode*) on each member and
  // returns how many there are.
  template <typename Fn>
  size_t Verify(Fn&& visit) const;

 private:
  struct Step {
    Inner* node;
    size_t ci;  // which child the descent took
  };
  struct Path {
    Step steps[kMaxDepth];
    size_t depth = 0;  // == height_ - 1 once a descent reaches the leaf
    Leaf* leaf = nullptr;
    size_t pos = 0;     // items in the leaf for which the predicate held
    size_t before = 0;  // items in the whole tree for which it held
  };

  template <typename Pred>
  void DescendInner(Pred&& before, Path* p) const;  // stops at the leaf
  template <typename Pred>
  void Descend(Pred&& before, Path* p) const;
  // Descends to the leaf holding `n` and sets p->pos to n's index + 1 (as Descend with
  // "up to n" would), finding n by pointer in the leaf: no member reads there, which are
  // the cache misses that dominate a descent.
  void Locate(const ZNode* n, Path* p) const;
  static void SetSep(Inner* in, size_t i, const ZNode* n) {
    in->sep[i] = n;
    in->sep_score[i] = n->score();
  }

  Leaf* NewLeaf(uint32_t cap);
  // Reallocates p->leaf to `cap` slots (>= its count) and re-points whatever named it
  // (neighbours' links, the parent's child slot or root_, p->leaf).
  void ResizeLeaf(Path* p, uint32_t cap);
  Inner* NewInner();
  void FreeLeaf(Leaf* l);
  void FreeInner(Inner* in);
  void FreeSubtree(void* node, size_t level);

  void InsertIntoLeaf(Path& p, ZNode* n);
  void EraseLocated(Path& p);  // p from Locate
  void InsertChild(Path& p, size_t level, size_t at, void* child, uint64_t count, const ZNode* sep);
  void FixMinSeparator(const Path& p, const ZNode* new_min);
  void RebalanceLeaf(Path& p);
  void RebalanceInner(Path& p, size_t level);
  void VerifyNode(const void* node, size_t level, const ZNode** last, const Leaf** prev_leaf,
                  size_t* count, const ZNode** min, size_t* bytes) const;

  void* root_ = nullptr;  // Leaf* when height_ == 1
  size_t height_ = 0;     // 0: empty
  size_t bytes_ = 0;
};

// ---- Templates -------------------------------------------------------------------------

template <typename Pred>
void ZTree::DescendInner(Pred&& before, Path* p) const {
  p->depth = 0;
  p->before = 0;
  void* node = root_;
  for (size_t level = 0; level + 1 < height_; ++level) {
    auto* in = static_cast<Inner*>(node);
    // The last child whose smallest member is still "before": everything left of it is.
    size_t lo = 1, hi = in->count;  // answer in [lo - 1, hi - 1]
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (before(in->sep_score[mid], in->sep[mid])) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    const size_t ci = lo - 1;
    for (size_t i = 0; i < ci; ++i) p->before += in->counts[i];
    p->steps[p->depth++] = {in, ci};
    node = in->child[ci];
  }
  p->leaf = static_cast<Leaf*>(node);
}

template <typename Pred>
void ZTree::Descend(Pred&& before, Path* p) const {
  DescendInner(before, p);
  const Leaf* leaf = p->leaf;
  size_t lo = 0, hi = leaf ? leaf->count : 0;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const ZNode* it = leaf->items[mid];
    if (before(it->score(), it)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  p->pos = lo;
  p->before += lo;
}

template <typename Pred>
size_t ZTree::CountBefore(Pred&& before) const {
  if (height_ == 0) return 0;
  Path p;
  Descend(before, &p);
  return p.before;
}

template <typename Fn>
void ZTree::Clear(Fn&& fn) {
  if (height_ == 0) return;
  Path p;
  Descend([](double, const ZNode*) { return false; }, &p);
  for (Leaf* l = p.leaf; l != nullptr; l = l->next) {
    for (size_t i = 0; i < l->count; ++i) fn(l->items[i]);
  }
  FreeSubtree(root_, 0);
  root_ = nullptr;
  height_ = 0;
  bytes_ = 0;
}

template <typename Fn>
size_t ZTree::Verify(Fn&& visit) const {
  if (height_ == 0) {
    if (root_ != nullptr || bytes_ != 0) Fail("tree: empty tree with a root or bytes");
    return 0;
  }
  const ZNode* last = nullptr;
  const Leaf* prev_leaf = nullptr;
  size_t count = 0;
  const ZNode* min = nullptr;
  size_t bytes = 0;
  VerifyNode(root_, 0, &last, &prev_leaf, &count, &min, &bytes);
  if (prev_leaf->next != nullptr) Fail("tree: last leaf has a next link");
  Path p;
  DescendInner([](double, const ZNode*) { return false; }, &p);
  for (const Leaf* l = p.leaf; l != nullptr; l = l->next) {
    for (size_t i = 0; i < l->count; ++i) {
      visit(l->items[i]);
      bytes += ChunkBytes(l->items[i]);
    }
  }
  if (bytes != bytes_) Fail("tree: byte count (nodes + members) drifted");
  return count;
}

}  // namespace rc::zset_internal
