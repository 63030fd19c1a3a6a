// maxmemory and its policies on 1, 2 and 3 threads. Against redis-server: the settings,
// their errors, the OOM refusals (writes, MULTI, EXEC of a queued write), OBJECT FREQ and
// IDLETIME's errors, and INFO's fields. On ringcache alone: every evicting policy brings
// the server under the limit (also after CONFIG SET lowers it), volatile-* never touch
// persistent keys, volatile-ttl takes the nearest deadlines, noeviction refuses writes
// and keeps serving reads, a full shard does not evict while the server is under its
// limit, and evictions are published as keyspace events.
//
// The limit is checked on INFO's used_memory_dataset (the shards' exact bytes, which the
// limit counts as well): used_memory falls back to RSS in sanitizer builds.
//
// Against a sanitizer build's server the limit and every key count are a quarter
// (Scaled): each test fills past the limit by the same factor, and what it asserts (under
// the limit, which keys went, refusals, events) does not depend on the limit's size.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"
#include "tests/integration/polling.h"

namespace rc::it {
namespace {

const std::string kOom = "-OOM command not allowed when used memory > 'maxmemory'.";

class EvictionDiffTest : public DiffTest {
 protected:
  void Both(const Args& cmd) {
    redisc_->Cmd(cmd);
    rcc_->Cmd(cmd);
  }
};

TEST_P(EvictionDiffTest, SettingsAndTheirErrors) {
  Script({
      {"CONFIG", "GET", "maxmemory"},
      {"CONFIG", "GET", "maxmemory-policy"},
      {"CONFIG", "GET", "maxmemory-samples"},
      {"CONFIG", "GET", "maxmemory-eviction-tenacity"},
      {"CONFIG", "GET", "lfu-log-factor"},
      {"CONFIG", "GET", "lfu-decay-time"},
      {"CONFIG", "SET", "maxmemory", "10mb"},
      {"CONFIG", "GET", "maxmemory"},
      {"CONFIG", "SET", "maxmemory", "1GB"},
      {"CONFIG", "GET", "maxmemory"},
      {"CONFIG", "SET", "maxmemory", "12345"},
      {"CONFIG", "GET", "maxmemory"},
      {"CONFIG", "SET", "maxmemory", "lots"},
      {"CONFIG", "SET", "maxmemory", "-1"},
      {"CONFIG", "SET", "maxmemory-policy", "lru"},
      {"CONFIG", "SET", "maxmemory-samples", "0"},
      {"CONFIG", "SET", "maxmemory-samples", "10"},
      {"CONFIG", "GET", "maxmemory-samples"},
      {"CONFIG", "SET", "maxmemory-eviction-tenacity", "101"},
      {"CONFIG", "SET", "maxmemory-eviction-tenacity", "-1"},
      {"CONFIG", "SET", "maxmemory-eviction-tenacity", "50"},
      {"CONFIG", "SET", "lfu-log-factor", "-1"},
      {"CONFIG", "SET", "lfu-decay-time", "-1"},
      {"CONFIG", "SET", "lfu-log-factor", "10"},
      {"CONFIG", "SET", "lfu-decay-time", "1"},
      {"CONFIG", "SET", "maxmemory", "0"},
  });
  // Redis's LFU tunings have nothing to tune in ringcache's counter: any other value is
  // refused and the setting keeps its value.
  EXPECT_EQ(rcc_->Cmd({"CONFIG", "SET", "lfu-log-factor", "20"}),
            "-ERR CONFIG SET failed (possibly related to argument 'lfu-log-factor') - "
            "ringcache's LFU counter is not logarithmic: only 10 is supported");
  EXPECT_EQ(rcc_->Cmd({"CONFIG", "SET", "lfu-decay-time", "5"}),
            "-ERR CONFIG SET failed (possibly related to argument 'lfu-decay-time') - "
            "ringcache's LFU counter is aged by its eviction clock, not by time: only 1 is "
            "supported");
  EXPECT_EQ(rcc_->Cmd({"CONFIG", "GET", "lfu-log-factor"}), "*[$lfu-log-factor,$10]");
  EXPECT_EQ(rcc_->Cmd({"CONFIG", "GET", "lfu-decay-time"}), "*[$lfu-decay-time,$1]");
  for (const char* policy : {"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
                             "allkeys-lru", "ALLKEYS-LFU", "allkeys-random", "noeviction"}) {
    Same({"CONFIG", "SET", "maxmemory-policy", policy});
    Same({"CONFIG", "GET", "maxmemory-policy"});
  }
}

TEST_P(EvictionDiffTest, NoEvictionRefusesWritesAndServesReads) {
  Script({{"SET", "k", "v"},
          {"SET", "n", "1"},
          {"EXPIRE", "n", "1000"},
          {"CONFIG", "SET", "maxmemory-policy", "noeviction"},
          {"CONFIG", "SET", "maxmemory", "1"}});
  EXPECT_EQ(Same({"SET", "a", "b"}), kOom);
  Script({{"INCR", "n"},
          {"APPEND", "k", "x"},
          {"SETNX", "z", "1"},
          {"MSET", "a", "1", "b", "2"},
          {"GET", "k"},
          {"EXISTS", "k", "n"},
          {"TTL", "k"},
          {"STRLEN", "k"},
          {"PING"},
          {"DBSIZE"},
          {"EXPIRE", "k", "100"},
          {"PERSIST", "k"},
          {"DEL", "k"},
          {"UNLINK", "n"},
          {"GET", "k"}});
  // Inside MULTI everything that would be queued is refused (queueing takes memory),
  // which dooms the transaction; DISCARD and EXEC still answer.
  Script({{"MULTI"}, {"GET", "k"}, {"SET", "k", "v"}, {"EXEC"}});
  Script({{"MULTI"}, {"DISCARD"}, {"MULTI"}, {"EXEC"}});
  Script({{"FLUSHALL"}, {"CONFIG", "SET", "maxmemory", "0"}, {"SET", "a", "b"}, {"GET", "a"}});
}

TEST_P(EvictionDiffTest, ExecOfAQueuedWriteIsDiscardedOverTheLimit) {
  Both({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
  Script({{"SET", "x", "1"}, {"MULTI"}, {"SET", "a", "1"}, {"GET", "a"}});
  // Another client lowers the limit while the transaction is open.
  std::string error;
  auto redis_admin = Client::Connect(redis_->port(), &error);
  ASSERT_TRUE(redis_admin) << error;
  auto rc_admin = NewClient();
  ASSERT_TRUE(rc_admin);
  for (Client* c : {redis_admin.get(), rc_admin.get()}) {
    ASSERT_EQ(c->Cmd({"CONFIG", "SET", "maxmemory", "1"}), "+OK");
  }
  Script({{"EXEC"}, {"EXEC"}, {"GET", "a"}});
  // A transaction of reads runs.
  Script({{"SET", "b", "1"}});
  for (Client* c : {redis_admin.get(), rc_admin.get()}) {
    ASSERT_EQ(c->Cmd({"CONFIG", "SET", "maxmemory", "0"}), "+OK");
  }
  Script({{"SET", "b", "1"}, {"MULTI"}, {"GET", "b"}});
  for (Client* c : {redis_admin.get(), rc_admin.get()}) {
    ASSERT_EQ(c->Cmd({"CONFIG", "SET", "maxmemory", "1"}), "+OK");
  }
  Script({{"EXEC"}});
  Both({"CONFIG", "SET", "maxmemory", "0"});
}

TEST_P(EvictionDiffTest, ObjectFreqAndIdleTimeFollowThePolicy) {
  Script({{"SET", "k", "v"},
          {"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"},
          {"OBJECT", "FREQ", "k"},
          {"OBJECT", "FREQ", "missing"},
          {"OBJECT", "IDLETIME", "missing"}});
  // Idle time counts whole seconds of a clock, so a tick may fall between SET and the read.
  for (Client* c : {redisc_.get(), rcc_.get()}) {
    int64_t idle = IntCmd(*c, {"OBJECT", "IDLETIME", "k"});
    EXPECT_GE(idle, 0);
    EXPECT_LE(idle, 1);
  }
  Script({{"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"},
          {"OBJECT", "IDLETIME", "k"},
          {"OBJECT", "IDLETIME", "missing"},
          {"CONFIG", "SET", "maxmemory-policy", "noeviction"}});
  // Under an LFU policy the frequency is an integer (an approximation, not Redis's value).
  Both({"CONFIG", "SET", "maxmemory-policy", "volatile-lfu"});
  EXPECT_GE(IntCmd(*rcc_, {"OBJECT", "FREQ", "k"}), 0);
  Both({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
}

TEST_P(EvictionDiffTest, InfoHasRedisFields) {
  Both({"CONFIG", "SET", "maxmemory", "64mb"});
  Both({"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"});
  auto redis = InfoFields(*redisc_, "all");
  auto mine = InfoFields(*rcc_, "all");
  for (const char* field : {"maxmemory", "maxmemory_human", "maxmemory_policy"}) {
    EXPECT_EQ(mine[field], redis[field]) << field;
  }
  for (const char* field :
       {"evicted_keys", "total_eviction_exceeded_time", "current_eviction_exceeded_time",
        "mem_fragmentation_ratio", "keyspace_hits", "keyspace_misses"}) {
    EXPECT_TRUE(redis.count(field)) << field;
    EXPECT_TRUE(mine.count(field)) << field;
  }
  EXPECT_EQ(mine["evicted_keys"], "0");
  Both({"CONFIG", "SET", "maxmemory", "0"});
  Both({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
  EXPECT_EQ(InfoFields(*rcc_, "memory")["maxmemory_human"],
            InfoFields(*redisc_, "memory")["maxmemory_human"]);
}

INSTANTIATE_TEST_SUITE_P(Threads, EvictionDiffTest, ::testing::Values(1, 2, 3), ThreadsName);

class EvictionTest : public RingcacheTest {
 protected:
  // An empty server exits fast, also under sanitizers.
  void TearDown() override {
    if (rcc_) rcc_->Cmd({"FLUSHALL"});
  }
  int64_t Info(const std::string& field) {
    auto fields = InfoFields(*rcc_, "all");
    auto it = fields.find(field);
    return it == fields.end() ? -1 : std::strtoll(it->second.c_str(), nullptr, 10);
  }
  void Config(const std::string& name, const std::string& value) {
    ASSERT_EQ(rcc_->Cmd({"CONFIG", "SET", name, value}), "+OK") << name << " " << value;
  }
  // SET prefix:i for i in [from, to), pipelined; with `ttl_base` > 0, EX ttl_base + i.
  // Returns how many were refused with OOM.
  // prefix:i, or with `groups`, {g<i % groups>}prefix:i: each group's keys share a shard.
  static std::string Key(const std::string& prefix, int i, int groups) {
    return groups > 0 ? absl::StrCat("{g", i % groups, "}", prefix, ":", i)
                      : absl::StrCat(prefix, ":", i);
  }
  int Fill(const std::string& prefix, int from, int to, size_t value_size, int ttl_base = 0,
           int groups = 0) {
    const std::string value(value_size, 'v');
    int refused = 0;
    constexpr int kBatch = 500;
    for (int start = from; start < to; start += kBatch) {
      const int end = std::min(to, start + kBatch);
      for (int i = start; i < end; ++i) {
        Args cmd = {"SET", Key(prefix, i, groups), value};
        if (ttl_base > 0) cmd.insert(cmd.end(), {"EX", std::to_string(ttl_base + i)});
        rcc_->Append(cmd);
      }
      for (int i = start; i < end; ++i) {
        std::string r = rcc_->GetReply();
        if (r == kOom) {
          ++refused;
        } else {
          EXPECT_EQ(r, "+OK");
        }
      }
    }
    return refused;
  }
  // Which of Key(prefix, i, groups) for i in [from, to) exist.
  std::vector<bool> Present(const std::string& prefix, int from, int to, int groups = 0) {
    std::vector<bool> out;
    for (int start = from; start < to; start += 500) {
      const int end = std::min(to, start + 500);
      for (int i = start; i < end; ++i) rcc_->Append({"EXISTS", Key(prefix, i, groups)});
      for (int i = start; i < end; ++i) out.push_back(rcc_->GetReply() == ":1");
    }
    return out;
  }
  // The limit of most tests: 4 MB, 1 MB against a sanitizer build's server.
  int64_t Limit() const { return Scaled(int64_t{4} << 20); }
  bool UnderLimit(int64_t limit) {
    return PollUntil([&] { return Info("used_memory_dataset") <= limit; }, kEventually,
                     milliseconds(20));
  }
};

TEST_P(EvictionTest, EveryEvictingPolicyStaysUnderTheLimit) {
  for (const char* policy : {"allkeys-lru", "allkeys-lfu", "allkeys-random", "volatile-lru",
                             "volatile-lfu", "volatile-random", "volatile-ttl"}) {
    SCOPED_TRACE(policy);
    ASSERT_EQ(rcc_->Cmd({"FLUSHALL"}), "+OK");
    Config("maxmemory-policy", policy);
    const int64_t limit = Limit();
    Config("maxmemory", std::to_string(limit));
    const int64_t evicted_before = Info("evicted_keys");
    // About 1/8 of the limit in persistent keys, then about 1.5 times it with a TTL.
    const int persistent_keys = Scaled(5000);
    EXPECT_EQ(Fill("p", 0, persistent_keys, 50), 0);
    EXPECT_EQ(Fill("t", 0, Scaled(60000), 50, 100000), 0);
    EXPECT_TRUE(UnderLimit(limit)) << Info("used_memory_dataset");
    EXPECT_GT(Info("evicted_keys"), evicted_before);
    const std::vector<bool> persistent = Present("p", 0, persistent_keys);
    const int kept = int(std::count(persistent.begin(), persistent.end(), true));
    if (std::string(policy).rfind("volatile", 0) == 0) {
      EXPECT_EQ(kept, persistent_keys);
    }
    // Halving the limit takes effect at once.
    Config("maxmemory", std::to_string(limit / 2));
    EXPECT_TRUE(UnderLimit(limit / 2)) << Info("used_memory_dataset");
    EXPECT_GT(IntCmd(*rcc_, {"DBSIZE"}), 0);
  }
  Config("maxmemory", "0");
}

TEST_P(EvictionTest, VolatileTtlTakesTheNearestDeadlinesFirst) {
  Config("maxmemory-policy", "volatile-ttl");
  Config("maxmemory", std::to_string(Limit()));
  // Deadlines grow with i. Each shard evicts its own nearest deadlines exactly, so within a
  // group of keys that share a shard whatever survives is the latest ones. Across shards
  // the boundary is not sharp: a shard that runs more turns evicts a little more than its
  // share (docs/EVICTION.md); Redis samples, so its boundary is not sharp either.
  const int kKeys = Scaled(80000);
  constexpr int kGroups = 3;
  EXPECT_EQ(Fill("t", 0, kKeys, 50, 1000, kGroups), 0);
  ASSERT_TRUE(UnderLimit(Limit()));
  // A turn that evicts while the keys are read would make the read a mix of before and
  // after: read again until no eviction happened during it.
  Config("maxmemory", "0");
  std::vector<bool> present;
  ASSERT_TRUE(PollUntil([&] {
    const int64_t evicted = Info("evicted_keys");
    present = Present("t", 0, kKeys, kGroups);
    return Info("evicted_keys") == evicted;
  }));
  const int kept = int(std::count(present.begin(), present.end(), true));
  ASSERT_GT(kept, 0);
  ASSERT_LT(kept, kKeys);
  for (int g = 0; g < kGroups; ++g) {
    int first_kept = kKeys, evicted_after = 0;
    for (int i = g; i < kKeys; i += kGroups) {
      if (present[size_t(i)]) {
        first_kept = std::min(first_kept, i);
      } else if (i > first_kept) {
        ++evicted_after;
      }
    }
    EXPECT_EQ(evicted_after, 0) << "group " << g << " kept from " << first_kept;
  }
}

TEST_P(EvictionTest, NoEvictionRefusesWritesUntilKeysAreDeleted) {
  Config("maxmemory-policy", "noeviction");
  Config("maxmemory", std::to_string(Limit()));
  const int keys = Scaled(100000);
  const int refused = Fill("k", 0, keys, 50);
  EXPECT_GT(refused, 0);
  EXPECT_EQ(Info("evicted_keys"), 0);
  // Well past the limit from here on: the fill stopped right at it, and a table resize
  // that ends after it frees its old bucket array, which can bring the shards' bytes back
  // under the limit it just reached.
  Config("maxmemory", std::to_string(Info("used_memory_dataset") / 2));
  // Reads keep working.
  EXPECT_EQ(rcc_->Cmd({"GET", "k:0"}), "$" + std::string(50, 'v'));
  EXPECT_EQ(rcc_->Cmd({"SET", "k:0", "x"}), kOom);
  // Deleting makes room again. In batches: connection buffers count against the limit
  // too, and keep the capacity a huge pipeline gave them.
  for (int start = 0; start < keys; start += 500) {
    for (int i = start; i < start + 500; ++i) rcc_->Append({"DEL", absl::StrCat("k:", i)});
    for (int i = start; i < start + 500; ++i) rcc_->GetReply();
  }
  EXPECT_TRUE(PollUntil([&] { return rcc_->Cmd({"SET", "k:0", "x"}) == "+OK"; }));
  Config("maxmemory", "0");
}

// One limit for the server: a shard holding far more than its share of it does not evict
// while the server as a whole is under the limit.
TEST_P(EvictionTest, AFullShardDoesNotEvictUnderTheServersLimit) {
  Config("maxmemory-policy", "allkeys-lru");
  Config("maxmemory", std::to_string(Limit()));
  // About 5/8 of the limit, all on one shard ({hot} is one slot): past a third of it.
  const int hot = Scaled(25000);
  EXPECT_EQ(Fill("{hot}", 0, hot, 50), 0);
  EXPECT_EQ(Info("evicted_keys"), 0);
  EXPECT_EQ(IntCmd(*rcc_, {"DBSIZE"}), hot);
  // Past the limit the same shard evicts, and the server ends under it.
  EXPECT_EQ(Fill("{hot}", hot, Scaled(60000), 50), 0);
  EXPECT_TRUE(UnderLimit(Limit()));
  EXPECT_GT(Info("evicted_keys"), 0);
  Config("maxmemory", "0");
}

TEST_P(EvictionTest, EvictionsArePublished) {
  Config("notify-keyspace-events", "Ee");
  auto sub = NewRaw(rc_->port());
  ASSERT_TRUE(sub);
  ASSERT_TRUE(sub->Send(EncodeCommand({"SUBSCRIBE", "__keyevent@0__:evicted"})));
  EXPECT_EQ(sub->ReadReply(), "*[$subscribe,$__keyevent@0__:evicted,:1]");
  Config("maxmemory-policy", "allkeys-random");
  Config("maxmemory", std::to_string(Limit()));
  EXPECT_EQ(Fill("k", 0, Scaled(80000), 50), 0);
  ASSERT_TRUE(UnderLimit(Limit()));
  const std::string event = sub->ReadReply();
  EXPECT_EQ(event.rfind("*[$message,$__keyevent@0__:evicted,$k:", 0), 0u) << event;
  Config("maxmemory", "0");
}

// A turn evicts for at most the tenacity budget; unbounded, lowering the limit far below
// usage makes one long cycle, which the latency monitor records under Redis's name.
TEST_P(EvictionTest, LongEvictionCyclesReachTheLatencyMonitor) {
  Config("latency-monitor-threshold", "1");
  Config("maxmemory-eviction-tenacity", "100");
  Config("maxmemory-policy", "allkeys-random");
  EXPECT_EQ(Fill("k", 0, Scaled(100000), 50), 0);
  Config("maxmemory", "1");
  EXPECT_TRUE(PollUntil([&] { return IntCmd(*rcc_, {"DBSIZE"}) == 0; }, kEventually,
                        milliseconds(20)));
  const std::string latest = rcc_->Cmd({"LATENCY", "LATEST"});
  EXPECT_NE(latest.find("$eviction-cycle"), std::string::npos) << latest;
  Config("maxmemory", "0");
  Config("maxmemory-eviction-tenacity", "10");
  Config("latency-monitor-threshold", "0");
}

INSTANTIATE_TEST_SUITE_P(Threads, EvictionTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
