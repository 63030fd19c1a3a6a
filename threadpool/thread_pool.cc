#include "threadpool/thread_pool.h"

#include <sched.h>
#include <unistd.h>

namespace rc {

ThreadPool::ThreadPool(size_t threads, Priority priority, std::chrono::nanoseconds promote_after)
    : priority_(priority), promote_after_(promote_after) {
  if (threads == 0) threads = 1;
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) {
    threads_.emplace_back([this] { WorkerLoop(); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadPool::SetPolicy(pid_t tid, bool idle) {
  sched_param param{};
  (void)sched_setscheduler(tid, idle ? SCHED_IDLE : SCHED_OTHER, &param);
}

void ThreadPool::Submit(Task task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const Clock::time_point now = Clock::now();
    if (priority_ == Priority::kIdle && !promoted_ && !queue_.empty() &&
        now - queue_.front().since >= promote_after_) {
      promoted_ = true;
      ++promotions_;
      for (pid_t tid : tids_) SetPolicy(tid, false);
    }
    queue_.push_back(Queued{std::move(task), now});
  }
  ready_.notify_one();
}

size_t ThreadPool::Pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size() + running_;
}

uint64_t ThreadPool::Completed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return completed_;
}

bool ThreadPool::Promoted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return promoted_;
}

uint64_t ThreadPool::Promotions() const {
  std::lock_guard<std::mutex> lock(mu_);
  return promotions_;
}

void ThreadPool::WorkerLoop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    tids_.push_back(gettid());
    // Under the lock: a promotion either sees this tid or happened before it was added.
    if (priority_ == Priority::kIdle && !promoted_) SetPolicy(0, true);
  }
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (queue_.empty() && promoted_ && running_ == 0) {
        // The backlog is gone: every worker back to idle priority.
        promoted_ = false;
        for (pid_t tid : tids_) SetPolicy(tid, true);
      }
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      // Drain before exiting so shutdown frees everything that was handed over.
      if (queue_.empty()) return;
      task = std::move(queue_.front().task);
      queue_.pop_front();
      ++running_;
    }
    std::move(task)();
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
    ++completed_;
  }
}

}  // namespace rc
