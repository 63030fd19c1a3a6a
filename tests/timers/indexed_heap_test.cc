// IndexedHeap against a std::multimap of (deadline, id), for arity 2 and 4 and two item
// shapes: (A) a 16-byte slot {deadline, node*} with the index in the node, (B) a bare
// node* with deadline and index in the node (every comparison loads the node).

#include "timers/indexed_heap.h"

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace rc {
namespace {

constexpr uint32_t kNotInHeap = UINT32_MAX;

// Shape A: the slot carries the deadline; the node only its position.
struct NodeA {
  int id = 0;
  uint32_t heap_idx = kNotInHeap;
};
struct SlotA {
  int64_t deadline;
  NodeA* node;
};
struct TraitsA {
  static int64_t Deadline(const SlotA& s) { return s.deadline; }
  static void SetIndex(const SlotA& s, uint32_t i) { s.node->heap_idx = i; }
};
static_assert(sizeof(SlotA) == 16);

template <int Arity>
struct ShapeA {
  using Node = NodeA;
  using Heap = IndexedHeap<SlotA, TraitsA, Arity>;
  static void Push(Heap& h, Node* n, int64_t d) { h.Push(SlotA{d, n}); }
  static void SetDeadline(Heap& h, Node* n, int64_t d) { h.Update(n->heap_idx, SlotA{d, n}); }
  static Node* NodeOf(const SlotA& s) { return s.node; }
  static int64_t DeadlineOf(const SlotA& s) { return s.deadline; }
  static uint32_t IndexOf(const SlotA& s) { return s.node->heap_idx; }
};

// Shape B: the heap holds only pointers; deadline and position live in the node.
struct NodeB {
  int id = 0;
  uint32_t heap_idx = kNotInHeap;
  int64_t deadline = 0;
};
struct TraitsB {
  static int64_t Deadline(NodeB* const& n) { return n->deadline; }
  static void SetIndex(NodeB* const& n, uint32_t i) { n->heap_idx = i; }
};

template <int Arity>
struct ShapeB {
  using Node = NodeB;
  using Heap = IndexedHeap<NodeB*, TraitsB, Arity>;
  static void Push(Heap& h, Node* n, int64_t d) {
    n->deadline = d;
    h.Push(n);
  }
  static void SetDeadline(Heap& h, Node* n, int64_t d) {
    n->deadline = d;
    h.Update(n->heap_idx);
  }
  static Node* NodeOf(NodeB* n) { return n; }
  static int64_t DeadlineOf(NodeB* n) { return n->deadline; }
  static uint32_t IndexOf(NodeB* n) { return n->heap_idx; }
};

template <typename Shape>
class IndexedHeapTest : public ::testing::Test {
 protected:
  using Node = typename Shape::Node;
  using Heap = typename Shape::Heap;
  using Ref = std::multimap<int64_t, int>;

  void SetUp() override {
    for (int i = 0; i < kNodes; ++i) {
      nodes_.push_back(std::make_unique<Node>());
      nodes_.back()->id = i;
    }
  }

  void Verify() {
    heap_.Verify([](const auto& item) { return Shape::IndexOf(item); });
    ASSERT_EQ(heap_.size(), ref_.size());
    for (const auto& [d, id] : ref_) {
      const Node* n = nodes_[id].get();
      ASSERT_NE(n->heap_idx, kNotInHeap);
      ASSERT_EQ(Shape::NodeOf(heap_.At(n->heap_idx)), n);
      ASSERT_EQ(Shape::DeadlineOf(heap_.At(n->heap_idx)), d);
    }
  }

  void RefErase(int64_t d, int id) {
    auto [lo, hi] = ref_.equal_range(d);
    for (auto it = lo; it != hi; ++it) {
      if (it->second == id) {
        ref_.erase(it);
        return;
      }
    }
    FAIL() << "id " << id << " with deadline " << d << " not in the reference";
  }

  // Pops the minimum and checks it against the reference. Returns its deadline.
  int64_t PopAndCheck() {
    EXPECT_FALSE(ref_.empty());
    const int64_t want = ref_.begin()->first;
    EXPECT_EQ(Shape::DeadlineOf(heap_.Top()), want);
    auto item = heap_.Pop();
    Node* n = Shape::NodeOf(item);
    EXPECT_EQ(Shape::DeadlineOf(item), want);
    RefErase(want, n->id);
    n->heap_idx = kNotInHeap;
    return want;
  }

  // Random mix of operations; deadlines from a range narrow enough to make ties common.
  void RunRandom(uint64_t seed, int ops, int64_t range) {
    std::mt19937_64 rng(seed);
    auto rand = [&](int64_t n) { return int64_t(rng() % uint64_t(n)); };
    const int64_t base = 1'700'000'000'000;
    for (int op = 0; op < ops; ++op) {
      Node* n = nodes_[rand(kNodes)].get();
      const bool in_heap = n->heap_idx != kNotInHeap;
      const int kind = int(rand(100));
      if (!in_heap && kind < 50) {
        const int64_t d = base + rand(range);
        Shape::Push(heap_, n, d);
        ref_.emplace(d, n->id);
      } else if (in_heap && kind < 70) {
        const int64_t old = Shape::DeadlineOf(heap_.At(n->heap_idx));
        // Earlier or later, sometimes unchanged.
        const int64_t d = old + rand(2 * range / 10 + 1) - range / 10;
        Shape::SetDeadline(heap_, n, d);
        RefErase(old, n->id);
        ref_.emplace(d, n->id);
      } else if (in_heap && kind < 85) {
        // Remove at a random position (not necessarily this node's).
        const uint32_t idx = uint32_t(rand(int64_t(heap_.size())));
        auto item = heap_.Remove(idx);
        Node* gone = Shape::NodeOf(item);
        RefErase(Shape::DeadlineOf(item), gone->id);
        gone->heap_idx = kNotInHeap;
      } else if (!heap_.empty()) {
        PopAndCheck();
      }
      if (op % 997 == 0) Verify();
      if (::testing::Test::HasFatalFailure()) return;
    }
    Verify();
    // Drain: non-decreasing and equal to the reference's order.
    int64_t last = INT64_MIN;
    while (!heap_.empty()) {
      const int64_t d = PopAndCheck();
      ASSERT_GE(d, last);
      last = d;
    }
    EXPECT_TRUE(ref_.empty());
  }

  static constexpr int kNodes = 4000;
  std::vector<std::unique_ptr<Node>> nodes_;
  Heap heap_;
  Ref ref_;
};

using Shapes = ::testing::Types<ShapeA<2>, ShapeA<4>, ShapeB<2>, ShapeB<4>>;
TYPED_TEST_SUITE(IndexedHeapTest, Shapes);

TYPED_TEST(IndexedHeapTest, RandomManyTies) { this->RunRandom(1, 200'000, 50); }

TYPED_TEST(IndexedHeapTest, RandomWideRange) {
  for (uint64_t seed = 2; seed < 6; ++seed) {
    this->RunRandom(seed, 100'000, 3'600'000);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TYPED_TEST(IndexedHeapTest, AscendingDescendingAndEqual) {
  using Shape = TypeParam;
  auto& heap = this->heap_;
  auto& nodes = this->nodes_;
  const int n = this->kNodes;
  for (int i = 0; i < n; ++i) {
    // A third ascending, a third descending, a third equal.
    const int64_t d = i < n / 3 ? i : i < 2 * n / 3 ? 10'000 - i : 5'000;
    Shape::Push(heap, nodes[i].get(), d);
    this->ref_.emplace(d, i);
  }
  this->Verify();
  // Move every node past the others, one by one, then back to the front.
  for (int i = 0; i < n; i += 7) Shape::SetDeadline(heap, nodes[i].get(), 20'000 + i);
  for (int i = 0; i < n; i += 7) Shape::SetDeadline(heap, nodes[i].get(), -i);
  this->ref_.clear();
  for (int i = 0; i < n; ++i) {
    this->ref_.emplace(Shape::DeadlineOf(heap.At(nodes[i]->heap_idx)), i);
  }
  this->Verify();
  int64_t last = INT64_MIN;
  while (!heap.empty()) {
    const int64_t d = this->PopAndCheck();
    ASSERT_GE(d, last);
    last = d;
  }
}

TYPED_TEST(IndexedHeapTest, RemoveLastAndOnly) {
  using Shape = TypeParam;
  auto& heap = this->heap_;
  auto* a = this->nodes_[0].get();
  auto* b = this->nodes_[1].get();
  Shape::Push(heap, a, 10);
  EXPECT_EQ(Shape::NodeOf(heap.Remove(0)), a);
  EXPECT_TRUE(heap.empty());
  Shape::Push(heap, a, 10);
  Shape::Push(heap, b, 20);
  EXPECT_EQ(Shape::NodeOf(heap.Remove(b->heap_idx)), b);  // the last slot
  EXPECT_EQ(heap.size(), 1u);
  EXPECT_EQ(a->heap_idx, 0u);
  EXPECT_EQ(Shape::NodeOf(heap.Pop()), a);
}

}  // namespace
}  // namespace rc
