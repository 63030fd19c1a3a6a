// TimingWheel against a reference std::set of (deadline, id): random deadlines from the
// past to decades ahead, renewals, removals, time jumps of 0 ms to years, bounded expiry
// steps left half done, callbacks that change the wheel. Checked: nothing is delivered
// early or twice, nothing due is left behind, NextDeadlineHint never overshoots, and
// Verify() holds throughout.

#include "timers/timing_wheel.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/sanitizer_scale.h"

namespace rc {
namespace {

using test::SanitizerScaled;

constexpr int64_t kBase = 1'700'000'000'000;  // Unix ms, late 2023
constexpr int64_t kYear = 365LL * 24 * 3600 * 1000;

struct Node {
  TimerHook hook;
  int id = 0;
};

class WheelHarness {
 public:
  WheelHarness(int nodes, int64_t start, uint64_t seed)
      : nodes_(nodes), wheel_(start), now_(start), rng_(seed) {
    for (int i = 0; i < nodes; ++i) nodes_[i].id = i;
  }

  int64_t Rand(int64_t n) { return n <= 0 ? 0 : int64_t(rng_() % uint64_t(n)); }

  // From well in the past to beyond the wheel's 2^40 ms span, with slot edges favoured.
  int64_t RandomDeadline() {
    switch (Rand(12)) {
      case 0:
        return now_ - Rand(5'000);
      case 1:
        return now_ + Rand(3);
      case 2:
        return now_ + Rand(300);
      case 3:
        return now_ + Rand(70'000);
      case 4:
        return now_ + Rand(20'000'000);
      case 5:
        return now_ + Rand(3 * kYear);
      case 6:
        return now_ + (int64_t{1} << 40) + Rand(int64_t{1} << 42);  // overflow list
      case 7: {
        // Just around the next boundary of some level.
        const int shift = 8 * int(1 + Rand(5));
        const int64_t edge = (now_ >> shift << shift) + (int64_t{1} << shift);
        return edge + Rand(3) - 1;
      }
      default:
        return now_ + Rand(5'000);
    }
  }
  int64_t RandomStep() {
    switch (Rand(10)) {
      case 0:
        return 0;
      case 1:
        return 1;
      case 2:
        return Rand(300);
      case 3:
        return Rand(70'000);
      case 4:
        return Rand(20'000'000);
      case 5:
        return Rand(kYear);
      default:
        return Rand(20);
    }
  }

  void Insert(Node* n, int64_t d) {
    ASSERT_FALSE(n->hook.linked());
    wheel_.Insert(&n->hook, d);
    ref_.emplace(d, n->id);
  }
  void Renew(Node* n, int64_t d) {
    if (n->hook.linked()) ref_.erase({n->hook.deadline, n->id});
    wheel_.Renew(&n->hook, d);
    ref_.emplace(d, n->id);
  }
  void Remove(Node* n) {
    if (n->hook.linked()) ref_.erase({n->hook.deadline, n->id});
    wheel_.Remove(&n->hook);
  }

  // Called for every delivered hook at time `t`.
  void Delivered(TimerHook* h, int64_t t) {
    Node* n = reinterpret_cast<Node*>(h);
    ASSERT_FALSE(h->linked());
    ASSERT_LE(h->deadline, t) << "delivered early";
    ASSERT_EQ(ref_.erase({h->deadline, n->id}), 1u) << "delivered twice or unknown";
    ++delivered_;
  }

  // Everything with deadline <= t is gone from the reference; the hint is a lower bound.
  void CheckComplete(int64_t t) {
    if (!ref_.empty()) {
      ASSERT_GT(ref_.begin()->first, t) << "a due item was left behind";
    }
    CheckHint();
  }
  void CheckHint() {
    const int64_t hint = wheel_.NextDeadlineHint();
    if (ref_.empty()) {
      ASSERT_EQ(hint, TimingWheel::kNever);
    } else {
      ASSERT_LE(hint, ref_.begin()->first) << "hint past the earliest deadline";
    }
  }

  Node* RandomNode() { return &nodes_[Rand(int64_t(nodes_.size()))]; }

  std::vector<Node> nodes_;
  TimingWheel wheel_;
  std::set<std::pair<int64_t, int>> ref_;
  int64_t now_;
  std::mt19937_64 rng_;
  size_t delivered_ = 0;
};

void RunRandom(int64_t start, uint64_t seed, int ops) {
  WheelHarness w(2000, start, seed);
  bool pending = false;  // a bounded step stopped at its budget
  for (int op = 0; op < ops; ++op) {
    Node* n = w.RandomNode();
    const int kind = int(w.Rand(100));
    if (kind < 35) {
      if (!n->hook.linked()) w.Insert(n, w.RandomDeadline());
    } else if (kind < 55) {
      // Heartbeat renewal (later), or a deadline moved earlier.
      const int64_t d =
          n->hook.linked() && w.Rand(2) ? n->hook.deadline + w.Rand(30'000) : w.RandomDeadline();
      w.Renew(n, d);
    } else if (kind < 62) {
      w.Remove(n);
    } else if (kind < 82) {
      w.now_ += w.RandomStep();
      const int64_t t = w.now_;
      w.wheel_.Advance(t, [&](TimerHook* h) { w.Delivered(h, t); });
      pending = false;
      w.CheckComplete(t);
    } else {
      if (w.Rand(2)) w.now_ += w.RandomStep();
      const int64_t t = w.now_;
      const size_t budget = size_t(w.Rand(8));
      pending = w.wheel_.ExpireUpTo(t, budget, [&](TimerHook* h) { w.Delivered(h, t); });
      if (!pending) w.CheckComplete(t);
    }
    if (op % 7 == 0) w.wheel_.Verify();
    w.CheckHint();
    ASSERT_EQ(w.wheel_.size(), w.ref_.size());
    if (::testing::Test::HasFatalFailure()) return;
  }
  w.wheel_.Verify();
  // Everything but deadlines at kNever's edge fires by the end of time.
  const int64_t end = TimingWheel::kNever - 1;
  w.wheel_.Advance(end, [&](TimerHook* h) { w.Delivered(h, end); });
  w.CheckComplete(end);
  EXPECT_TRUE(w.wheel_.empty());
  w.wheel_.Verify();
  EXPECT_GT(w.delivered_, size_t(ops / 20));
}

// Random runs: every seed, with a quarter of the operations under a sanitizer (still tens
// of thousands a seed, among them hundreds of time jumps of up to a year).
int RandomOps(int full) { return SanitizerScaled(full, full / 4); }

TEST(TimingWheel, RandomAgainstReference) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    RunRandom(kBase + int64_t(seed) * 12345, seed, RandomOps(150'000));
    if (HasFatalFailure()) return;
  }
}

TEST(TimingWheel, RandomAcrossTheWheelSpan) {
  // Start just below a 2^40 ms boundary (year 2039) so the overflow list is drained
  // while bounded steps and inserts interleave.
  const int64_t edge = int64_t{2} << 40;
  for (uint64_t seed = 10; seed < 14; ++seed) {
    RunRandom(edge - 300 - int64_t(seed) * 1000, seed, RandomOps(100'000));
    if (HasFatalFailure()) return;
  }
  RunRandom(0, 99, RandomOps(50'000));
}

TEST(TimingWheel, CallbacksChangeTheWheel) {
  WheelHarness w(3000, kBase, 7);
  for (int round = 0; round < 300; ++round) {
    for (int i = 0; i < 20; ++i) {
      Node* n = w.RandomNode();
      if (!n->hook.linked()) w.Insert(n, w.RandomDeadline());
    }
    w.now_ += w.RandomStep();
    const int64_t t = w.now_;
    auto cb = [&](TimerHook* h) {
      w.Delivered(h, t);
      // Remove one, renew one (possibly already due), re-arm the delivered one.
      w.Remove(w.RandomNode());
      w.Renew(w.RandomNode(), w.now_ + w.Rand(600) - 300);
      if (w.Rand(4) == 0) w.Renew(reinterpret_cast<Node*>(h), t + 1 + w.Rand(1000));
    };
    if (round % 2) {
      while (w.wheel_.ExpireUpTo(t, 5, cb)) {
        w.wheel_.Verify();
        if (HasFatalFailure()) return;
      }
    } else {
      w.wheel_.Advance(t, cb);
    }
    w.CheckComplete(t);
    w.wheel_.Verify();
    if (HasFatalFailure()) return;
  }
}

TEST(TimingWheel, SameDeadlineInBoundedSteps) {
  // Each bounded step is followed by Verify() of the whole wheel: the test is quadratic in
  // kN at kN / kBudget steps a pass. Under a sanitizer a tenth of both: as many steps.
  constexpr int kN = SanitizerScaled(200'000, 20'000);
  constexpr size_t kBudget = SanitizerScaled<size_t>(1000, 100);
  WheelHarness w(kN + 2000, kBase, 3);
  const int64_t d = kBase + 3'600'000;
  for (int i = 0; i < kN; ++i) w.Insert(&w.nodes_[i], d);
  w.wheel_.Verify();
  int extra = kN;
  // One bounded pass at time `t`: each step handles at most kBudget items; between steps
  // the wheel takes new timers, some of them inside the half-moved slot's range.
  auto steps = [&](int64_t t) {
    int calls = 0;
    for (;;) {
      size_t got = 0;
      const bool more = w.wheel_.ExpireUpTo(t, kBudget, [&](TimerHook* h) {
        ++got;
        w.Delivered(h, t);
      });
      EXPECT_LE(got, kBudget);
      ++calls;
      w.wheel_.Verify();
      if (!more || calls > 2000) break;
      w.Insert(&w.nodes_[extra++], d + w.Rand(300) - 10);
    }
    w.CheckComplete(t);
    return calls;
  };
  // Just before the deadline: the items are only moved down the levels, in steps.
  w.now_ = d - 1;
  EXPECT_GE(steps(d - 1), kN / int(kBudget));
  EXPECT_EQ(w.delivered_ + w.ref_.size(), size_t(extra));
  const size_t early = w.delivered_;
  w.now_ = d;
  EXPECT_GE(steps(d), kN / int(kBudget));
  EXPECT_GE(w.delivered_ - early, size_t(kN));
}

TEST(TimingWheel, SleepingUntilTheHint) {
  // A caller that only wakes at the hint delivers each timer on time, after a few
  // coarse wake-ups.
  for (int64_t delay :
       std::initializer_list<int64_t>{0, 1, 255, 256, 1000, 65'536, 3'600'000, 40 * kYear}) {
    WheelHarness w(1, kBase + 17, 1);
    w.Insert(&w.nodes_[0], w.now_ + delay);
    int wakeups = 0;
    while (!w.ref_.empty()) {
      const int64_t hint = w.wheel_.NextDeadlineHint();
      ASSERT_LE(hint, w.now_ + delay);
      const int64_t t = std::max(hint, w.now_);
      w.wheel_.Advance(t, [&](TimerHook* h) {
        w.Delivered(h, t);
        EXPECT_EQ(t, kBase + 17 + delay);
      });
      w.now_ = t;
      ASSERT_LE(++wakeups, TimingWheel::kLevels + 2) << "delay " << delay;
    }
  }
}

TEST(TimingWheel, BudgetStopRightAfterCrossingTheSpan) {
  // The last ms of a 2^40 ms block is delivered and the step stops at its budget right
  // after: the overflow items of the new block must already be in the wheel, before
  // new timers of that block arrive.
  const int64_t b = int64_t{2} << 40;
  TimingWheel wheel(b - 10);
  Node x, y, z, v;
  wheel.Insert(&x.hook, b - 1);
  wheel.Insert(&y.hook, b + 5);  // beyond the wheel's span from b - 10: overflow
  wheel.Verify();
  std::set<TimerHook*> got;
  const bool more = wheel.ExpireUpTo(b - 1, 1, [&](TimerHook* h) {
    got.insert(h);
    wheel.Insert(&z.hook, b - 3);  // already due: waits in the due list
  });
  EXPECT_TRUE(more);
  EXPECT_EQ(got, std::set<TimerHook*>{&x.hook});
  wheel.Verify();
  wheel.Insert(&v.hook, b + 10);
  wheel.Verify();
  EXPECT_LE(wheel.NextDeadlineHint(), b - 3);
  wheel.Advance(b + 5, [&](TimerHook* h) { got.insert(h); });
  EXPECT_EQ(got, (std::set<TimerHook*>{&x.hook, &y.hook, &z.hook}));
  EXPECT_EQ(wheel.NextDeadlineHint(), b + 10);
  wheel.Advance(b + 10, [&](TimerHook* h) { got.insert(h); });
  EXPECT_EQ(got.size(), 4u);
  EXPECT_TRUE(wheel.empty());
}

TEST(TimingWheel, RemoveAndRenewAreHarmlessWhenUnlinked) {
  TimingWheel wheel(kBase);
  Node n;
  wheel.Remove(&n.hook);
  wheel.Renew(&n.hook, kBase + 10);
  EXPECT_EQ(wheel.size(), 1u);
  wheel.Remove(&n.hook);
  wheel.Remove(&n.hook);
  EXPECT_TRUE(wheel.empty());
  EXPECT_EQ(wheel.NextDeadlineHint(), TimingWheel::kNever);
  // A past deadline is due at the next call, even one for an earlier time.
  wheel.Insert(&n.hook, kBase - 5);
  EXPECT_LT(wheel.NextDeadlineHint(), kBase);
  EXPECT_EQ(wheel.Advance(kBase - 100, [](TimerHook*) {}), 1u);
  wheel.Verify();
}

}  // namespace
}  // namespace rc
