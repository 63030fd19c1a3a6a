#pragma once
// What Redis 7.0 would show as a client's reply buffer in CLIENT LIST (rbs, its size;
// rbp, its peak): ringcache writes replies from a growing string, so CLIENT LIST follows
// Redis's bookkeeping instead. The buffer starts at 16 KiB with its peak at that size;
// Redis's clientsCron, which visits each client every cron tick (this model: every
// 100 ms), shrinks it to the peak's allocation size (at least 1 KiB) when the peak stayed
// under half of it, doubles it (at most 16 KiB) when the peak filled it, and resets the
// peak to zero every 5 s, first at its first visit. The ticks are replayed when the
// connection sends or is listed. The connection's thread only.

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace rc::net {

class ReplyBufferModel {
 public:
  explicit ReplyBufferModel(int64_t now_ms) : next_tick_ms_(now_ms + kTickMs) {}

  // `bytes` are about to be written to the socket at once.
  void Sending(size_t bytes, int64_t now_ms) {
    CatchUp(now_ms);
    peak_ = std::max(peak_, std::min(bytes, size_));
  }
  size_t size(int64_t now_ms) {
    CatchUp(now_ms);
    return size_;
  }
  size_t peak(int64_t now_ms) {
    CatchUp(now_ms);
    return peak_;
  }

 private:
  static constexpr int64_t kTickMs = 100;
  static constexpr int64_t kPeakResetMs = 5000;
  static constexpr size_t kMin = 1024, kMax = 16384;

  // jemalloc's size class for `n` bytes (n >= 1 KiB): four classes per power of two.
  static size_t SizeClass(size_t n) {
    if (n <= kMin) return kMin;
    int lg = 63 - __builtin_clzll(uint64_t(n - 1));
    size_t delta = size_t(1) << (lg - 2);
    return (n + delta - 1) / delta * delta;
  }
  void Tick(int64_t t) {
    if (size_ / 2 >= kMin && peak_ < size_ / 2) {
      size_ = SizeClass(std::max(kMin, peak_ + 1));
    } else if (size_ * 2 < 2 * kMax && peak_ == size_) {
      size_ = SizeClass(std::min(kMax, size_ * 2));
    }
    if (last_reset_ms_ < 0 || t - last_reset_ms_ >= kPeakResetMs) {
      peak_ = 0;
      last_reset_ms_ = t;
    }
  }
  void CatchUp(int64_t now_ms) {
    while (next_tick_ms_ <= now_ms) {
      Tick(next_tick_ms_);
      next_tick_ms_ += kTickMs;
      if (peak_ == 0 && size_ == kMin && next_tick_ms_ <= now_ms) {
        // Nothing changes any more until the next reply: skip the idle ticks, keeping
        // the peak resets on their 5 s beat.
        next_tick_ms_ += (now_ms - next_tick_ms_ + kTickMs) / kTickMs * kTickMs;
        last_reset_ms_ += (next_tick_ms_ - kTickMs - last_reset_ms_) / kPeakResetMs * kPeakResetMs;
      }
    }
  }

  size_t size_ = kMax;
  size_t peak_ = kMax;
  int64_t last_reset_ms_ = -1;
  int64_t next_tick_ms_;
};

}  // namespace rc::net
