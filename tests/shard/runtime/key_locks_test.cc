#include "shard/runtime/key_locks.h"

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/entry_table.h"
#include "gtest/gtest.h"

namespace rc {
namespace {

// The locks know keys by hash, as the dispatcher hands them over.
std::vector<uint64_t> K(std::initializer_list<std::string_view> keys) {
  std::vector<uint64_t> out;
  for (std::string_view k : keys) out.push_back(HashKey(k));
  return out;
}
std::vector<uint64_t> H(const std::vector<std::string>& keys) {
  std::vector<uint64_t> out;
  for (const std::string& k : keys) out.push_back(HashKey(k));
  return out;
}

using Keys = KeyLocks::Keys;

TEST(KeyLocks, IdleUntilSomethingIsLocked) {
  KeyLocks locks;
  EXPECT_TRUE(locks.Idle());
  EXPECT_TRUE(locks.MayRun(K({"a"}), false));
  locks.Lock(K({"a", "b"}), false);
  EXPECT_FALSE(locks.Idle());
  EXPECT_FALSE(locks.MayRun(K({"a"}), false));
  EXPECT_FALSE(locks.MayRun(K({"x", "b"}), false));
  EXPECT_TRUE(locks.MayRun(K({"c"}), false));
  EXPECT_FALSE(locks.MayRun({}, true));  // a whole-shard lock needs every key free
  locks.Unlock(K({"a", "b"}), false);
  EXPECT_TRUE(locks.Idle());
}

TEST(KeyLocks, WaitersRunInArrivalOrderPerKey) {
  KeyLocks locks;
  std::vector<std::string> ran;
  locks.Lock(K({"k"}), false);
  locks.Enqueue(K({"k"}), false, [&] { ran.push_back("first"); });
  locks.Enqueue(K({"k", "j"}), false, [&] { ran.push_back("second"); });
  // "j" is named by waiting work: later work on "j" must wait behind it.
  EXPECT_FALSE(locks.MayRun(K({"j"}), false));
  EXPECT_TRUE(locks.MayRun(K({"other"}), false));
  EXPECT_TRUE(ran.empty());
  locks.Unlock(K({"k"}), false);
  EXPECT_EQ(ran, (std::vector<std::string>{"first", "second"}));
  EXPECT_TRUE(locks.Idle());
}

TEST(KeyLocks, AWaiterThatLocksBlocksThoseBehindIt) {
  KeyLocks locks;
  std::vector<std::string> ran;
  locks.Lock(K({"k"}), false);
  // The first waiter takes the lock itself (as a multi-shard command's lock step does).
  locks.Enqueue(K({"k"}), false, [&] {
    ran.push_back("locker");
    locks.Lock(K({"k"}), false);
  });
  locks.Enqueue(K({"k"}), false, [&] { ran.push_back("reader"); });
  locks.Unlock(K({"k"}), false);
  EXPECT_EQ(ran, (std::vector<std::string>{"locker"}));
  locks.Unlock(K({"k"}), false);
  EXPECT_EQ(ran, (std::vector<std::string>{"locker", "reader"}));
}

TEST(KeyLocks, WholeShardLockBlocksEverything) {
  KeyLocks locks;
  std::vector<int> ran;
  locks.Lock({}, true);
  EXPECT_FALSE(locks.MayRun(K({"any"}), false));
  locks.Enqueue(K({"a"}), false, [&] { ran.push_back(1); });
  locks.Enqueue({}, true, [&] { ran.push_back(2); });
  locks.Enqueue(K({"b"}), false, [&] { ran.push_back(3); });
  // Queued whole-shard work blocks everything that arrives after it.
  EXPECT_FALSE(locks.MayRun(K({"zzz"}), false));
  locks.Unlock({}, true);
  EXPECT_EQ(ran, (std::vector<int>{1, 2, 3}));
}

TEST(KeyLocks, DuplicateKeysCountTwice) {
  KeyLocks locks;
  locks.Lock(K({"a", "a"}), false);
  locks.Unlock(K({"a", "a"}), false);
  EXPECT_TRUE(locks.Idle());
}

}  // namespace
}  // namespace rc

namespace rc {
namespace {

// Random arrivals of plain commands and of lockers (which lock their keys when they run
// and unlock later), submitted the way the dispatcher and the lock step do: run now if
// MayRun, else Enqueue. Checks that nothing runs on a locked key, that each key sees its
// work start in arrival order, and that everything eventually runs.
TEST(KeyLocks, RandomScheduleKeepsPerKeyArrivalOrder) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 50; ++round) {
    KeyLocks locks;
    std::vector<std::string> names = {"a", "b", "c", "d", "e", "f"};
    std::map<std::string, int> held;                // key -> lock count, mirrored
    std::map<std::string, std::vector<int>> order;  // key -> arrival ids as they start
    std::vector<std::vector<std::string>> holding;  // keys of lockers that hold locks
    int started = 0, arrivals = 0;
    auto start = [&](int id, const std::vector<std::string>& keys, bool locker) {
      for (const auto& k : keys) {
        ASSERT_EQ(held[k], 0) << "ran on a locked key " << k;
        order[k].push_back(id);
      }
      ++started;
      if (locker) {
        std::vector<uint64_t> views = H(keys);
        locks.Lock(views, false);
        for (const auto& k : keys) ++held[k];
        holding.push_back(keys);
      }
    };
    std::vector<std::unique_ptr<std::vector<std::string>>> storage;
    for (int step = 0; step < 400; ++step) {
      if (!holding.empty() && rng() % 3 == 0) {
        size_t i = rng() % holding.size();
        std::vector<std::string> keys = holding[i];
        holding.erase(holding.begin() + i);
        for (const auto& k : keys) --held[k];
        std::vector<uint64_t> views = H(keys);
        locks.Unlock(views, false);
        continue;
      }
      auto keys = std::make_unique<std::vector<std::string>>();
      size_t n = 1 + rng() % 3;
      for (size_t j = 0; j < n; ++j) keys->push_back(names[rng() % names.size()]);
      bool locker = rng() % 2 == 0;
      int id = arrivals++;
      std::vector<uint64_t> views = H(*keys);
      const std::vector<std::string>* k = keys.get();
      storage.push_back(std::move(keys));
      if (locks.MayRun(views, false)) {
        start(id, *k, locker);
      } else {
        locks.Enqueue(views, false, [&, id, k, locker] { start(id, *k, locker); });
      }
    }
    while (!holding.empty()) {
      std::vector<std::string> keys = holding.back();
      holding.pop_back();
      for (const auto& k : keys) --held[k];
      std::vector<uint64_t> views = H(keys);
      locks.Unlock(views, false);
    }
    EXPECT_EQ(started, arrivals);
    EXPECT_TRUE(locks.Idle());
    for (const auto& [key, ids] : order) {
      EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end())) << key;
    }
  }
}

}  // namespace
}  // namespace rc
