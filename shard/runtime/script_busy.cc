#include "shard/runtime/script_busy.h"

namespace rc {

ScriptBusy::KillResult ScriptBusy::Kill(bool eval) {
  uint8_t s = state_.load(std::memory_order_acquire);
  while (true) {
    switch (Phase(s)) {
      case kIdle:
        return KillResult::kNotBusy;
      case kWrote:
        return KillResult::kWrote;
      case kKilled:
        return KillResult::kKilled;
      default:
        break;
    }
    if (bool(s & kFunction) == eval) return KillResult::kOtherKind;
    // Fails when the script wrote (or ended) meanwhile: look again.
    if (state_.compare_exchange_weak(s, uint8_t((s & kFunction) | kKilled),
                                     std::memory_order_acq_rel)) {
      return KillResult::kKilled;
    }
  }
}

std::optional<ScriptBusy::Running> ScriptBusy::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

void ScriptBusy::Enter(bool wrote, bool function, Running running) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = std::move(running);
  }
  busy_threads_.fetch_add(1, std::memory_order_relaxed);
  state_.store(uint8_t((function ? kFunction : 0) | (wrote ? kWrote : kBusy)),
               std::memory_order_release);
}

bool ScriptBusy::Write() {
  uint8_t s = state_.load(std::memory_order_acquire);
  while (Phase(s) == kBusy) {
    if (state_.compare_exchange_weak(s, uint8_t((s & kFunction) | kWrote),
                                     std::memory_order_acq_rel)) {
      return true;
    }
  }
  return Phase(s) != kKilled;
}

void ScriptBusy::Leave() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_.reset();
  }
  state_.store(kIdle, std::memory_order_release);
  busy_threads_.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace rc
