// Keys really expiring, through sockets, with short TTLs (1, 2 and 3 threads): keys on every
// shard vanish without being touched (active expiry), and not before their deadline; a
// key renewed by a heartbeat survives while its neighbours expire; RENAME across shards
// keeps the deadline; KEYS/SCAN/RANDOMKEY never return a key past its deadline; the
// active-expire-* budget settings. Every wait polls against a generous deadline
// (kEventually), so a slow sanitizer run passes and a fast one stays fast.

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"
#include "tests/integration/polling.h"

namespace rc::it {
namespace {

using Clock = std::chrono::steady_clock;

int64_t MsSince(Clock::time_point t) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - t).count();
}

class ExpiryTest : public RingcacheTest {
 protected:
  // Sends `cmds` pipelined (in batches of 1000) on the test's client; every reply must be
  // `want`.
  void Pipeline(const std::vector<Args>& cmds, const std::string& want = "+OK") {
    constexpr size_t kBatch = 1000;
    for (size_t begin = 0; begin < cmds.size(); begin += kBatch) {
      size_t end = std::min(cmds.size(), begin + kBatch);
      for (size_t i = begin; i < end; ++i) rcc_->Append(cmds[i]);
      for (size_t i = begin; i < end; ++i) {
        std::string got = rcc_->GetReply();
        ASSERT_EQ(got, want) << Describe(cmds[i]);
      }
    }
  }
  int64_t DbSize() { return IntCmd(*rcc_, {"DBSIZE"}); }
  int64_t ExpiredKeys() { return InfoInt(*rcc_, "stats", "expired_keys"); }
  // Polls DBSIZE (which touches no key) until it is `n`.
  bool WaitDbSize(int64_t n) {
    return PollUntil([&] { return DbSize() == n; }, kEventually, milliseconds(5));
  }
  std::vector<std::string> SpreadKeys(const std::string& prefix, int per_shard) {
    std::vector<std::string> keys;
    for (int s = 0; s < threads(); ++s) {
      for (std::string& k : KeysOnShard(prefix, s, threads(), per_shard)) {
        keys.push_back(std::move(k));
      }
    }
    return keys;
  }
};

// Deadlines as far as PEXPIREAT goes: INFO's average TTL sums sampled ones (it overflowed
// 64 bits, which UBSan stops on).
TEST_P(ExpiryTest, InfoAveragesTheFarthestDeadlines) {
  for (const std::string& k : SpreadKeys("far", 2)) {
    ASSERT_EQ(rcc_->Cmd({"SET", k, "v"}), "+OK");
    ASSERT_EQ(rcc_->Cmd({"PEXPIREAT", k, "9223299999999999999"}), ":1");
  }
  std::map<std::string, int64_t> db0 = KeyspaceDb0(*rcc_);
  EXPECT_EQ(db0["keys"], 2 * threads());
  EXPECT_EQ(db0["expires"], 2 * threads());
  EXPECT_GT(db0["avg_ttl"], int64_t{9'000'000'000'000'000'000}) << "wrapped around";
  EXPECT_EQ(rcc_->Cmd({"PING"}), "+PONG");
}

TEST_P(ExpiryTest, KeysOnEveryShardVanishWithoutBeingTouched) {
  constexpr int kVolatilePerShard = 300, kPersistentPerShard = 50;
  std::vector<std::string> volatile_keys = SpreadKeys("vol:", kVolatilePerShard);
  std::vector<std::string> persistent = SpreadKeys("keep:", kPersistentPerShard);
  std::vector<Args> sets;
  for (const std::string& k : persistent) sets.push_back({"SET", k, "v"});
  ASSERT_NO_FATAL_FAILURE(Pipeline(sets));
  sets.clear();
  // TTLs from 50 to 200 ms; the 200 ms ones go last.
  for (size_t i = 0; i < volatile_keys.size(); ++i) {
    sets.push_back({"SET", volatile_keys[i], "v", "PX", std::to_string(50 + i % 151)});
  }
  sets.push_back({"SET", "last", "v", "PX", "200"});
  Clock::time_point start = Clock::now();
  ASSERT_NO_FATAL_FAILURE(Pipeline(sets));

  const int64_t want = int64_t(persistent.size());
  ASSERT_TRUE(WaitDbSize(want)) << "DBSIZE " << DbSize() << ", want " << want;
  // The last key had 200 ms from a moment after `start`: not gone earlier.
  EXPECT_GE(MsSince(start), 195);
  EXPECT_EQ(ExpiredKeys(), int64_t(volatile_keys.size()) + 1);
  auto db0 = KeyspaceDb0(*rcc_);
  EXPECT_EQ(db0["keys"], want);
  EXPECT_EQ(db0["expires"], 0);
  Client::ReplyPtr keys = rcc_->RawCmd({"KEYS", "*"});
  ASSERT_TRUE(keys);
  std::vector<std::string> got = Strings(keys.get());
  std::sort(got.begin(), got.end());
  std::sort(persistent.begin(), persistent.end());
  EXPECT_EQ(got, persistent);
  // Expiring did not count as hits or misses: nothing read them.
  EXPECT_EQ(InfoInt(*rcc_, "stats", "keyspace_hits"), 0);
  EXPECT_EQ(InfoInt(*rcc_, "stats", "keyspace_misses"), 0);
}

TEST_P(ExpiryTest, HeartbeatKeepsKeysAliveWhileOthersExpire) {
  constexpr int kTtlMs = 400;
  std::vector<std::string> beating = SpreadKeys("hb:", 2);
  std::vector<std::string> idle = SpreadKeys("idle:", 20);
  std::vector<Args> sets;
  for (const std::string& k : beating)
    sets.push_back({"SET", k, "v", "PX", std::to_string(kTtlMs)});
  for (const std::string& k : idle) sets.push_back({"SET", k, "v", "PX", std::to_string(kTtlMs)});
  Clock::time_point start = Clock::now();
  ASSERT_NO_FATAL_FAILURE(Pipeline(sets));
  // Renew every few ms for 2.5 TTLs, and at least until the idle keys are gone.
  int beats = 0;
  while (MsSince(start) < kTtlMs * 5 / 2 || DbSize() != int64_t(beating.size())) {
    ASSERT_LT(MsSince(start), kEventually.count()) << "DBSIZE " << DbSize();
    for (const std::string& k : beating) {
      ASSERT_EQ(rcc_->Cmd({"PEXPIRE", k, std::to_string(kTtlMs)}), ":1")
          << k << " expired although renewed (beat " << beats << ", " << MsSince(start) << " ms)";
    }
    ++beats;
    std::this_thread::sleep_for(milliseconds(5));
  }
  for (const std::string& k : beating) {
    EXPECT_EQ(rcc_->Cmd({"GET", k}), "$v");
    int64_t pttl = IntCmd(*rcc_, {"PTTL", k});
    EXPECT_TRUE(pttl > 0 && pttl <= kTtlMs) << k << " PTTL " << pttl;
  }
  EXPECT_EQ(ExpiredKeys(), int64_t(idle.size()));
  // Without the heartbeat they go too.
  ASSERT_TRUE(WaitDbSize(0));
  EXPECT_EQ(ExpiredKeys(), int64_t(idle.size() + beating.size()));
}

TEST_P(ExpiryTest, RenameAcrossShardsKeepsTheDeadline) {
  constexpr int kTtlMs = 300;
  for (bool nx : {false, true}) {
    SCOPED_TRACE(nx ? "RENAMENX" : "RENAME");
    std::string src = KeysOnShard(nx ? "nsrc" : "src", 0, threads(), 1)[0];
    std::string dst = KeysOnShard(nx ? "ndst" : "dst", threads() - 1, threads(), 1)[0];
    int64_t expired_before = ExpiredKeys();
    Clock::time_point start = Clock::now();
    ASSERT_EQ(rcc_->Cmd({"SET", src, "v", "PX", std::to_string(kTtlMs)}), "+OK");
    ASSERT_EQ(rcc_->Cmd({nx ? "RENAMENX" : "RENAME", src, dst}), nx ? ":1" : "+OK");
    int64_t pttl = IntCmd(*rcc_, {"PTTL", dst});
    EXPECT_TRUE(pttl > 0 && pttl <= kTtlMs) << "PTTL " << pttl;
    EXPECT_EQ(rcc_->Cmd({"EXISTS", src}), ":0");
    // Not touched again: active expiry on the destination's shard removes it on time.
    ASSERT_TRUE(WaitDbSize(0)) << dst << " never expired";
    EXPECT_GE(MsSince(start), kTtlMs - 5) << dst << " expired before its deadline";
    // Only the renamed key counts as expired (the source was moved, not expired).
    EXPECT_EQ(ExpiredKeys(), expired_before + 1);
  }
}

TEST_P(ExpiryTest, RenameOntoAKeyWithTtlDropsThatTtl) {
  std::string src = KeysOnShard("src", 0, threads(), 1)[0];
  std::string dst = KeysOnShard("dst", threads() - 1, threads(), 1)[0];
  int64_t old_deadline = NowUnixMs() + 100;
  ASSERT_EQ(rcc_->Cmd({"SET", dst, "old", "PX", "100"}), "+OK");
  ASSERT_EQ(rcc_->Cmd({"SET", src, "new"}), "+OK");
  ASSERT_EQ(rcc_->Cmd({"RENAME", src, dst}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"TTL", dst}), ":-1");
  // Past the old deadline, the renamed value is still there.
  ASSERT_TRUE(PollUntil([&] { return NowUnixMs() > old_deadline + 10; }));
  EXPECT_EQ(rcc_->Cmd({"GET", dst}), "$new");
  EXPECT_EQ(ExpiredKeys(), 0);
}

TEST_P(ExpiryTest, SetWithPastOrImminentDeadline) {
  std::vector<std::string> keys = SpreadKeys("past:", 1);
  int64_t past_s = NowUnixMs() / 1000 - 10;
  for (const std::string& k : keys) {
    ASSERT_EQ(rcc_->Cmd({"SET", k, "v", "EXAT", std::to_string(past_s)}), "+OK");
    EXPECT_EQ(rcc_->Cmd({"GET", k}), "(nil)") << k;
    EXPECT_EQ(rcc_->Cmd({"EXISTS", k}), ":0") << k;
  }
  EXPECT_EQ(ExpiredKeys(), int64_t(keys.size()));
  // PXAT 50 ms ahead: there, then gone (read only after the deadline).
  for (const std::string& k : keys) {
    int64_t at = NowUnixMs() + 50;
    ASSERT_EQ(rcc_->Cmd({"SET", k, "v", "PXAT", std::to_string(at)}), "+OK");
    ASSERT_TRUE(PollUntil([&] { return NowUnixMs() > at; }));
    EXPECT_EQ(rcc_->Cmd({"GET", k}), "(nil)") << k;
  }
  EXPECT_EQ(ExpiredKeys(), 2 * int64_t(keys.size()));
  EXPECT_EQ(DbSize(), 0);
}

// With active expiry throttled to one key per loop turn, keys past their deadline may
// still be in the table: KEYS, SCAN, EXISTS and MGET must skip them anyway.
TEST_P(ExpiryTest, ListingsSkipKeysPastTheirDeadline) {
  ASSERT_EQ(rcc_->Cmd({"CONFIG", "SET", "active-expire-keys-per-turn", "1"}), "+OK");
  ASSERT_EQ(rcc_->Cmd({"CONFIG", "SET", "active-expire-us-per-turn", "1"}), "+OK");
  std::vector<std::string> persistent = SpreadKeys("keep:", 3);
  std::vector<std::string> doomed = SpreadKeys("doomed:", 3000);
  std::vector<Args> sets;
  for (const std::string& k : persistent) sets.push_back({"SET", k, "v"});
  int64_t at = NowUnixMs() + 100;
  for (const std::string& k : doomed) sets.push_back({"SET", k, "v", "PXAT", std::to_string(at)});
  ASSERT_NO_FATAL_FAILURE(Pipeline(sets));
  ASSERT_TRUE(PollUntil([&] { return NowUnixMs() > at; }));

  std::sort(persistent.begin(), persistent.end());
  Client::ReplyPtr r = rcc_->RawCmd({"KEYS", "*"});
  ASSERT_TRUE(r);
  std::vector<std::string> keys = Strings(r.get());
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, persistent);
  std::vector<std::string> scanned = ScanAll(*rcc_, {"COUNT", "50"});
  std::sort(scanned.begin(), scanned.end());
  scanned.erase(std::unique(scanned.begin(), scanned.end()), scanned.end());
  EXPECT_EQ(scanned, persistent);
  Args exists = {"EXISTS"}, mget = {"MGET"};
  for (size_t i = 0; i < doomed.size(); i += 97) {
    exists.push_back(doomed[i]);
    mget.push_back(doomed[i]);
  }
  EXPECT_EQ(rcc_->Cmd(exists), ":0");
  Client::ReplyPtr m = rcc_->RawCmd(mget);
  ASSERT_TRUE(m && m->type == REDIS_REPLY_ARRAY);
  for (size_t i = 0; i < m->elements; ++i) EXPECT_EQ(m->element[i]->type, REDIS_REPLY_NIL);
  // The throttled active expiry still gets through all of them, and the server answers
  // meanwhile.
  EXPECT_EQ(rcc_->Cmd({"PING"}), "+PONG");
  ASSERT_TRUE(WaitDbSize(int64_t(persistent.size())));
  EXPECT_EQ(ExpiredKeys(), int64_t(doomed.size()));
}

// RANDOMKEY, like Redis's (which deletes expired keys it draws and draws again), returns a
// live key whenever there is one, however many keys past their deadline are still in the
// table. Asked right after 10000 keys per shard passed their deadline, with active expiry
// throttled, so most of them are still there.
TEST_P(ExpiryTest, RandomKeyFindsTheLiveKeysAmongExpiredOnes) {
  ASSERT_EQ(rcc_->Cmd({"CONFIG", "SET", "active-expire-keys-per-turn", "1"}), "+OK");
  ASSERT_EQ(rcc_->Cmd({"CONFIG", "SET", "active-expire-us-per-turn", "1"}), "+OK");
  std::vector<std::string> persistent = SpreadKeys("keep:", 1);
  std::vector<std::string> doomed = SpreadKeys("doomed:", 10000);
  std::vector<Args> sets;
  for (const std::string& k : persistent) sets.push_back({"SET", k, "v"});
  int64_t at = NowUnixMs() + 300;
  for (const std::string& k : doomed) sets.push_back({"SET", k, "v", "PXAT", std::to_string(at)});
  ASSERT_NO_FATAL_FAILURE(Pipeline(sets));
  ASSERT_TRUE(PollUntil([&] { return NowUnixMs() > at; }, kEventually, milliseconds(1)));
  // Pipelined, so that they all run before active expiry catches up.
  constexpr int kCalls = 20;
  for (int i = 0; i < kCalls; ++i) rcc_->Append({"RANDOMKEY"});
  std::vector<std::string> picks;
  for (int i = 0; i < kCalls; ++i) picks.push_back(rcc_->GetReply());
  std::sort(persistent.begin(), persistent.end());
  for (int i = 0; i < kCalls; ++i) {
    const std::string& got = picks[size_t(i)];
    EXPECT_TRUE(got.size() > 1 && got[0] == '$' &&
                std::binary_search(persistent.begin(), persistent.end(), got.substr(1)))
        << "RANDOMKEY -> " << got << " (call " << i << ") while " << persistent.size()
        << " keys without TTL exist";
  }
  ASSERT_TRUE(WaitDbSize(int64_t(persistent.size())));
}

TEST_P(ExpiryTest, ActiveExpireBudgetSettings) {
  EXPECT_EQ(rcc_->Cmd({"CONFIG", "SET", "active-expire-keys-per-turn", "7"}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"CONFIG", "GET", "active-expire-keys-per-turn"}),
            "*[$active-expire-keys-per-turn,$7]");
  EXPECT_EQ(rcc_->Cmd({"CONFIG", "SET", "active-expire-us-per-turn", "250"}), "+OK");
  EXPECT_EQ(rcc_->Cmd({"CONFIG", "GET", "active-expire-us-per-turn"}),
            "*[$active-expire-us-per-turn,$250]");
  for (const Args& bad : {Args{"CONFIG", "SET", "active-expire-keys-per-turn", "0"},
                          Args{"CONFIG", "SET", "active-expire-keys-per-turn", "-1"},
                          Args{"CONFIG", "SET", "active-expire-keys-per-turn", "abc"},
                          Args{"CONFIG", "SET", "active-expire-us-per-turn", "0"},
                          Args{"CONFIG", "SET", "active-expire-us-per-turn", "1000001"}}) {
    std::string got = rcc_->Cmd(bad);
    EXPECT_EQ(got.rfind("-ERR CONFIG SET failed", 0), 0u) << Describe(bad) << " -> " << got;
  }
  Client::ReplyPtr all = rcc_->RawCmd({"CONFIG", "GET", "active-expire-*"});
  ASSERT_TRUE(all);
  std::vector<std::string> pairs = Strings(all.get());
  ASSERT_EQ(pairs.size(), 4u) << Canon(all.get());
  std::set<std::pair<std::string, std::string>> got = {{pairs[0], pairs[1]}, {pairs[2], pairs[3]}};
  EXPECT_EQ(got, (std::set<std::pair<std::string, std::string>>{
                     {"active-expire-keys-per-turn", "7"}, {"active-expire-us-per-turn", "250"}}));
  // Keys still expire under a small budget.
  std::vector<std::string> keys = SpreadKeys("k:", 200);
  std::vector<Args> sets;
  for (const std::string& k : keys) sets.push_back({"SET", k, "v", "PX", "20"});
  ASSERT_NO_FATAL_FAILURE(Pipeline(sets));
  ASSERT_TRUE(WaitDbSize(0));
  EXPECT_EQ(ExpiredKeys(), int64_t(keys.size()));
}

// Many keys due in the same millisecond: the server keeps answering while it works
// through them in bounded steps, and every one is counted.
TEST_P(ExpiryTest, MassExpiryKeepsServerResponsive) {
  std::vector<std::string> keys = SpreadKeys("mass:", 10000);
  int64_t at = NowUnixMs() + 200;
  std::vector<Args> sets;
  for (const std::string& k : keys) sets.push_back({"SET", k, "v", "PXAT", std::to_string(at)});
  ASSERT_NO_FATAL_FAILURE(Pipeline(sets));
  ASSERT_EQ(rcc_->Cmd({"SET", "survivor", "v"}), "+OK");
  ASSERT_TRUE(PollUntil([&] {
    EXPECT_EQ(rcc_->Cmd({"GET", "survivor"}), "$v");
    return DbSize() == 1;
  }));
  EXPECT_EQ(ExpiredKeys(), int64_t(keys.size()));
  EXPECT_EQ(KeyspaceDb0(*rcc_)["expires"], 0);
}

// Writes that keep the TTL but reallocate the entry (APPEND and SETRANGE growing it, SET
// KEEPTTL with a bigger value, INCR, EXPIRE again) must leave the TTL index pointing at the
// new entry: every such key still expires on its own, and the ones made persistent
// (PERSIST, GETEX PERSIST, SET without options) do not.
TEST_P(ExpiryTest, RewrittenKeysStillExpireAndPersistedOnesStay) {
  const std::string big(5000, 'x');
  std::vector<std::string> keys = SpreadKeys("rw:", 10);
  int64_t deadline = NowUnixMs() + 300;
  std::vector<Args> cmds;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string& k = keys[i];
    cmds.push_back({"SET", k, "1", "PX", "300"});
    switch (i % 10) {
      case 0:
        cmds.push_back({"APPEND", k, big});
        break;
      case 1:
        cmds.push_back({"SETRANGE", k, "10000", "y"});
        break;
      case 2:
        cmds.push_back({"SET", k, big, "KEEPTTL"});
        break;
      case 3:
        cmds.push_back({"INCRBY", k, "100000000000"});
        break;
      case 4:
        cmds.push_back({"PEXPIRE", k, "250"});
        cmds.push_back({"APPEND", k, big});
        break;
      case 5:
        cmds.push_back({"PERSIST", k});
        break;
      case 6:
        cmds.push_back({"GETEX", k, "PERSIST"});
        break;
      case 7:
        cmds.push_back({"SET", k, big});
        break;
      case 8:
        cmds.push_back({"GETSET", k, "2"});
        break;
      case 9:
        cmds.push_back({"PERSIST", k});
        cmds.push_back({"PEXPIRE", k, "200"});
        cmds.push_back({"SETRANGE", k, "3000", "z"});
        break;
    }
  }
  for (const Args& cmd : cmds) rcc_->Append(cmd);
  for (const Args& cmd : cmds) {
    std::string r = rcc_->GetReply();
    ASSERT_TRUE(r[0] != '-' && r[0] != '!') << Describe(cmd) << " -> " << r;
  }
  std::vector<std::string> stay;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i % 10 >= 5 && i % 10 <= 8) stay.push_back(keys[i]);
  }
  std::sort(stay.begin(), stay.end());
  ASSERT_TRUE(WaitDbSize(int64_t(stay.size())));
  EXPECT_GE(NowUnixMs(), deadline - 100);  // the shortest TTL given was 200 ms
  EXPECT_EQ(ExpiredKeys(), int64_t(keys.size() - stay.size()));
  Client::ReplyPtr r = rcc_->RawCmd({"KEYS", "*"});
  ASSERT_TRUE(r);
  std::vector<std::string> left = Strings(r.get());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, stay);
  // Past every deadline given, the persisted ones are still there.
  ASSERT_TRUE(PollUntil([&] { return NowUnixMs() > deadline + 10; }));
  EXPECT_EQ(DbSize(), int64_t(stay.size()));
  for (const std::string& k : stay) EXPECT_EQ(rcc_->Cmd({"TTL", k}), ":-1") << k;
}

// FLUSHALL forgets the deadlines of the keys it drops: keys written afterwards (expiring
// after the dropped keys' deadlines) expire on their own schedule, and only they count as
// expired and are announced.
TEST_P(ExpiryTest, FlushallForgetsDeadlines) {
  ASSERT_EQ(rcc_->Cmd({"CONFIG", "SET", "notify-keyspace-events", "Ex"}), "+OK");
  auto sub = NewRaw(rc_->port());
  ASSERT_TRUE(sub && sub->Send(EncodeCommand({"SUBSCRIBE", "__keyevent@0__:expired"})));
  ASSERT_EQ(sub->ReadReply(), "*[$subscribe,$__keyevent@0__:expired,:1]");
  std::vector<std::string> flushed = SpreadKeys("flushed:", 300);
  std::vector<Args> sets;
  for (const std::string& k : flushed) sets.push_back({"SET", k, "v", "PX", "400"});
  ASSERT_NO_FATAL_FAILURE(Pipeline(sets));
  ASSERT_EQ(rcc_->Cmd({"FLUSHALL"}), "+OK");
  std::vector<std::string> fresh = SpreadKeys("fresh:", 3);
  sets.clear();
  for (const std::string& k : fresh) sets.push_back({"SET", k, "v", "PX", "450"});
  ASSERT_NO_FATAL_FAILURE(Pipeline(sets));
  // Gone after the flushed keys' deadlines too: no stale deadline may fire.
  ASSERT_TRUE(WaitDbSize(0));
  std::vector<std::string> got = sub->ReadReplies(fresh.size(), kEventually);
  std::vector<std::string> want;
  for (const std::string& k : fresh)
    want.push_back("*[$message,$__keyevent@0__:expired,$" + k + "]");
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
  EXPECT_EQ(ExpiredKeys(), int64_t(fresh.size()));
  EXPECT_EQ(rcc_->Cmd({"PUBLISH", "__keyevent@0__:expired", "marker"}), ":1");
  EXPECT_EQ(sub->ReadReply(), "*[$message,$__keyevent@0__:expired,$marker]");
}

INSTANTIATE_TEST_SUITE_P(Threads, ExpiryTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
