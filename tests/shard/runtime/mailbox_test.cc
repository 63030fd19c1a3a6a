#include "shard/runtime/mailbox.h"

#include <atomic>
#include <thread>

#include "gtest/gtest.h"

namespace rc {
namespace {

TEST(Inbox, ManyProducersDeliverEveryTaskOnce) {
  Inbox inbox;
  constexpr int kProducers = 4, kPerProducer = 20000;
  std::atomic<int> started{0};
  std::vector<std::thread> producers;
  int ran = 0;  // touched only by the consumer (this thread), through the tasks
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&] {
      started.fetch_add(1);
      std::vector<Task> batch;
      for (int i = 0; i < kPerProducer; ++i) {
        batch.push_back([&ran] { ++ran; });
        if (batch.size() == 64) inbox.PushBatch(&batch);
      }
      inbox.PushBatch(&batch);
    });
  }
  std::vector<Task> tasks;
  while (ran < kProducers * kPerProducer) {
    inbox.Drain(&tasks);
    for (auto& t : tasks) std::move(t)();
  }
  for (auto& t : producers) t.join();
  inbox.Drain(&tasks);
  EXPECT_TRUE(tasks.empty());
  EXPECT_EQ(ran, kProducers * kPerProducer);
}

TEST(Inbox, ProducerSeesSleeperAndMustWake) {
  Inbox inbox;
  ASSERT_TRUE(inbox.PrepareToSleep());
  std::vector<Task> batch;
  batch.push_back([] {});
  EXPECT_TRUE(inbox.PushBatch(&batch));  // owner announced sleep: caller must wake it
  inbox.Awake();
  batch.push_back([] {});
  EXPECT_FALSE(inbox.PushBatch(&batch));  // owner awake: no wake needed
  // Work is waiting, so the owner must not go to sleep.
  EXPECT_FALSE(inbox.PrepareToSleep());
}

}  // namespace
}  // namespace rc
