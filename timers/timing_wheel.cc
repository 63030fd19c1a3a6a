#include "timers/timing_wheel.h"

#include <cstdio>
#include <cstdlib>

namespace rc {

namespace {

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "TimingWheel: %s\n", what);
  std::abort();
}

}  // namespace

TimingWheel::TimingWheel(int64_t now_ms) : now_(now_ms < 0 ? 0 : now_ms) {}

bool TimingWheel::NextSlot(Slot* out) const {
  // A slot of level >= 1 at now_'s own digit is one a budget stop left half moved: it
  // must be emptied before anything lower is delivered.
  for (int level = 1; level < kLevels; ++level) {
    const int digit = Digit(now_, level);
    if (Bit(level * kSlots + digit)) {
      *out = {level, digit, SlotStart(level, digit)};
      return true;
    }
  }
  for (int level = 0; level < kLevels; ++level) {
    for (int w = 0; w < kWordsPerLevel; ++w) {
      if (uint64_t word = bits_[level * kWordsPerLevel + w]; word != 0) {
        const int slot = w * 64 + std::countr_zero(word);
        *out = {level, slot, SlotStart(level, slot)};
        return true;
      }
    }
  }
  return false;
}

int64_t TimingWheel::OverflowStart() const {
  int64_t start = kNever;
  for (const TimerHook* h = overflow_; h != nullptr; h = h->next) {
    const int64_t block = int64_t(uint64_t(h->deadline) & ~kWheelMask);
    if (block < start) start = block;
  }
  return start;
}

int64_t TimingWheel::NextDeadlineHint() const {
  if (due_ != nullptr) return due_min_;
  Slot s;
  if (NextSlot(&s)) return s.level > 0 && s.start <= now_ ? now_ - 1 : s.start;
  if (overflow_ != nullptr) return OverflowStart();
  return kNever;
}

void TimingWheel::Verify() const {
  size_t count = 0;
  auto walk = [&](TimerHook* const* head, auto&& check) {
    TimerHook* const* expect_pprev = head;
    for (const TimerHook* h = *head; h != nullptr; h = h->next) {
      if (h->pprev != expect_pprev) Fail("pprev does not point at the previous link");
      check(h);
      expect_pprev = &h->next;
      ++count;
    }
  };
  walk(&due_, [&](const TimerHook* h) {
    if (h->deadline >= now_) Fail("due item not yet due");
    if (h->deadline < due_min_) Fail("due item before due_min_");
  });
  walk(&overflow_, [&](const TimerHook* h) {
    if (h->deadline < now_) Fail("overflow item is due");
    if (((uint64_t(h->deadline) ^ uint64_t(now_)) >> kWheelBits) == 0) {
      Fail("overflow item belongs in the wheel");
    }
  });
  for (int level = 0; level < kLevels; ++level) {
    const int shift = (level + 1) * kSlotBits;
    for (int slot = 0; slot < kSlots; ++slot) {
      const int i = level * kSlots + slot;
      bool occupied = false;
      for (int lane = 0; lane < kLanes; ++lane) {
        occupied |= heads_[i * kLanes + lane] != nullptr;
        walk(&heads_[i * kLanes + lane], [&](const TimerHook* h) {
          if (h->deadline < now_) Fail("item in the wheel is overdue");
          if (shift < 64 && (uint64_t(h->deadline) >> shift) != (uint64_t(now_) >> shift)) {
            Fail("item's upper digits differ from now");
          }
          if (Digit(h->deadline, level) != slot) Fail("item in the wrong slot");
        });
      }
      if (Bit(i) != occupied) Fail("bitmap disagrees with slot");
    }
  }
  if (count != size_) Fail("size does not match the lists");
}

}  // namespace rc
