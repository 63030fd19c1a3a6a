#pragma once
// A fixed set of background threads draining one queue. Shard threads hand it work that
// must not run on a reactor (freeing a large value that is already unreachable); Submit
// holds the lock only for the push, so a reactor never waits on the pool.

#include <cstddef>
#include <cstdint>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/functional/any_invocable.h"

namespace rc {

class ThreadPool {
 public:
  using Task = absl::AnyInvocable<void() &&>;

  // kIdle workers run under SCHED_IDLE: they get a core only when no normal thread wants
  // it, so a pool freeing a million nodes never preempts a reactor that shares its core
  // (measured in docs/ZSET.md). Work still progresses under full load, slowly.
  enum class Priority { kNormal, kIdle };
  explicit ThreadPool(size_t threads, Priority priority = Priority::kNormal);
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
  void WorkerLoop(Priority priority);

  // std primitives so ThreadSanitizer sees them (Debian's Abseil lacks its annotations).
  mutable std::mutex mu_;
  std::condition_variable ready_;
  std::deque<Task> queue_;  // guarded by mu_, like the counters below
  size_t running_ = 0;
  uint64_t completed_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace rc
