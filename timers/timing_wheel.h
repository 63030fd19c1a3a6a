#pragma once
// A hierarchical timing wheel for one shard's key deadlines: insert, remove and renew are
// O(1), and expiry can be cut into bounded steps so a reactor turn never stalls on a
// million keys that share one deadline.
//
// Design. Deadlines are absolute milliseconds (int64, >= 0). The wheel has kLevels levels
// of kSlots (256) slots; level k's slots are 256^k ms wide, so five levels cover 2^40 ms
// (34.8 years) at 1 ms resolution at level 0. Each slot holds intrusive lists of
// TimerHooks (embedded in the caller's node: next, pprev, deadline = 24 bytes), kLanes
// of them filled in turn so that emptying a slot is not one long chain of dependent cache
// misses; a bitmap per level marks non-empty slots. The wheel itself is ~80 KiB.
//
// An item with deadline d is placed by the highest bit in which d differs from now_ (the
// first millisecond not yet processed): that bit's 8-bit group is its level, and d's
// digit in that group its slot. So every item at level k shares now_'s digits above k and
// has a larger digit at k: all occupied slots lie ahead of now_ without wrapping, every
// item at level k is later than every item below k, and the first occupied slot of the
// lowest non-empty level holds the earliest deadlines. Items whose d differs from now_
// above bit 40 wait in an overflow list; deadlines already behind now_ in a due list.
//
// Call flow (all on the owning shard's thread):
//
//   Insert/Renew ─▶ Place: due list | level/slot by (d XOR now_) | overflow list
//   ExpireUpTo(now, budget, cb)
//     loop: due list ─▶ cb
//           a partly moved slot of level >= 1 (left by a budget stop) ─▶ finish moving it
//           first occupied slot of the lowest non-empty level:
//             level 0, start <= now      ─▶ cb for each (all share one deadline)
//             level k, start <= now + 1  ─▶ cascade: each item due ─▶ cb, else re-Place
//                                           (it lands on a lower level)
//             only overflow left          ─▶ jump to its earliest 2^40 block, re-Place
//           stop when the next slot starts after now, or the budget is spent
//
// Work: an item is moved at most kLevels - 1 times between insert and expiry; one step of
// ExpireUpTo handles at most `max_items` items (delivered or moved), so a reactor turn can
// bound its time. The callback receives the hook already unlinked; it may free the node
// and may insert, renew or remove any timer (including the one it was given).

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace rc {

// Embedded in the timed object. Linked while pprev != nullptr.
struct TimerHook {
  TimerHook* next = nullptr;
  TimerHook** pprev = nullptr;  // the previous hook's `next`, or the slot's head
  int64_t deadline = 0;         // absolute ms

  bool linked() const { return pprev != nullptr; }
};

class TimingWheel {
 public:
  static constexpr int kSlotBits = 8;
  static constexpr int kSlots = 1 << kSlotBits;
  static constexpr int kLevels = 5;
  static constexpr int kWheelBits = kSlotBits * kLevels;  // 40: 34.8 years
  static constexpr int kLanes = 8;                        // lists per slot
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

  // `now_ms`: the current time; deadlines before it are due at the first expiry call.
  explicit TimingWheel(int64_t now_ms = 0);
  TimingWheel(const TimingWheel&) = delete;
  TimingWheel& operator=(const TimingWheel&) = delete;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Bytes of the wheel itself (slot heads, bitmaps); the hooks live in the nodes.
  static constexpr size_t MemoryBytes() { return sizeof(TimingWheel); }

  // Arms an unlinked hook. Any deadline is accepted; one at or before the last expiry
  // call's time is delivered by the next call.
  void Insert(TimerHook* h, int64_t deadline_ms) {
    assert(!h->linked());
    h->deadline = deadline_ms;
    Place(h);
    ++size_;
  }
  // Disarms the hook; harmless if it is not linked.
  void Remove(TimerHook* h) {
    if (!h->linked()) return;
    Unlink(h);
    --size_;
  }
  // Moves the deadline, earlier or later (arms the hook if it is not linked). A deadline
  // that stays in the hook's slot (common for heartbeats: coarse slots are 256 ms to
  // 4.7 h wide) only rewrites the hook.
  void Renew(TimerHook* h, int64_t deadline_ms) {
    if (h->linked() && SameSlot(h->deadline, deadline_ms)) {
      h->deadline = deadline_ms;
      return;
    }
    if (h->linked()) {
      Unlink(h);
      --size_;
    }
    Insert(h, deadline_ms);
  }

  // Delivers every hook whose deadline <= now_ms, each exactly once, unlinked, to
  // cb(TimerHook*). Not in deadline order. Returns how many were delivered.
  template <typename Cb>
  size_t Advance(int64_t now_ms, Cb&& cb) {
    size_t n = 0;
    ExpireUpTo(now_ms, std::numeric_limits<size_t>::max(), [&](TimerHook* h) {
      ++n;
      cb(h);
    });
    return n;
  }

  // As Advance, but handles at most `max_items` hooks (each delivery and each move of an
  // item to a lower level counts one). Returns true if it stopped at that budget: call
  // again (with the same or a later time) to go on. false: everything due was delivered.
  // Time never runs backwards: a now_ms below an earlier call's acts as that one. A
  // deadline of kNever never fires.
  template <typename Cb>
  bool ExpireUpTo(int64_t now_ms, size_t max_items, Cb&& cb);

  // A lower bound of the earliest deadline still pending (exact when it is within the
  // current 256 ms slot range), or kNever when empty. A value <= the last time passed to
  // ExpireUpTo means "call it again now". Sleep until this, then call ExpireUpTo: a wake-up
  // at a coarse slot's start moves its items down and yields a finer hint.
  int64_t NextDeadlineHint() const;

  // Aborts with a message unless every list, bitmap bit, placement and the size agree.
  void Verify() const;

 private:
  static constexpr int kSlotCount = kSlots * kLevels;
  static constexpr int kWords = kSlotCount / 64;
  static constexpr uint64_t kWheelMask = (uint64_t{1} << kWheelBits) - 1;
  static constexpr int kWordsPerLevel = kSlots / 64;

  struct Slot {
    int level;
    int slot;
    int64_t start;  // first ms the slot covers
  };

  static void Link(TimerHook** head, TimerHook* h) {
    h->next = *head;
    if (h->next != nullptr) h->next->pprev = &h->next;
    *head = h;
    h->pprev = head;
  }
  void Unlink(TimerHook* h) {
    TimerHook* next = h->next;
    *h->pprev = next;
    if (next != nullptr) {
      next->pprev = h->pprev;
    } else {
      // Was it alone in a wheel slot's lane? Then the slot may now be empty.
      uintptr_t off = uintptr_t(h->pprev) - uintptr_t(&heads_[0]);
      if (off < sizeof(heads_)) MaybeClearBit(int(off / sizeof(TimerHook*)) / kLanes);
    }
    h->next = nullptr;
    h->pprev = nullptr;
  }
  void Place(TimerHook* h) {
    if (h->deadline < now_) {
      if (h->deadline < due_min_) due_min_ = h->deadline;
      return Link(&due_, h);
    }
    uint64_t diff = uint64_t(h->deadline) ^ uint64_t(now_);
    if (diff >> kWheelBits) return Link(&overflow_, h);
    const int level = LevelOf(diff);
    const int i = level * kSlots + Digit(h->deadline, level);
    Link(&heads_[i * kLanes + lane_], h);
    lane_ = (lane_ + 1) & (kLanes - 1);
    bits_[i / 64] |= uint64_t{1} << (i % 64);
  }
  static int LevelOf(uint64_t diff) {
    return diff == 0 ? 0 : (63 - std::countl_zero(diff)) / kSlotBits;
  }
  // Whether a linked item with deadline `a` may take deadline `b` without moving. Both in
  // the wheel, same level, same digit there. (If a's slot is one a budget stop left half
  // moved, b then also lies in that slot's range, which is all the slot requires.)
  bool SameSlot(int64_t a, int64_t b) const {
    if (a < now_ || b < now_) return false;
    const uint64_t da = uint64_t(a) ^ uint64_t(now_);
    const uint64_t db = uint64_t(b) ^ uint64_t(now_);
    if ((da | db) >> kWheelBits) return false;
    const int level = LevelOf(da);
    return level == LevelOf(db) && Digit(a, level) == Digit(b, level);
  }
  void MaybeClearBit(int i) {
    for (int j = 0; j < kLanes; ++j) {
      if (heads_[i * kLanes + j] != nullptr) return;
    }
    bits_[i / 64] &= ~(uint64_t{1} << (i % 64));
  }
  bool Bit(int i) const { return (bits_[i / 64] >> (i % 64)) & 1; }
  static int Digit(int64_t t, int level) {
    return int(uint64_t(t) >> (level * kSlotBits)) & (kSlots - 1);
  }
  // First ms of `slot` at `level` in now_'s block of that level.
  int64_t SlotStart(int level, int slot) const {
    const int shift = (level + 1) * kSlotBits;
    return int64_t((uint64_t(now_) >> shift << shift) | (uint64_t(slot) << (level * kSlotBits)));
  }
  // The slot to handle next: a partly moved one, else the first of the lowest non-empty
  // level. false when the levels are empty.
  bool NextSlot(Slot* out) const;
  // The earliest 2^40 ms block an overflow item lies in (kNever if none).
  int64_t OverflowStart() const;
  // Moves the overflow list into the wheel (delivering what is due) after now_ jumped.
  template <typename Cb>
  void DrainOverflow(int64_t t, size_t* work, Cb& cb);
  // Empties slot `i`: delivers items due by `t`, re-places the others. false if the
  // budget ran out first.
  template <typename Cb>
  bool DrainSlot(int i, int64_t t, size_t max_items, size_t* work, Cb& cb);

  int64_t now_;  // every deadline < now_ has been delivered or sits in due_
  size_t size_ = 0;
  TimerHook* due_ = nullptr;
  int64_t due_min_ = kNever;  // <= every deadline in due_
  TimerHook* overflow_ = nullptr;
  unsigned lane_ = 0;  // the lane the next Place uses
  uint64_t bits_[kWords] = {};
  // Each slot is kLanes lists, filled in turn, so that walking a slot keeps kLanes cache
  // misses in flight instead of one (a single list is a chain of dependent loads).
  alignas(64) TimerHook* heads_[kSlotCount * kLanes] = {};  // one cache line per slot
};

template <typename Cb>
bool TimingWheel::ExpireUpTo(int64_t now_ms, size_t max_items, Cb&& cb) {
  // Time never runs backwards here, and t + 1 must not overflow.
  const int64_t t = now_ms < now_ - 1 ? now_ - 1 : now_ms == kNever ? kNever - 1 : now_ms;
  size_t work = 0;
  for (;;) {
    while (TimerHook* h = due_) {
      if (work >= max_items) return true;
      ++work;
      Unlink(h);
      --size_;
      cb(h);
    }
    due_min_ = kNever;
    Slot s;
    if (!NextSlot(&s)) {
      if (overflow_ == nullptr) break;
      const int64_t start = OverflowStart();
      if (start > t + 1) break;
      if (work >= max_items) return true;
      assert(start > now_);
      now_ = start;
      DrainOverflow(t, &work, cb);
      continue;
    }
    const int i = s.level * kSlots + s.slot;
    if (s.level == 0) {
      if (s.start > t) break;
      now_ = s.start;  // all of this slot's items have deadline == s.start
      if (!DrainSlot(i, t, max_items, &work, cb)) return true;
      now_ = s.start + 1;
      // Crossed into a new 2^40 ms block: the wheel is empty (its items all lay in the
      // old one), and overflow items of this block must be placed before anything else.
      if (overflow_ != nullptr && (uint64_t(now_) & kWheelMask) == 0) DrainOverflow(t, &work, cb);
    } else {
      // start == t + 1 is cascaded too, so that now_ = t + 1 below keeps every occupied
      // slot of level >= 1 strictly ahead of now_.
      if (s.start > t + 1) break;
      if (s.start > now_) now_ = s.start;
      // Items not yet due share now_'s digits down to this level: they land lower.
      if (!DrainSlot(i, t, max_items, &work, cb)) return true;
    }
  }
  if (t + 1 > now_) now_ = t + 1;
  return false;
}

template <typename Cb>
bool TimingWheel::DrainSlot(int i, int64_t t, size_t max_items, size_t* work, Cb& cb) {
  TimerHook** lanes = &heads_[i * kLanes];
  for (bool any = true; any;) {
    any = false;
    for (int j = 0; j < kLanes; ++j) {
      TimerHook* h = lanes[j];
      if (h == nullptr) continue;
      if (*work >= max_items) return false;
      any = true;
      ++*work;
      Unlink(h);
      if (lanes[j] != nullptr) __builtin_prefetch(lanes[j], 1);
      if (h->deadline <= t) {
        --size_;
        cb(h);
      } else {
        Place(h);
      }
    }
  }
  return true;
}

template <typename Cb>
void TimingWheel::DrainOverflow(int64_t t, size_t* work, Cb& cb) {
  // Detach the list first: items still beyond 2^40 ms go back onto overflow_.
  TimerHook* pending = overflow_;
  overflow_ = nullptr;
  if (pending != nullptr) pending->pprev = &pending;
  while (TimerHook* h = pending) {
    ++*work;  // rare (once per 34.8 years of clock): not cut short by the budget
    Unlink(h);
    if (h->deadline <= t) {
      --size_;
      cb(h);
    } else {
      Place(h);
    }
  }
}

}  // namespace rc
