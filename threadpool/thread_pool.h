#pragma once
// A fixed set of background threads draining one queue. Shard threads hand it work that
// must not run on a reactor (freeing a large value that is already unreachable); Submit
// holds the lock only for the push, so a reactor never waits on the pool.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <thread>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/synchronization/mutex.h"

namespace rc {

class ThreadPool {
 public:
  using Task = absl::AnyInvocable<void() &&>;

  explicit ThreadPool(size_t threads);
  // Runs every queued task, then joins. Called by the thread that built the pool.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Any thread. Never blocks beyond the queue lock.
  void Submit(Task task);
  // Tasks submitted and not yet finished; any thread.
  size_t Pending() const;
  uint64_t Completed() const;

 private:
  void WorkerLoop();

  mutable absl::Mutex mu_;
  std::deque<Task> queue_ ABSL_GUARDED_BY(mu_);
  size_t running_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t completed_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace rc
