#pragma once
// What the set commands share: the encoding limits from the configuration. Owner thread.

#include "core/member_set.h"
#include "shard/state/server_state.h"

namespace rc {

inline MemberSet::Limits SetLimits(const ServerState& server) {
  return {size_t(server.config.set_max_intset_entries.get())};
}

}  // namespace rc
