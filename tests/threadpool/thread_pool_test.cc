#include "threadpool/thread_pool.h"

#include <sched.h>

#include <atomic>
#include <memory>

#include "gtest/gtest.h"

namespace rc {
namespace {

TEST(ThreadPool, RunsEveryTaskBeforeDestruction) {
  std::atomic<int> ran{0};
  {
    ThreadPool pool(2);
    for (int i = 0; i < 1000; ++i) pool.Submit([&ran] { ran.fetch_add(1); });
  }
  EXPECT_EQ(ran.load(), 1000);
}

TEST(ThreadPool, FreesOwnedObjectsOffTheCaller) {
  // The pool's job in the server: own a value and destroy it on a pool thread.
  struct Tracker {
    explicit Tracker(std::atomic<int>* d) : destroyed(d) {}
    ~Tracker() { destroyed->fetch_add(1); }
    std::atomic<int>* destroyed;
  };
  std::atomic<int> destroyed{0};
  {
    ThreadPool pool(1);
    auto obj = std::make_unique<Tracker>(&destroyed);
    pool.Submit([o = std::move(obj)]() mutable { o.reset(); });
  }
  EXPECT_EQ(destroyed.load(), 1);
}

TEST(ThreadPool, CountsCompletedTasks) {
  ThreadPool pool(2);
  for (int i = 0; i < 10; ++i) pool.Submit([] {});
  while (pool.Pending() != 0) std::this_thread::yield();
  EXPECT_EQ(pool.Completed(), 10u);
}

TEST(ThreadPool, IdlePriorityWorkersRunUnderSchedIdle) {
  std::atomic<int> policy{-1};
  {
    ThreadPool pool(1, ThreadPool::Priority::kIdle);
    pool.Submit([&policy] { policy = sched_getscheduler(0); });
  }
  EXPECT_EQ(policy.load(), SCHED_IDLE);
}

}  // namespace
}  // namespace rc
