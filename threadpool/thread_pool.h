#pragma once
// A fixed set of background threads draining one queue. Shard threads hand it work that
// must not run on a reactor (freeing a large value that is already unreachable); Submit
// holds the lock only for the push, so a reactor never waits on the pool.

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
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
  // (measured in docs/ZSET.md). On a saturated machine that share is ~0.3% of a core,
  // less than a steady stream of DELs needs, so the backlog (and the memory it holds)
  // would grow without bound: once the oldest queued task has waited `promote_after`,
  // the next Submit moves the workers to normal priority until the queue is empty.
  enum class Priority { kNormal, kIdle };
  explicit ThreadPool(size_t threads, Priority priority = Priority::kNormal,
                      std::chrono::nanoseconds promote_after = std::chrono::milliseconds(100));
  // Runs every queued task, then joins. Called by the thread that built the pool.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Any thread. Never blocks beyond the queue lock (and, while the pool is starved, one
  // sched_setscheduler call per worker).
  void Submit(Task task);
  // Tasks submitted and not yet finished; any thread.
  size_t Pending() const;
  uint64_t Completed() const;
  // kIdle pools: whether the workers run at normal priority now, and how many times a
  // backlog made them; any thread.
  bool Promoted() const;
  uint64_t Promotions() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Queued {
    Task task;
    Clock::time_point since;
  };
  void WorkerLoop();
  void SetPolicy(pid_t tid, bool idle);  // best effort: refused policies change nothing

  const Priority priority_;
  const std::chrono::nanoseconds promote_after_;
  // std primitives so ThreadSanitizer sees them (Debian's Abseil lacks its annotations).
  mutable std::mutex mu_;
  std::condition_variable ready_;
  std::deque<Queued> queue_;  // guarded by mu_, like everything below
  size_t running_ = 0;
  uint64_t completed_ = 0;
  bool stopping_ = false;
  bool promoted_ = false;
  uint64_t promotions_ = 0;
  std::vector<pid_t> tids_;  // the workers' kernel thread ids, once each has started
  std::vector<std::thread> threads_;
};

}  // namespace rc
