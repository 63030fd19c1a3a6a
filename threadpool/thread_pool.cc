#include "threadpool/thread_pool.h"

namespace rc {

ThreadPool::ThreadPool(size_t threads) {
  if (threads == 0) threads = 1;
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (auto& t : threads_) t.join();
}

void ThreadPool::Submit(Task task) {
  absl::MutexLock lock(&mu_);
  queue_.push_back(std::move(task));
}

size_t ThreadPool::Pending() const {
  absl::MutexLock lock(&mu_);
  return queue_.size() + running_;
}

uint64_t ThreadPool::Completed() const {
  absl::MutexLock lock(&mu_);
  return completed_;
}

void ThreadPool::WorkerLoop() {
  auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stopping_ || !queue_.empty();
  };
  for (;;) {
    Task task;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(&ready));
      // Drain before exiting so shutdown frees everything that was handed over.
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    std::move(task)();
    absl::MutexLock lock(&mu_);
    --running_;
    ++completed_;
  }
}

}  // namespace rc
