// A seeded random sequence of list commands mixed with strings, hashes, TTLs, RENAME,
// COPY and MULTI/EXEC over a small key set (so keys collide, types clash and, with 2-3
// threads, LMOVE / RPOPLPUSH / LMPOP span shards), sent to ringcache and to redis-server;
// every reply must match. One seed runs with list-max-listpack-size 3 so lists are many
// small blocks, split and emptied in the middle.
// Fixed seeds, then a fresh one for a bounded time (seeds.h).

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/integration/fixtures.h"
#include "tests/integration/seeds.h"

namespace rc::it {
namespace {

class DiffListRandomTest : public DiffTest {};

class ListGenerator {
 public:
  explicit ListGenerator(uint32_t seed) : rng_(seed) {}

  Args Next() {
    switch (Pick(30)) {
      case 0:
      case 1:
      case 2:
        return Elements(Pick(2) ? "RPUSH" : "LPUSH", 1 + Pick(6));
      case 3:
        return Elements(Pick(2) ? "RPUSHX" : "LPUSHX", 1 + Pick(2));
      case 4:
      case 5:
        if (Pick(2)) return {Pick(2) ? "LPOP" : "RPOP", Key()};
        return {Pick(2) ? "LPOP" : "RPOP", Key(), std::to_string(Pick(5))};
      case 6:
        return {"LLEN", Key()};
      case 7:
      case 8:
        return {"LRANGE", Key(), Index(), Index()};
      case 9:
        return {"LINDEX", Key(), Index()};
      case 10:
        return {"LSET", Key(), Index(), Element()};
      case 11:
        return {"LINSERT", Key(), Pick(2) ? "BEFORE" : "AFTER", Element(), Element()};
      case 12:
        return {"LREM", Key(), std::to_string(int(Pick(7)) - 3), Element()};
      case 13:
        return {"LTRIM", Key(), Index(), Index()};
      case 14: {
        Args c = {"LPOS", Key(), Element()};
        if (Pick(2))
          c.insert(c.end(), {"RANK", std::to_string(Pick(2) ? 1 + Pick(3) : -1 - int(Pick(3)))});
        if (Pick(2)) c.insert(c.end(), {"COUNT", std::to_string(Pick(4))});
        if (Pick(3) == 0) c.insert(c.end(), {"MAXLEN", std::to_string(Pick(10))});
        return c;
      }
      case 15:
      case 16:
        return {"LMOVE", Key(), Key(), Pick(2) ? "LEFT" : "RIGHT", Pick(2) ? "LEFT" : "RIGHT"};
      case 17:
        return {"RPOPLPUSH", Key(), Key()};
      case 18: {
        Args c = {"LMPOP", "3", Key(), Key(), Key(), Pick(2) ? "LEFT" : "RIGHT"};
        if (Pick(2)) c.insert(c.end(), {"COUNT", std::to_string(1 + Pick(4))});
        return c;
      }
      case 19:
        return {"SET", Key(), Element()};
      case 20:
        return {"HSET", Key(), "f", Element()};
      case 21:
        return {"EXPIRE", Key(), std::to_string(100 + Pick(1000))};
      case 22:
        return {Pick(2) ? "RENAME" : "RENAMENX", Key(), Key()};
      case 23:
        return {"COPY", Key(), Key(), "REPLACE"};
      case 24:
        return {"TYPE", Key()};
      case 25:
        return {Pick(2) ? "DEL" : "EXISTS", Key(), Key()};
      case 26:
        return {"TTL", Key()};
      default:
        return {"LRANGE", Key(), "0", "-1"};
    }
  }

  uint32_t Pick(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng_); }

 private:
  std::string Key() {
    const uint32_t i = Pick(8);
    return i < 5 ? absl::StrCat("k", i) : absl::StrCat("{t}", i);
  }
  std::string Index() { return std::to_string(int(Pick(16)) - 8); }
  std::string Element() {
    switch (Pick(5)) {
      case 0:
        return std::to_string(int(Pick(40)) - 20);
      case 1:
        return std::to_string(int64_t(Pick(1u << 30)) * 977);
      case 2:
        return std::string(Pick(3) == 0 ? 70 : 3, char('a' + Pick(3)));
      default:
        return absl::StrCat("e", Pick(6));
    }
  }
  Args Elements(const char* name, uint32_t n) {
    Args cmd = {name, Key()};
    for (uint32_t i = 0; i < n; ++i) cmd.push_back(Element());
    return cmd;
  }

  std::mt19937 rng_;
};

TEST_P(DiffListRandomTest, SeededCommandsWithTransactions) {
  constexpr int kSteps = 2500;
  int mismatches = 0;
  for (TestSeed s : SeedsWithFresh({1u, 2u})) {
    const uint32_t seed = s.value;
    s.Begin();
    Same({"CONFIG", "SET", "list-max-listpack-size", seed % 2 ? "3" : "-2"});
    ListGenerator gen(seed * 104729 + uint32_t(threads()));
    for (int i = 0; i < kSteps && !s.Expired(); ++i) {
      std::vector<Args> cmds;
      if (gen.Pick(12) == 0) {
        cmds.push_back({"MULTI"});
        for (uint32_t n = 1 + gen.Pick(4); cmds.size() <= n;) cmds.push_back(gen.Next());
        cmds.push_back({"EXEC"});
      } else {
        cmds.push_back(gen.Next());
      }
      for (const Args& cmd : cmds) {
        const std::string want = redisc_->Cmd(cmd);
        const std::string got = rcc_->Cmd(cmd);
        if (got != want && ++mismatches <= 10) {
          ADD_FAILURE() << "seed " << seed << " step " << i << "\n  command:   " << Describe(cmd)
                        << "\n  redis:     " << want << "\n  ringcache: " << got;
        }
      }
    }
    for (const char* k : {"k0", "k1", "k2", "k3", "k4", "{t}5", "{t}6", "{t}7"}) {
      Same({"LRANGE", k, "0", "-1"});
    }
    Same({"DBSIZE"});
    Same({"FLUSHALL"});
  }
  EXPECT_EQ(mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffListRandomTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
