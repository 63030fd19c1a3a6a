#include "threadpool/thread_pool.h"

#include <sched.h>

namespace rc {

ThreadPool::ThreadPool(size_t threads, Priority priority) {
  if (threads == 0) threads = 1;
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) {
    threads_.emplace_back([this, priority] { WorkerLoop(priority); });
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

void ThreadPool::Submit(Task task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
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

void ThreadPool::WorkerLoop(Priority priority) {
  if (priority == Priority::kIdle) {
    sched_param param{};
    // Best effort: where the policy is refused the pool simply runs at normal priority.
    (void)sched_setscheduler(0, SCHED_IDLE, &param);
  }
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      // Drain before exiting so shutdown frees everything that was handed over.
      if (queue_.empty()) return;
      task = std::move(queue_.front());
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
