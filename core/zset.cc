// ZSet = a member index (IntrusiveTable chaining through each ZNode) + an order tree
// (ZTree, a counted B+tree whose leaves point at the same ZNodes). A member is one malloc
// block that both structures share; see core/zset_node.h and core/zset_tree.h for layouts
// and docs/ZSET.md for the measured bytes per member.
//
//   Add ──> Find ─┬─ absent:  ZNode::Make ─> index_.Insert ─> tree_.Insert
//                 └─ present: tree_.SetScore (in place, or erase + insert)
//   Remove ─> index_.Detach ─> tree_.Erase ─> ZNode::Free
//   Rank / ScoreRank / LexRank ─> tree_.CountBefore(predicate on (score, member))
//   Scan ─> index_.Scan (Redis dictScan cursor: survives rehashes between calls)

#include "core/zset.h"

#include <algorithm>

namespace rc {

using zset_internal::ChunkBytes;
using zset_internal::HashMember;
using zset_internal::Leaf;

namespace {

struct MemberEq {
  std::string_view member;
  bool operator()(const zset_internal::ZNode* n) const { return n->member() == member; }
};

}  // namespace

// malloc(88) is a 96-byte chunk; one more word would make every set cost 112.
static_assert(sizeof(ZSet) <= 88);

ZSet::ZSet() = default;

// Runs on a thread-pool thread for large sets: only this set's own blocks are touched.
ZSet::~ZSet() {
  tree_.Clear([](Node* n) { Node::Free(n); });
}

size_t ZSet::size() const { return index_.size(); }

ZSet::Node* ZSet::Find(std::string_view member) const {
  return index_.Find(HashMember(member), MemberEq{member});
}

ZSet::AddResult ZSet::Add(std::string_view member, double score) {
  const uint64_t hash = HashMember(member);
  if (Node* n = index_.Find(hash, MemberEq{member})) {
    if (n->score() == score) return AddResult::kUnchanged;  // -0.0 == 0.0, as in Redis
    tree_.SetScore(n, score);
    return AddResult::kUpdated;
  }
  Node* n = Node::Make(member, score);
  index_.Insert(n, hash);
  tree_.Insert(n);
  tree_.AddMemberBytes(ChunkBytes(n));
  return AddResult::kAdded;
}

bool ZSet::Remove(std::string_view member) {
  Node* n = index_.Detach(HashMember(member), MemberEq{member});
  if (n == nullptr) return false;
  tree_.Erase(n);
  tree_.SubMemberBytes(ChunkBytes(n));
  Node::Free(n);
  return true;
}

std::optional<double> ZSet::Score(std::string_view member) const {
  const Node* n = Find(member);
  if (n == nullptr) return std::nullopt;
  return n->score();
}

std::optional<size_t> ZSet::Rank(std::string_view member) const {
  const Node* n = Find(member);
  if (n == nullptr) return std::nullopt;
  return tree_.Rank(n);
}

size_t ZSet::ScoreRank(ScoreBound min) const {
  const double v = min.value;
  if (min.exclusive) return tree_.CountBefore([v](double s, const Node*) { return s <= v; });
  return tree_.CountBefore([v](double s, const Node*) { return s < v; });
}

size_t ZSet::ScoreRankEnd(ScoreBound max) const {
  const double v = max.value;
  if (max.exclusive) return tree_.CountBefore([v](double s, const Node*) { return s < v; });
  return tree_.CountBefore([v](double s, const Node*) { return s <= v; });
}

size_t ZSet::LexRank(const LexBound& min) const {
  const std::string_view v = min.value;
  switch (min.kind) {
    case LexBound::Kind::kMin:
      return 0;
    case LexBound::Kind::kMax:
      return size();
    case LexBound::Kind::kInclusive:
      return tree_.CountBefore([v](double, const Node* n) { return n->member() < v; });
    case LexBound::Kind::kExclusive:
      return tree_.CountBefore([v](double, const Node* n) { return n->member() <= v; });
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
      return tree_.CountBefore([v](double, const Node* n) { return n->member() <= v; });
    case LexBound::Kind::kExclusive:
      return tree_.CountBefore([v](double, const Node* n) { return n->member() < v; });
  }
  return 0;
}

// ---- Iterator --------------------------------------------------------------------------

bool ZSet::Iterator::Valid() const { return node_ != nullptr; }

std::string_view ZSet::Iterator::member() const {
  return static_cast<const Leaf*>(node_)->items[pos_]->member();
}

double ZSet::Iterator::score() const {
  return static_cast<const Leaf*>(node_)->items[pos_]->score();
}

void ZSet::Iterator::Next() {
  const auto* leaf = static_cast<const Leaf*>(node_);
  if (++pos_ < leaf->count) return;
  node_ = leaf->next;
  pos_ = 0;
}

void ZSet::Iterator::Prev() {
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
  const zset_internal::ZTree::Pos pos = tree_.AtRank(rank);
  it.node_ = pos.leaf;
  it.pos_ = pos.idx;
  return it;
}

// ---- Scan, memory, Verify --------------------------------------------------------------

uint64_t ZSet::Scan(uint64_t cursor, size_t count,
                    absl::FunctionRef<void(std::string_view member, double score)> fn) const {
  // Like Redis, bound the buckets read per call, so a sparse table (after mass removals,
  // before its shrink finishes) cannot make one call walk millions of empty buckets.
  size_t visited = 0;
  size_t buckets_left = std::max<size_t>(count, 1) * 10;
  do {
    cursor = index_.Scan(cursor, [&](const Node* n) {
      fn(n->member(), n->score());
      ++visited;
    });
  } while (cursor != 0 && visited < count && --buckets_left > 0);
  return cursor;
}

size_t ZSet::MemoryBytes() const {
  // The bucket arrays come from calloc: one size word each on top of the slots.
  const size_t arrays = index_.BucketBytes() == 0 ? 0 : index_.BucketBytes() + 16;
  return tree_.Bytes() + arrays;
}

void ZSet::Verify() const {
  using zset_internal::Fail;
  index_.Verify();
  const size_t in_tree = tree_.Verify([&](const Node* n) {  // also checks the byte total
    if (index_.Find(HashMember(n->member()), [n](const Node* x) { return x == n; }) != n) {
      Fail("a tree member is missing from the index");
    }
  });
  if (index_.size() != in_tree) Fail("index and tree hold different member counts");
}

}  // namespace rc
