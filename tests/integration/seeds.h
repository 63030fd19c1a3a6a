// Seeds of the randomized differential tests: each runs its fixed seeds (the same
// sessions every run, so a regression shows at once) and then one fresh seed for a
// bounded time, so that CI explores new sessions too. The fresh seed is printed, and
// named in every failure of its session: RINGCACHE_TEST_SEED=<seed> replays it.

#ifndef RINGCACHE_TESTS_INTEGRATION_SEEDS_H_
#define RINGCACHE_TESTS_INTEGRATION_SEEDS_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <random>
#include <vector>

namespace rc::it {

struct TestSeed {
  uint32_t value;
  bool fresh;
  std::chrono::milliseconds budget{0};
  std::chrono::steady_clock::time_point deadline{};
  // Call as the session starts: a fresh one has `budget` from here.
  void Begin() { deadline = std::chrono::steady_clock::now() + budget; }
  // A fresh session stops here (its steps so far are checked); fixed ones run whole.
  bool Expired() const { return fresh && std::chrono::steady_clock::now() > deadline; }
};

// `fixed`, then a fresh seed (RINGCACHE_TEST_SEED if set) with `fresh_budget` of wall time.
inline std::vector<TestSeed> SeedsWithFresh(
    std::initializer_list<uint32_t> fixed,
    std::chrono::milliseconds fresh_budget = std::chrono::milliseconds(2000)) {
  std::vector<TestSeed> out;
  for (uint32_t s : fixed) out.push_back({s, false});
  uint32_t fresh;
  if (const char* env = std::getenv("RINGCACHE_TEST_SEED"); env != nullptr && *env) {
    fresh = uint32_t(std::strtoul(env, nullptr, 10));
  } else {
    fresh = std::random_device()();
  }
  std::printf("fresh seed %u (RINGCACHE_TEST_SEED=%u replays it)\n", fresh, fresh);
  out.push_back({fresh, true, fresh_budget});
  return out;
}

}  // namespace rc::it

#endif  // RINGCACHE_TESTS_INTEGRATION_SEEDS_H_
