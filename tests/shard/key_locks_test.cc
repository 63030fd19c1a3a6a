#include "shard/key_locks.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rc {
namespace {

using Keys = KeyLocks::Keys;

TEST(KeyLocks, IdleUntilSomethingIsLocked) {
  KeyLocks locks;
  EXPECT_TRUE(locks.Idle());
  EXPECT_TRUE(locks.MayRun({"a"}, false));
  locks.Lock({"a", "b"}, false);
  EXPECT_FALSE(locks.Idle());
  EXPECT_FALSE(locks.MayRun({"a"}, false));
  EXPECT_FALSE(locks.MayRun({"x", "b"}, false));
  EXPECT_TRUE(locks.MayRun({"c"}, false));
  EXPECT_FALSE(locks.MayRun({}, true));  // a whole-shard lock needs every key free
  locks.Unlock({"a", "b"}, false);
  EXPECT_TRUE(locks.Idle());
}

TEST(KeyLocks, WaitersRunInArrivalOrderPerKey) {
  KeyLocks locks;
  std::vector<std::string> ran;
  locks.Lock({"k"}, false);
  locks.Enqueue({"k"}, false, [&] { ran.push_back("first"); });
  locks.Enqueue({"k", "j"}, false, [&] { ran.push_back("second"); });
  // "j" is named by waiting work: later work on "j" must wait behind it.
  EXPECT_FALSE(locks.MayRun({"j"}, false));
  EXPECT_TRUE(locks.MayRun({"other"}, false));
  EXPECT_TRUE(ran.empty());
  locks.Unlock({"k"}, false);
  EXPECT_EQ(ran, (std::vector<std::string>{"first", "second"}));
  EXPECT_TRUE(locks.Idle());
}

TEST(KeyLocks, AWaiterThatLocksBlocksThoseBehindIt) {
  KeyLocks locks;
  std::vector<std::string> ran;
  locks.Lock({"k"}, false);
  // The first waiter takes the lock itself (as a multi-shard command's lock step does).
  locks.Enqueue({"k"}, false, [&] {
    ran.push_back("locker");
    locks.Lock({"k"}, false);
  });
  locks.Enqueue({"k"}, false, [&] { ran.push_back("reader"); });
  locks.Unlock({"k"}, false);
  EXPECT_EQ(ran, (std::vector<std::string>{"locker"}));
  locks.Unlock({"k"}, false);
  EXPECT_EQ(ran, (std::vector<std::string>{"locker", "reader"}));
}

TEST(KeyLocks, WholeShardLockBlocksEverything) {
  KeyLocks locks;
  std::vector<int> ran;
  locks.Lock({}, true);
  EXPECT_FALSE(locks.MayRun({"any"}, false));
  locks.Enqueue({"a"}, false, [&] { ran.push_back(1); });
  locks.Enqueue({}, true, [&] { ran.push_back(2); });
  locks.Enqueue({"b"}, false, [&] { ran.push_back(3); });
  // Queued whole-shard work blocks everything that arrives after it.
  EXPECT_FALSE(locks.MayRun({"zzz"}, false));
  locks.Unlock({}, true);
  EXPECT_EQ(ran, (std::vector<int>{1, 2, 3}));
}

TEST(KeyLocks, DuplicateKeysCountTwice) {
  KeyLocks locks;
  locks.Lock({"a", "a"}, false);
  locks.Unlock({"a", "a"}, false);
  EXPECT_TRUE(locks.Idle());
}

}  // namespace
}  // namespace rc
