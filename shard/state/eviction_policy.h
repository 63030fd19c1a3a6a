#pragma once
// maxmemory-policy: which keys may go when the server is over maxmemory, by Redis's names.
// How each is carried out: shard/runtime/evictor.h and docs/EVICTION.md.

#include <cstdint>
#include <string_view>

namespace rc {

enum class EvictionPolicy : uint8_t {
  kNoEviction,
  kAllKeysLru,
  kAllKeysLfu,
  kAllKeysRandom,
  kVolatileLru,
  kVolatileLfu,
  kVolatileRandom,
  kVolatileTtl,
};

std::string_view PolicyName(EvictionPolicy p);
// False on a name Redis does not know (case-insensitive, as Redis).
bool ParsePolicy(std::string_view name, EvictionPolicy* out);
// Redis's error text for a bad name: the names in its order.
std::string_view PolicyChoices();

// Only keys with a TTL may go.
inline bool VolatileOnly(EvictionPolicy p) {
  return p == EvictionPolicy::kVolatileLru || p == EvictionPolicy::kVolatileLfu ||
         p == EvictionPolicy::kVolatileRandom || p == EvictionPolicy::kVolatileTtl;
}
// OBJECT FREQ answers (and OBJECT IDLETIME refuses) under these, as in Redis.
inline bool LfuPolicy(EvictionPolicy p) {
  return p == EvictionPolicy::kAllKeysLfu || p == EvictionPolicy::kVolatileLfu;
}

}  // namespace rc
