#include "shard/runtime/script_busy.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace rc {
namespace {

using KillResult = ScriptBusy::KillResult;

TEST(ScriptBusy, KillsOnlyABusyScriptThatHasNotWritten) {
  std::atomic<int> busy_threads{0};
  ScriptBusy busy(busy_threads);
  EXPECT_EQ(busy.Kill(/*eval=*/true), KillResult::kNotBusy);
  busy.Enter(/*wrote=*/false, /*function=*/false, {});
  EXPECT_TRUE(busy.busy());
  EXPECT_EQ(busy_threads.load(), 1);
  EXPECT_EQ(busy.Kill(/*eval=*/false), KillResult::kOtherKind);  // FUNCTION KILL
  EXPECT_FALSE(busy.killed());
  EXPECT_EQ(busy.Kill(/*eval=*/true), KillResult::kKilled);
  EXPECT_TRUE(busy.killed());
  EXPECT_FALSE(busy.Write());  // the kill came first: the write must not run
  EXPECT_EQ(busy.Kill(/*eval=*/true), KillResult::kKilled);
  busy.Leave();
  EXPECT_FALSE(busy.busy());
  EXPECT_EQ(busy_threads.load(), 0);
}

TEST(ScriptBusy, AWriteMakesItUnkillable) {
  std::atomic<int> busy_threads{0};
  ScriptBusy busy(busy_threads);
  busy.Enter(/*wrote=*/false, /*function=*/true, {"f", {"FCALL", "f", "0"}, 42});
  EXPECT_TRUE(busy.function());
  // What FUNCTION STATS shows, until the run ends.
  ASSERT_TRUE(busy.running().has_value());
  EXPECT_EQ(busy.running()->name, "f");
  EXPECT_EQ(busy.running()->command, (std::vector<std::string>{"FCALL", "f", "0"}));
  EXPECT_EQ(busy.running()->start_ns, 42);
  EXPECT_TRUE(busy.Write());
  EXPECT_EQ(busy.Kill(/*eval=*/false), KillResult::kWrote);
  // Redis answers UNKILLABLE before it looks at the kind.
  EXPECT_EQ(busy.Kill(/*eval=*/true), KillResult::kWrote);
  busy.Leave();
  EXPECT_FALSE(busy.running().has_value());
  busy.Enter(/*wrote=*/true, /*function=*/false, {});
  EXPECT_EQ(busy.Kill(/*eval=*/true), KillResult::kWrote);
  busy.Leave();
}

// A kill from another thread racing the script's first write: exactly one wins, every
// time.
TEST(ScriptBusy, KillAndWriteRaceHasOneWinner) {
  std::atomic<int> busy_threads{0};
  for (int round = 0; round < 2000; ++round) {
    ScriptBusy busy(busy_threads);
    busy.Enter(false, false, {});
    std::atomic<bool> go{false};
    KillResult killed = KillResult::kNotBusy;
    std::thread killer([&] {
      while (!go.load()) {
      }
      killed = busy.Kill(true);
    });
    go.store(true);
    const bool wrote = busy.Write();
    killer.join();
    ASSERT_NE(wrote, killed == KillResult::kKilled) << "round " << round;
    ASSERT_EQ(wrote, killed == KillResult::kWrote) << "round " << round;
    busy.Leave();
  }
}

}  // namespace
}  // namespace rc
