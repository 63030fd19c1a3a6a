#include "core/zset_tree.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace rc::zset_internal {

void Fail(const char* what) {
  std::fprintf(stderr, "ZSet: %s\n", what);
  std::abort();
}

namespace {

// Predicates for Descend: the items strictly before `n`, or up to and including it.
struct BeforeNode {
  double score;
  std::string_view member;
  bool operator()(double s, const ZNode* it) const {
    if (s != score) return s < score;  // the member's bytes are read only on a tie
    return it->member().compare(member) < 0;
  }
};
struct UpToNode {
  double score;
  std::string_view member;
  bool operator()(double s, const ZNode* it) const {
    if (s != score) return s < score;
    return it->member().compare(member) <= 0;
  }
};

void LeafInsertAt(Leaf* l, size_t pos, ZNode* n) {
  std::memmove(&l->items[pos + 1], &l->items[pos], (l->count - pos) * sizeof(ZNode*));
  l->items[pos] = n;
  ++l->count;
}

void LeafEraseAt(Leaf* l, size_t pos) {
  std::memmove(&l->items[pos], &l->items[pos + 1], (l->count - pos - 1) * sizeof(ZNode*));
  --l->count;
}

// Moves `k` items from the front of `b` to the back of `a` (k > 0) or -k from the back of
// `a` to the front of `b` (k < 0).
void LeafShift(Leaf* a, Leaf* b, ptrdiff_t k) {
  if (k > 0) {
    std::memcpy(&a->items[a->count], &b->items[0], k * sizeof(ZNode*));
    std::memmove(&b->items[0], &b->items[k], (b->count - k) * sizeof(ZNode*));
  } else {
    k = -k;
    std::memmove(&b->items[k], &b->items[0], b->count * sizeof(ZNode*));
    std::memcpy(&b->items[0], &a->items[a->count - k], k * sizeof(ZNode*));
    k = -k;
  }
  a->count += uint32_t(k);
  b->count -= uint32_t(k);
}

void InnerEraseAt(Inner* in, size_t i) {
  const size_t tail = in->count - i - 1;
  std::memmove(&in->child[i], &in->child[i + 1], tail * sizeof(void*));
  std::memmove(&in->counts[i], &in->counts[i + 1], tail * sizeof(uint64_t));
  std::memmove(&in->sep[i], &in->sep[i + 1], tail * sizeof(ZNode*));
  std::memmove(&in->sep_score[i], &in->sep_score[i + 1], tail * sizeof(double));
  --in->count;
}

uint64_t SumCounts(const Inner* in) {
  uint64_t s = 0;
  for (size_t i = 0; i < in->count; ++i) s += in->counts[i];
  return s;
}

}  // namespace

ZTree::~ZTree() {
  if (height_ != 0) FreeSubtree(root_, 0);
}

Leaf* ZTree::NewLeaf(uint32_t cap) {
  auto* l = static_cast<Leaf*>(std::malloc(LeafBytes(cap)));
  if (l == nullptr) Fail("out of memory for a leaf");
  l->count = 0;
  l->cap = cap;
  l->prev = l->next = nullptr;
  bytes_ += ChunkBytes(l);
  return l;
}

void ZTree::ResizeLeaf(Path* p, uint32_t cap) {
  // malloc + copy rather than realloc: realloc growing in place may absorb a neighbour's
  // slack (up to 24 B more than asked), and these blocks are small and rarely resized.
  Leaf* old = p->leaf;
  Leaf* l = NewLeaf(cap);
  l->count = old->count;
  l->prev = old->prev;
  l->next = old->next;
  std::memcpy(l->items, old->items, old->count * sizeof(ZNode*));
  FreeLeaf(old);
  p->leaf = l;
  if (l->prev) l->prev->next = l;
  if (l->next) l->next->prev = l;
  if (p->depth > 0) {
    p->steps[p->depth - 1].node->child[p->steps[p->depth - 1].ci] = l;
  } else {
    root_ = l;
  }
}

Inner* ZTree::NewInner() {
  auto* in = static_cast<Inner*>(std::malloc(sizeof(Inner)));
  if (in == nullptr) Fail("out of memory for an inner node");
  in->count = 0;
  bytes_ += ChunkBytes(in);
  return in;
}

void ZTree::FreeLeaf(Leaf* l) {
  bytes_ -= ChunkBytes(l);
  std::free(l);
}

void ZTree::FreeInner(Inner* in) {
  bytes_ -= ChunkBytes(in);
  std::free(in);
}

void ZTree::FreeSubtree(void* node, size_t level) {
  if (level + 1 == height_) {
    FreeLeaf(static_cast<Leaf*>(node));
    return;
  }
  auto* in = static_cast<Inner*>(node);
  for (size_t i = 0; i < in->count; ++i) FreeSubtree(in->child[i], level + 1);
  FreeInner(in);
}

void ZTree::Locate(const ZNode* n, Path* p) const {
  if (height_ == 0) Fail("lookup of a member in an empty tree");
  DescendInner(UpToNode{n->score(), n->member()}, p);
  const Leaf* leaf = p->leaf;
  ZNode* const* begin = leaf->items;
  ZNode* const* end = begin + leaf->count;
  ZNode* const* at = std::find(begin, end, n);
  if (at == end) Fail("member is not in the tree where its (score, member) belongs");
  p->pos = size_t(at - begin) + 1;
  p->before += p->pos;
}

size_t ZTree::Rank(const ZNode* n) const {
  Path p;
  Locate(n, &p);
  return p.before - 1;
}

ZTree::Pos ZTree::AtRank(size_t rank) const {
  if (height_ == 0) return {};
  void* node = root_;
  for (size_t level = 0; level + 1 < height_; ++level) {
    auto* in = static_cast<Inner*>(node);
    size_t i = 0;
    while (rank >= in->counts[i]) rank -= in->counts[i++];
    node = in->child[i];
  }
  return {static_cast<const Leaf*>(node), rank};
}

// ---- Insert ----------------------------------------------------------------------------

void ZTree::Insert(ZNode* n) {
  if (height_ == 0) {
    Leaf* l = NewLeaf(kLeafCaps[0]);
    l->items[l->count++] = n;
    root_ = l;
    height_ = 1;
    return;
  }
  Path p;
  Descend(BeforeNode{n->score(), n->member()}, &p);
  for (size_t i = 0; i < p.depth; ++i) ++p.steps[i].node->counts[p.steps[i].ci];
  InsertIntoLeaf(p, n);
}

void ZTree::InsertIntoLeaf(Path& p, ZNode* n) {
  size_t pos = p.pos;
  if (p.leaf->count == p.leaf->cap && p.leaf->cap < kLeafCap) {
    // A small leaf grows to the next capacity instead of splitting.
    const uint32_t* next = std::upper_bound(std::begin(kLeafCaps), std::end(kLeafCaps), p.leaf->cap);
    ResizeLeaf(&p, *next);
  }
  Leaf* leaf = p.leaf;
  if (leaf->count < leaf->cap) {
    // pos == 0 happens only in the leftmost leaf, whose minimum no separator names.
    LeafInsertAt(leaf, pos, n);
    return;
  }
  Inner* parent = p.depth > 0 ? p.steps[p.depth - 1].node : nullptr;
  const size_t ci = parent ? p.steps[p.depth - 1].ci : 0;
  // A sibling with room takes one item: fuller leaves than splitting (B*-tree style).
  if (parent && ci > 0) {
    auto* left = static_cast<Leaf*>(parent->child[ci - 1]);
    if (left->count < left->cap) {
      // ci > 0 means n sorts after this leaf's minimum, so pos >= 1.
      LeafShift(left, leaf, 1);
      LeafInsertAt(leaf, pos - 1, n);
      ++parent->counts[ci - 1];
      --parent->counts[ci];
      SetSep(parent, ci, leaf->items[0]);
      return;
    }
  }
  if (parent && ci + 1 < parent->count) {
    auto* right = static_cast<Leaf*>(parent->child[ci + 1]);
    if (right->count < right->cap) {
      if (pos == kLeafCap) {
        LeafInsertAt(right, 0, n);
      } else {
        LeafShift(leaf, right, -1);
        LeafInsertAt(leaf, pos, n);
      }
      ++parent->counts[ci + 1];
      --parent->counts[ci];
      SetSep(parent, ci + 1, right->items[0]);
      return;
    }
  }
  // Split; at either end of the whole order the new item goes alone into its own leaf.
  const size_t s = pos == kLeafCap && leaf->next == nullptr ? kLeafCap
                   : pos == 0 && leaf->prev == nullptr      ? 0
                                                            : kLeafCap / 2;
  Leaf* right = NewLeaf(kLeafCap);
  right->prev = leaf;
  right->next = leaf->next;
  if (leaf->next) leaf->next->prev = right;
  leaf->next = right;
  std::memcpy(&right->items[0], &leaf->items[s], (kLeafCap - s) * sizeof(ZNode*));
  right->count = uint32_t(kLeafCap - s);
  leaf->count = uint32_t(s);
  if (pos < s || (pos == s && s != kLeafCap)) {
    LeafInsertAt(leaf, pos, n);
  } else {
    LeafInsertAt(right, pos - s, n);
  }
  if (parent == nullptr) {
    Inner* root = NewInner();
    root->count = 2;
    root->child[0] = leaf;
    root->child[1] = right;
    root->counts[0] = leaf->count;
    root->counts[1] = right->count;
    SetSep(root, 1, right->items[0]);
    root_ = root;
    ++height_;
    return;
  }
  parent->counts[ci] = leaf->count;
  InsertChild(p, p.depth - 1, ci + 1, right, right->count, right->items[0]);
}

// Puts `child` at index `at` of the inner node at path level `level`; the caller has set
// the counts of its left neighbour. Splits upwards while nodes overflow.
void ZTree::InsertChild(Path& p, size_t level, size_t at, void* child, uint64_t count,
                        const ZNode* sep) {
  Inner* in = p.steps[level].node;
  const size_t tail = in->count - at;
  std::memmove(&in->child[at + 1], &in->child[at], tail * sizeof(void*));
  std::memmove(&in->counts[at + 1], &in->counts[at], tail * sizeof(uint64_t));
  std::memmove(&in->sep[at + 1], &in->sep[at], tail * sizeof(ZNode*));
  std::memmove(&in->sep_score[at + 1], &in->sep_score[at], tail * sizeof(double));
  in->child[at] = child;
  in->counts[at] = count;
  SetSep(in, at, sep);
  ++in->count;
  if (in->count <= kInnerCap) return;

  Inner* right = NewInner();
  const size_t s = in->count / 2;
  right->count = uint32_t(in->count - s);
  std::memcpy(&right->child[0], &in->child[s], right->count * sizeof(void*));
  std::memcpy(&right->counts[0], &in->counts[s], right->count * sizeof(uint64_t));
  std::memcpy(&right->sep[0], &in->sep[s], right->count * sizeof(ZNode*));
  std::memcpy(&right->sep_score[0], &in->sep_score[s], right->count * sizeof(double));
  in->count = uint32_t(s);
  const ZNode* right_min = right->sep[0];
  if (level == 0) {
    Inner* root = NewInner();
    root->count = 2;
    root->child[0] = in;
    root->child[1] = right;
    root->counts[0] = SumCounts(in);
    root->counts[1] = SumCounts(right);
    SetSep(root, 1, right_min);
    root_ = root;
    ++height_;
    return;
  }
  Inner* parent = p.steps[level - 1].node;
  const size_t pci = p.steps[level - 1].ci;
  parent->counts[pci] = SumCounts(in);
  InsertChild(p, level - 1, pci + 1, right, SumCounts(right), right_min);
}

// ---- Erase -----------------------------------------------------------------------------

void ZTree::Erase(const ZNode* n) {
  Path p;
  Locate(n, &p);
  EraseLocated(p);
}

void ZTree::EraseLocated(Path& p) {
  --p.pos;
  for (size_t i = 0; i < p.depth; ++i) --p.steps[i].node->counts[p.steps[i].ci];
  Leaf* leaf = p.leaf;
  LeafEraseAt(leaf, p.pos);
  if (p.pos == 0) {
    // The separator naming n must not dangle. An emptied leaf's subtree starts where the
    // next leaf does (if the subtree is the leaf alone, its separator goes with it).
    const ZNode* new_min = leaf->count > 0 ? leaf->items[0]
                           : leaf->next    ? leaf->next->items[0]
                                           : nullptr;
    if (new_min) FixMinSeparator(p, new_min);
  }
  RebalanceLeaf(p);
}

// The leaf's minimum is named by the lowest ancestor the descent entered through a child
// other than the first.
void ZTree::FixMinSeparator(const Path& p, const ZNode* new_min) {
  for (size_t level = p.depth; level-- > 0;) {
    if (p.steps[level].ci > 0) {
      SetSep(p.steps[level].node, p.steps[level].ci, new_min);
      return;
    }
  }
}

void ZTree::RebalanceLeaf(Path& p) {
  Leaf* leaf = p.leaf;
  if (p.depth == 0) {
    if (leaf->count == 0) {
      FreeLeaf(leaf);
      root_ = nullptr;
      height_ = 0;
      return;
    }
    // Shrink to the smallest capacity that is still at least twice the count (hysteresis:
    // a set hovering at a capacity boundary does not reallocate on every add/remove).
    uint32_t cap = leaf->cap;
    for (size_t i = std::size(kLeafCaps) - 1; i-- > 0;) {
      if (kLeafCaps[i] < cap && leaf->count * 2 <= kLeafCaps[i]) cap = kLeafCaps[i];
    }
    if (cap != leaf->cap) ResizeLeaf(&p, cap);
    return;
  }
  if (leaf->count >= kLeafMin) return;
  Inner* parent = p.steps[p.depth - 1].node;
  const size_t ci = p.steps[p.depth - 1].ci;
  // Pair (a, a + 1): the left sibling when there is one.
  const size_t a = ci > 0 ? ci - 1 : ci;
  auto* left = static_cast<Leaf*>(parent->child[a]);
  auto* right = static_cast<Leaf*>(parent->child[a + 1]);
  const size_t total = left->count + right->count;
  if (total <= left->cap) {
    LeafShift(left, right, ptrdiff_t(right->count));
    left->next = right->next;
    if (right->next) right->next->prev = left;
    FreeLeaf(right);
    parent->counts[a] += parent->counts[a + 1];
    InnerEraseAt(parent, a + 1);
    RebalanceInner(p, p.depth - 1);
    return;
  }
  LeafShift(left, right, ptrdiff_t(total / 2) - ptrdiff_t(left->count));
  parent->counts[a] = left->count;
  parent->counts[a + 1] = right->count;
  SetSep(parent, a + 1, right->items[0]);
}

void ZTree::RebalanceInner(Path& p, size_t level) {
  Inner* in = p.steps[level].node;
  if (level == 0) {
    if (in->count == 1) {
      root_ = in->child[0];
      FreeInner(in);
      --height_;
    }
    return;
  }
  if (in->count >= kInnerMin) return;
  Inner* parent = p.steps[level - 1].node;
  const size_t ci = p.steps[level - 1].ci;
  const size_t a = ci > 0 ? ci - 1 : ci;
  auto* left = static_cast<Inner*>(parent->child[a]);
  auto* right = static_cast<Inner*>(parent->child[a + 1]);
  if (left->count + right->count <= kInnerCap) {
    // right's first child is bounded below by the parent's separator for right.
    const size_t lc = left->count;
    std::memcpy(&left->child[lc], &right->child[0], right->count * sizeof(void*));
    std::memcpy(&left->counts[lc], &right->counts[0], right->count * sizeof(uint64_t));
    std::memcpy(&left->sep[lc], &right->sep[0], right->count * sizeof(ZNode*));
    std::memcpy(&left->sep_score[lc], &right->sep_score[0], right->count * sizeof(double));
    SetSep(left, lc, parent->sep[a + 1]);
    left->count += right->count;
    FreeInner(right);
    parent->counts[a] += parent->counts[a + 1];
    InnerEraseAt(parent, a + 1);
    RebalanceInner(p, level - 1);
    return;
  }
  // Rotate one child at a time through the parent's separator until the two are even.
  while (left->count + 1 < right->count) {
    const size_t lc = left->count;
    left->child[lc] = right->child[0];
    left->counts[lc] = right->counts[0];
    SetSep(left, lc, parent->sep[a + 1]);
    ++left->count;
    parent->counts[a] += right->counts[0];
    parent->counts[a + 1] -= right->counts[0];
    SetSep(parent, a + 1, right->sep[1]);
    InnerEraseAt(right, 0);
  }
  while (right->count + 1 < left->count) {
    const size_t lc = left->count - 1;
    std::memmove(&right->child[1], &right->child[0], right->count * sizeof(void*));
    std::memmove(&right->counts[1], &right->counts[0], right->count * sizeof(uint64_t));
    std::memmove(&right->sep[1], &right->sep[0], right->count * sizeof(ZNode*));
    std::memmove(&right->sep_score[1], &right->sep_score[0], right->count * sizeof(double));
    right->child[0] = left->child[lc];
    right->counts[0] = left->counts[lc];
    SetSep(right, 1, parent->sep[a + 1]);
    ++right->count;
    parent->counts[a] -= left->counts[lc];
    parent->counts[a + 1] += left->counts[lc];
    SetSep(parent, a + 1, left->sep[lc]);
    --left->count;
  }
}

// ---- Score change ----------------------------------------------------------------------

void ZTree::SetScore(ZNode* n, double score) {
  Path p;
  Locate(n, &p);
  const size_t pos = p.pos - 1;
  const Leaf* leaf = p.leaf;
  // In place only away from the leaf's front: a leaf minimum may be a separator, whose
  // score copy would go stale.
  if (pos > 0) {
    const ZNode* next = pos + 1 < leaf->count ? leaf->items[pos + 1]
                        : leaf->next          ? leaf->next->items[0]
                                              : nullptr;
    const std::string_view m = n->member();
    const ZNode* prev = leaf->items[pos - 1];
    if (Less(prev->score(), prev->member(), score, m) &&
        (next == nullptr || Less(score, m, next->score(), next->member()))) {
      n->set_score(score);
      return;
    }
  }
  EraseLocated(p);
  n->set_score(score);
  Insert(n);
}

// ---- Verify ----------------------------------------------------------------------------

void ZTree::VerifyNode(const void* node, size_t level, const ZNode** last, const Leaf** prev_leaf,
                       size_t* count, const ZNode** min, size_t* bytes) const {
  *bytes += ChunkBytes(node);
  if (level + 1 == height_) {
    const auto* l = static_cast<const Leaf*>(node);
    if (std::find(std::begin(kLeafCaps), std::end(kLeafCaps), l->cap) == std::end(kLeafCaps)) {
      Fail("tree: leaf capacity is not one of kLeafCaps");
    }
    if (height_ > 1 && l->cap != kLeafCap) Fail("tree: small leaf below an inner node");
    if (ChunkBytes(l) < LeafBytes(l->cap) + sizeof(size_t)) Fail("tree: leaf block too small");
    if (l->count > l->cap) Fail("tree: leaf over capacity");
    if (l->count == 0 && height_ > 1) Fail("tree: empty non-root leaf");
    if (l->prev != *prev_leaf) Fail("tree: leaf prev link broken");
    if (*prev_leaf != nullptr && (*prev_leaf)->next != l) Fail("tree: leaf next link broken");
    *prev_leaf = l;
    for (size_t i = 0; i < l->count; ++i) {
      const ZNode* it = l->items[i];
      if (*last != nullptr && !Less(*last, it)) Fail("tree: members out of order");
      *last = it;
    }
    *count = l->count;
    *min = l->count ? l->items[0] : nullptr;
    return;
  }
  const auto* in = static_cast<const Inner*>(node);
  if (in->count > kInnerCap) Fail("tree: inner node over capacity");
  if (in->count < 2) Fail("tree: inner node with fewer than two children");
  size_t total = 0;
  for (size_t i = 0; i < in->count; ++i) {
    size_t c = 0;
    const ZNode* child_min = nullptr;
    VerifyNode(in->child[i], level + 1, last, prev_leaf, &c, &child_min, bytes);
    if (c != in->counts[i]) Fail("tree: child count disagrees with its subtree");
    if (c == 0) Fail("tree: empty subtree");
    if (i == 0) {
      *min = child_min;
    } else if (in->sep[i] != child_min) {
      Fail("tree: separator is not its subtree's minimum");
    } else if (!(in->sep_score[i] == child_min->score()) ||
               std::signbit(in->sep_score[i]) != std::signbit(child_min->score())) {
      Fail("tree: separator score copy is stale");
    }
    total += c;
  }
  *count = total;
}

}  // namespace rc::zset_internal
