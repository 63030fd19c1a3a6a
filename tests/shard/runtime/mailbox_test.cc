#include "shard/runtime/mailbox.h"

#include <atomic>
#include <string>
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
      std::vector<Message> batch;
      for (int i = 0; i < kPerProducer; ++i) {
        batch.emplace_back([&ran] { ++ran; });
        if (batch.size() == 64) inbox.PushBatch(&batch);
      }
      inbox.PushBatch(&batch);
    });
  }
  std::vector<Message> tasks;
  while (ran < kProducers * kPerProducer) {
    inbox.Drain(&tasks);
    for (auto& t : tasks) std::move(t.task)();
  }
  for (auto& t : producers) t.join();
  inbox.Drain(&tasks);
  EXPECT_TRUE(tasks.empty());
  EXPECT_EQ(ran, kProducers * kPerProducer);
}

TEST(Inbox, ProducerSeesSleeperAndMustWake) {
  Inbox inbox;
  ASSERT_TRUE(inbox.PrepareToSleep());
  std::vector<Message> batch;
  batch.emplace_back([] {});
  EXPECT_TRUE(inbox.PushBatch(&batch));  // owner announced sleep: caller must wake it
  inbox.Awake();
  batch.emplace_back([] {});
  EXPECT_FALSE(inbox.PushBatch(&batch));  // owner awake: no wake needed
  // Work is waiting, so the owner must not go to sleep.
  EXPECT_FALSE(inbox.PrepareToSleep());
}

// A reply handed to one thread must not be visible before the keyspace events of the same
// turn reach every other thread: whoever sees the reply may make events elsewhere.
TEST(Outbox, AheadLaneReachesEveryInboxBeforeAnyOtherBatch) {
  std::vector<Inbox> inboxes(3);
  struct NoWake : Waker {
    void Wake(uint32_t) override {}
  } waker;
  Outbox outbox(3);
  std::vector<std::string> log;
  outbox.Add(1, [&log] { log.push_back("reply to 1"); });
  outbox.AddAhead(2, [&log] { log.push_back("events to 2"); });
  outbox.AddAhead(1, [&log] { log.push_back("events to 1"); });
  std::vector<uint32_t> pushed;  // destinations in the order Flush handed them over
  outbox.Flush(
      [&](uint32_t dest) -> Inbox& {
        pushed.push_back(dest);
        return inboxes[dest];
      },
      waker);
  EXPECT_EQ(pushed, (std::vector<uint32_t>{2, 1, 1}));
  EXPECT_TRUE(outbox.empty());
  std::vector<Message> tasks;
  for (uint32_t dest : {1u, 2u}) {
    inboxes[dest].Drain(&tasks);
    for (auto& t : tasks) std::move(t.task)();
    tasks.clear();
  }
  EXPECT_EQ(log, (std::vector<std::string>{"events to 1", "reply to 1", "events to 2"}));
}

}  // namespace
}  // namespace rc
