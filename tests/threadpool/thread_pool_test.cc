#include "threadpool/thread_pool.h"

#include <sched.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>

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

// A backlog older than promote_after moves the workers to normal priority (a starved
// SCHED_IDLE pool would let freed-but-unfreed memory grow); an empty queue moves them back.
TEST(ThreadPool, BacklogPromotesIdleWorkersUntilTheQueueDrains) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> policy_while_promoted{-1};
  ThreadPool pool(1, ThreadPool::Priority::kIdle, std::chrono::milliseconds(10));
  pool.Submit([released] { released.wait(); });  // occupies the only worker
  pool.Submit([] {});                             // waits in the queue
  EXPECT_FALSE(pool.Promoted());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  pool.Submit([&policy_while_promoted] { policy_while_promoted = sched_getscheduler(0); });
  EXPECT_TRUE(pool.Promoted());
  EXPECT_EQ(pool.Promotions(), 1u);
  release.set_value();
  while (pool.Pending() != 0 || pool.Promoted()) std::this_thread::yield();
  EXPECT_EQ(policy_while_promoted.load(), SCHED_OTHER);
  // Demoted again: the next task runs under SCHED_IDLE.
  std::atomic<int> policy_after{-1};
  pool.Submit([&policy_after] { policy_after = sched_getscheduler(0); });
  while (pool.Pending() != 0) std::this_thread::yield();
  EXPECT_EQ(policy_after.load(), SCHED_IDLE);
  EXPECT_EQ(pool.Promotions(), 1u);
}

TEST(ThreadPool, NormalPoolsAreNeverPromoted) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  ThreadPool pool(1, ThreadPool::Priority::kNormal, std::chrono::milliseconds(1));
  pool.Submit([released] { released.wait(); });
  pool.Submit([] {});
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  pool.Submit([] {});
  EXPECT_FALSE(pool.Promoted());
  release.set_value();
}

}  // namespace
}  // namespace rc
