#include "shard/runtime/aof_journal.h"

#include <utility>

namespace rc {

namespace {
// Queued bytes past which an append wakes a writer that is not eager.
constexpr uint64_t kWakeBytes = 4 << 20;
}  // namespace

uint64_t AofJournal::Append(std::string_view records) {
  std::lock_guard<std::mutex> lock(mu_);
  if (tap_ != nullptr) tap_->Feed(records);
  // Replicas only: nothing for the file, nothing to wait for.
  if (!on_.load(std::memory_order_relaxed)) return appended_;
  if (segments_.empty() || segments_.back().mark) segments_.emplace_back();
  segments_.back().bytes.append(records);
  appended_ += records.size();
  const uint64_t end = appended_;
  if (eager_.load(std::memory_order_relaxed) || appended_ - taken_ >= kWakeBytes) {
    work_.notify_one();
  }
  return end;
}

void AofJournal::AppendToTap(std::string_view bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (tap_ != nullptr) tap_->Feed(bytes);
}

void AofJournal::Mark(std::function<void()> at) {
  std::lock_guard<std::mutex> lock(mu_);
  if (segments_.empty() || segments_.back().mark) segments_.emplace_back();
  segments_.back().mark = std::move(at);
  work_.notify_one();
}

uint64_t AofJournal::appended() const {
  std::lock_guard<std::mutex> lock(mu_);
  return appended_;
}

uint64_t AofJournal::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return appended_ - taken_;
}

void AofJournal::WaitDurable(uint64_t position) {
  std::unique_lock<std::mutex> lock(mu_);
  durable_.wait(lock, [&] { return durable_pos_ >= position || failed(); });
}

bool AofJournal::Take(Batch* out, std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mu_);
  if (segments_.empty()) work_.wait_for(lock, wait);
  if (segments_.empty()) return false;
  Segment& front = segments_.front();
  taken_ += front.bytes.size();
  out->bytes = std::move(front.bytes);
  out->mark = std::move(front.mark);
  out->end = taken_;
  segments_.pop_front();
  return true;
}

void AofJournal::SetDurable(uint64_t position) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (position > durable_pos_) durable_pos_ = position;
  }
  durable_.notify_all();
}

void AofJournal::SetFailed(bool failed) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    failed_.store(failed, std::memory_order_relaxed);
  }
  durable_.notify_all();
}

void AofJournal::Wake() {
  std::lock_guard<std::mutex> lock(mu_);
  work_.notify_all();
}

}  // namespace rc
