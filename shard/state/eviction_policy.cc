#include "shard/state/eviction_policy.h"

#include "core/strings.h"

namespace rc {

namespace {

struct Named {
  EvictionPolicy policy;
  std::string_view name;
};
// Redis's order (its error text lists them so).
constexpr Named kPolicies[] = {
    {EvictionPolicy::kVolatileLru, "volatile-lru"},
    {EvictionPolicy::kVolatileLfu, "volatile-lfu"},
    {EvictionPolicy::kVolatileRandom, "volatile-random"},
    {EvictionPolicy::kVolatileTtl, "volatile-ttl"},
    {EvictionPolicy::kAllKeysLru, "allkeys-lru"},
    {EvictionPolicy::kAllKeysLfu, "allkeys-lfu"},
    {EvictionPolicy::kAllKeysRandom, "allkeys-random"},
    {EvictionPolicy::kNoEviction, "noeviction"},
};

}  // namespace

std::string_view PolicyName(EvictionPolicy p) {
  for (const Named& n : kPolicies) {
    if (n.policy == p) return n.name;
  }
  return "noeviction";
}

bool ParsePolicy(std::string_view name, EvictionPolicy* out) {
  for (const Named& n : kPolicies) {
    if (EqualsIgnoreCase(n.name, name)) {
      *out = n.policy;
      return true;
    }
  }
  return false;
}

std::string_view PolicyChoices() {
  return "argument(s) must be one of the following: volatile-lru, volatile-lfu, "
         "volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction";
}

}  // namespace rc
