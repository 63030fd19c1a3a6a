// A seeded random sequence of string, bitmap and keyspace commands (COPY, LCS included) over a
// small key set (so keys collide, and with 2-3 threads cross shards) sent to ringcache and to
// redis-server; every reply must match. Replies that are unordered (KEYS) are compared sorted.
// Fixed seeds, then a fresh one for a bounded time (seeds.h).

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/integration/fixtures.h"
#include "tests/integration/seeds.h"

namespace rc::it {
namespace {

class DiffRandomTest : public DiffTest {};

class CommandGenerator {
 public:
  explicit CommandGenerator(uint32_t seed) : rng_(seed) {}

  Args Next() {
    switch (Pick(35)) {
      case 0:
        return {"GET", Key()};
      case 1:
        return WithSetOptions({"SET", Key(), Value()});
      case 2:
        return {"SETNX", Key(), Value()};
      case 3:
        return {"GETSET", Key(), Value()};
      case 4:
        return {"GETDEL", Key()};
      case 5:
        return Keys("MGET", 1 + Pick(5));
      case 6:
        return Pairs("MSET", 1 + Pick(4));
      case 7:
        return Pairs("MSETNX", 1 + Pick(3));
      case 8:
        return {"INCR", Key()};
      case 9:
        return {"DECR", Key()};
      case 10:
        return {"INCRBY", Key(), Int()};
      case 11:
        return {"DECRBY", Key(), Int()};
      case 12:
        return {"INCRBYFLOAT", Key(), Float()};
      case 13:
        return {"APPEND", Key(), Value()};
      case 14:
        return {"STRLEN", Key()};
      case 15:
        return {"GETRANGE", Key(), Offset(), Offset()};
      case 16:
        return {"SETRANGE", Key(), std::to_string(Pick(12)), Value()};
      case 17:
        return Keys(Pick(2) ? "DEL" : "UNLINK", 1 + Pick(4));
      case 18:
        return Keys("EXISTS", 1 + Pick(4));
      case 19:
        return {"TYPE", Key()};
      case 20:
        return {"RENAME", Key(), Key()};
      case 21:
        return {"RENAMENX", Key(), Key()};
      case 22:
        return Keys("TOUCH", 1 + Pick(3));
      case 23:
        return {"DBSIZE"};
      case 24:
        return {"KEYS", Pick(2) ? "*" : "k[0-4]*"};
      case 25:
        return {"SETBIT", Key(), std::to_string(Pick(200)),
                Pick(9) ? std::to_string(Pick(2)) : "2"};
      case 26:
        return {"GETBIT", Key(), std::to_string(Pick(200))};
      case 27:
        return BitRange({"BITCOUNT", Key()});
      case 28:
        return BitRange({"BITPOS", Key(), std::to_string(Pick(2))});
      case 29: {
        static const char* const kOps[] = {"AND", "OR", "XOR", "NOT"};
        const char* op = kOps[Pick(4)];
        return Keys(op, op == std::string("NOT") ? 2 : 2 + Pick(3), "BITOP");
      }
      case 30:
        return BitField();
      case 31: {
        Args cmd = {"COPY", Key(), Key()};
        if (Pick(2)) cmd.push_back("REPLACE");
        return cmd;
      }
      case 32:
        return {"LCS", Key(), Key(), Pick(2) ? "IDX" : "LEN"};
      case 33:
        return {"SUBSTR", Key(), Offset(), Offset()};
      default:
        return Pick(50) ? Args{"GET", Key()} : Args{"FLUSHALL"};
    }
  }

  // One of the keys the commands use.
  std::string AnyKey() { return Key(); }

 private:
  uint32_t Pick(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng_); }

  // 12 plain keys plus 4 sharing a hash tag: with 2-3 shards every multi-key command is
  // likely to span shards, and the tagged ones never do.
  std::string Key() {
    uint32_t i = Pick(16);
    return i < 12 ? absl::StrCat("k", i) : absl::StrCat("{tag}", i);
  }

  std::string Value() {
    switch (Pick(6)) {
      case 0:
        return std::to_string(int(Pick(2000)) - 1000);
      case 1:
        return "";
      case 2:
        return absl::StrCat(Pick(100), ".", Pick(100));
      case 3:
        return std::string(1 + Pick(40), char('a' + Pick(26)));
      case 4:
        return "9223372036854775" + std::to_string(800 + Pick(10));
      default:
        return absl::StrCat("v", Pick(1000));
    }
  }

  std::string Int() {
    switch (Pick(10)) {
      case 0:
        return "9223372036854775807";
      case 1:
        return "-9223372036854775808";
      case 2:
        return "notanumber";
      default:
        return std::to_string(int(Pick(200)) - 100);
    }
  }

  std::string Float() {
    switch (Pick(8)) {
      case 0:
        return "1e3";
      case 1:
        return "abc";
      case 2:
        return std::to_string(int(Pick(100)) - 50);
      default:
        return absl::StrCat(int(Pick(200)) - 100, ".", Pick(1000));
    }
  }

  std::string Offset() { return std::to_string(int(Pick(30)) - 15); }

  Args WithSetOptions(Args cmd) {
    if (Pick(3) == 0) cmd.push_back(Pick(2) ? "NX" : "XX");
    if (Pick(4) == 0) cmd.push_back("GET");
    if (Pick(5) == 0) cmd.push_back("KEEPTTL");
    return cmd;
  }

  // `name` and `n` keys; with `command`, `command name keys...` (BITOP AND d a b).
  Args Keys(const char* name, uint32_t n, const char* command = nullptr) {
    Args cmd = {name};
    if (command != nullptr) cmd.insert(cmd.begin(), command);
    for (uint32_t i = 0; i < n; ++i) cmd.push_back(Key());
    return cmd;
  }

  // BITCOUNT's and BITPOS's optional start, end and unit.
  Args BitRange(Args cmd) {
    const uint32_t n = Pick(4);
    if (n >= 1) cmd.push_back(Offset());
    if (n >= 2 || (n == 1 && cmd[0] == "BITCOUNT")) cmd.push_back(Offset());
    if (n == 3) cmd.push_back(Pick(2) ? "BIT" : "BYTE");
    return cmd;
  }

  Args BitField() {
    Args cmd = {Pick(5) ? "BITFIELD" : "BITFIELD_RO", Key()};
    for (uint32_t i = 0, n = 1 + Pick(3); i < n; ++i) {
      static const char* const kTypes[] = {"u1", "u8", "i8", "u16", "i5", "i64", "u63"};
      const std::string type = kTypes[Pick(7)];
      const std::string offset = Pick(4) ? std::to_string(Pick(120)) : absl::StrCat("#", Pick(4));
      switch (Pick(4)) {
        case 0:
          cmd.insert(cmd.end(), {"OVERFLOW", Pick(3) == 0 ? "FAIL" : Pick(2) ? "SAT" : "WRAP"});
          break;
        case 1:
          cmd.insert(cmd.end(), {"SET", type, offset, Int()});
          break;
        case 2:
          cmd.insert(cmd.end(), {"INCRBY", type, offset, Int()});
          break;
        default:
          cmd.insert(cmd.end(), {"GET", type, offset});
          break;
      }
    }
    return cmd;
  }

  Args Pairs(const char* name, uint32_t n) {
    Args cmd = {name};
    for (uint32_t i = 0; i < n; ++i) {
      cmd.push_back(Key());
      cmd.push_back(Value());
    }
    return cmd;
  }

  std::mt19937 rng_;
};

std::string SortedArray(const std::string& canon) {
  if (canon.rfind("*[", 0) != 0 || canon.size() < 3) return canon;
  std::vector<std::string> items;
  std::string inner = canon.substr(2, canon.size() - 3);
  for (size_t start = 0; start <= inner.size() && !inner.empty();) {
    size_t comma = inner.find(',', start);
    if (comma == std::string::npos) comma = inner.size();
    items.push_back(inner.substr(start, comma - start));
    start = comma + 1;
  }
  std::sort(items.begin(), items.end());
  return absl::StrCat("*[", absl::StrJoin(items, ","), "]");
}

TEST_P(DiffRandomTest, ThreeThousandSeededCommands) {
  constexpr int kCommands = 3000;
  constexpr int kMaxReported = 10;
  for (TestSeed s : SeedsWithFresh({1u, 2u})) {
    const uint32_t seed = s.value;
    s.Begin();
    CommandGenerator gen(seed * 1000 + uint32_t(threads()));
    int mismatches = 0;
    for (int i = 0; i < kCommands && !s.Expired(); ++i) {
      Args cmd = gen.Next();
      std::string want = redisc_->Cmd(cmd);
      std::string got = rcc_->Cmd(cmd);
      if (cmd[0] == "KEYS") {  // Unordered.
        want = SortedArray(want);
        got = SortedArray(got);
      }
      if (got != want && ++mismatches <= kMaxReported) {
        ADD_FAILURE() << "seed " << seed << " step " << i << "\n  command:   " << Describe(cmd)
                      << "\n  redis:     " << want << "\n  ringcache: " << got;
      }
    }
    EXPECT_EQ(mismatches, 0) << "seed " << seed << ": replies that differed";
    Same({"DBSIZE"});
    EXPECT_EQ(SortedArray(rcc_->Cmd({"KEYS", "*"})), SortedArray(redisc_->Cmd({"KEYS", "*"})));
    Same({"FLUSHALL"});
  }
}

// Two connections per server take turns: the same random commands, mixed with WATCH,
// MULTI, EXEC, DISCARD and UNWATCH, so transactions queue, abort on the other client's
// writes (or their own), and run across shards. Every reply, EXEC's included, must
// match redis-server's.
TEST_P(DiffRandomTest, TwoClientsWithTransactions) {
  constexpr int kCommands = 3000;
  constexpr int kMaxReported = 10;
  std::string error;
  auto redis_b = Client::Connect(redis_->port(), &error);
  ASSERT_TRUE(redis_b) << error;
  auto rc_b = NewClient();
  ASSERT_TRUE(rc_b);
  CommandGenerator gen(77 + uint32_t(threads()));
  std::mt19937 rng(5 + uint32_t(threads()));
  auto pick = [&](uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng); };
  int mismatches = 0, ran = 0, aborted = 0;
  for (int i = 0; i < kCommands; ++i) {
    const bool b = pick(2) == 1;
    Args cmd;
    switch (pick(20)) {
      case 0:
      case 1:
        cmd = {"WATCH"};
        for (uint32_t k = 0, n = 1 + pick(3); k < n; ++k) cmd.push_back(gen.AnyKey());
        break;
      case 2:
      case 3:
        cmd = {"MULTI"};
        break;
      case 4:
      case 5:
        cmd = {"EXEC"};
        break;
      case 6:
        cmd = {pick(2) ? "DISCARD" : "UNWATCH"};
        break;
      default:
        cmd = gen.Next();
        if (cmd[0] == "KEYS") cmd = {"DBSIZE"};  // unordered, also inside EXEC's array
        break;
    }
    std::string want = (b ? *redis_b : *redisc_).Cmd(cmd);
    std::string got = (b ? *rc_b : *rcc_).Cmd(cmd);
    if (cmd[0] == "EXEC") {
      if (want == "(nil-array)") ++aborted;
      if (want.rfind("*[", 0) == 0 && want != "*[]") ++ran;
    }
    if (got != want && ++mismatches <= kMaxReported) {
      ADD_FAILURE() << "step " << i << " client " << (b ? "B" : "A")
                    << "\n  command:   " << Describe(cmd) << "\n  redis:     " << want
                    << "\n  ringcache: " << got;
    }
  }
  EXPECT_EQ(mismatches, 0) << "replies that differed";
  // The mix really exercises both outcomes.
  EXPECT_GT(ran, 20);
  EXPECT_GT(aborted, 20);
  Same({"DBSIZE"});
  EXPECT_EQ(SortedArray(rcc_->Cmd({"KEYS", "*"})), SortedArray(redisc_->Cmd({"KEYS", "*"})));
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffRandomTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
