// The journal's tap and the replicas it feeds (shard/runtime/replication_hub.h): the
// offset counts every byte, a replica gets exactly the bytes after its point, held back
// until its snapshot is out, in the journal's order, on its connection's thread; with the
// file off the journal keeps nothing for it.

#include "shard/runtime/replication_hub.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "shard/runtime/shard_set.h"
#include "tests/shard/shard_harness.h"

namespace rc {
namespace {

// A replica's connection: what was pushed to it, on its own thread.
class FakeReplica final : public ClientHandle {
 public:
  explicit FakeReplica(uint64_t id) { state_.id = id; }
  ClientState& client() override { return state_; }
  ClientBuffers Buffers() const override { return {}; }
  void Kill(bool) override { killed_.store(true); }
  void PushMonitorLine(std::string line) override {
    std::lock_guard<std::mutex> lock(mu_);
    got_ += line;
  }
  std::string got() {
    std::lock_guard<std::mutex> lock(mu_);
    return got_;
  }
  bool killed() const { return killed_.load(); }

 private:
  ClientState state_;
  std::mutex mu_;
  std::string got_;
  std::atomic<bool> killed_{false};
};

// Polls until `pred` holds (a delivery is a task on another thread), at most 5 s.
template <typename Pred>
bool Eventually(Pred pred) {
  for (int i = 0; i < 5000; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return pred();
}

TEST(ReplicationHubTest, AReplicaGetsTheStreamFromItsPointAfterItsSnapshot) {
  testing::ShardHarness h(2);
  h.server().wake_all = [&h] {
    for (uint32_t i = 0; i < 2; ++i) h.Wake(i);
  };
  FakeReplica replica(42);
  h.OnThread(1, [&](ShardThread& t) {
    t.clients().Add(&replica);
    return true;
  });
  AofJournal& journal = h.shards().journal();
  ReplicationHub& hub = h.shards().replicas();
  EXPECT_FALSE(journal.recording());
  journal.set_tap(&hub);
  EXPECT_TRUE(journal.recording());
  EXPECT_FALSE(journal.on());

  // Before the point: counted, not the replica's.
  EXPECT_EQ(journal.Append("aa"), 0u);  // the file is off: nothing to wait for
  EXPECT_EQ(hub.offset(), 2);
  EXPECT_EQ(journal.pending(), 0u);
  EXPECT_EQ(hub.Attach(42, 1, "127.0.0.1", 6380), 2);
  EXPECT_TRUE(hub.any());
  journal.Append("bb");
  journal.AppendToTap("cc");
  // Held back until the snapshot went out.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(replica.got(), "");
  ASSERT_EQ(hub.List().size(), 1u);
  EXPECT_FALSE(hub.List()[0].online);
  h.OnThread(1, [&](ShardThread&) {
    replica.PushMonitorLine("<snapshot>");
    hub.Online(42);
    return true;
  });
  EXPECT_TRUE(Eventually([&] { return replica.got() == "<snapshot>bbcc"; })) << replica.got();
  journal.Append("dd");
  EXPECT_TRUE(Eventually([&] { return replica.got() == "<snapshot>bbccdd"; })) << replica.got();
  EXPECT_EQ(hub.offset(), 8);

  hub.Ack(42, 8, 1000);
  ASSERT_EQ(hub.List().size(), 1u);
  EXPECT_TRUE(hub.List()[0].online);
  EXPECT_EQ(hub.List()[0].ack_offset, 8);
  EXPECT_EQ(hub.List()[0].port, 6380);

  // Closed by its server becoming a replica: gone from the hub, its connection killed.
  hub.DisconnectAll();
  EXPECT_FALSE(hub.any());
  EXPECT_TRUE(Eventually([&] { return replica.killed(); }));
  journal.Append("ee");
  EXPECT_EQ(hub.offset(), 10);
  h.OnThread(1, [&](ShardThread& t) {
    t.clients().Remove(42, h.server().introspect.monitors);
    return true;
  });
}

TEST(ReplicationHubTest, TheFileStillGetsItsRecordsWithATap) {
  testing::ShardHarness h(1);
  AofJournal& journal = h.shards().journal();
  journal.set_tap(&h.shards().replicas());
  journal.set_on(true);
  EXPECT_EQ(journal.Append("abc"), 3u);
  EXPECT_EQ(journal.pending(), 3u);
  journal.AppendToTap("PING");  // replicas only
  EXPECT_EQ(journal.pending(), 3u);
  EXPECT_EQ(h.shards().replicas().offset(), 7);
  journal.set_on(false);
  EXPECT_TRUE(journal.recording());  // the tap still wants records
}

}  // namespace
}  // namespace rc
