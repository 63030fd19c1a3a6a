#include "shard/state/replication_state.h"

#include "absl/random/random.h"

namespace rc {

std::string RandomReplicationId() {
  absl::BitGen gen;
  std::string id;
  for (int i = 0; i < 40; ++i) id.push_back("0123456789abcdef"[absl::Uniform(gen, 0, 16)]);
  return id;
}

}  // namespace rc
