#pragma once
// Room in a string value for the commands that write into it in place (APPEND, SETRANGE,
// SETBIT, BITFIELD). Owner shard's thread; a grown entry may have moved, so callers use
// the returned pointer.

#include <cstring>
#include <string_view>

#include "core/entry.h"
#include "shard/runtime/shard.h"

namespace rc {

// Makes room for `len` value bytes, growing geometrically so repeated APPENDs cost
// amortized O(1) per byte, as Redis's sds does.
inline Entry* EnsureCapacity(Shard& shard, Entry* e, size_t len) {
  if (len <= e->StrCapacity()) return e;
  size_t cap = len < (1 << 20) ? len * 2 : len + (1 << 20);
  return shard.GrowString(e, cap);
}

// The string under `key` (its entry `e`, or nullptr to create it) made at least `len`
// bytes long, the new bytes zero (Redis's sdsgrowzero); its TTL stays. The caller tells
// WATCH once it has written.
inline Entry* GrowZeroed(Shard& shard, std::string_view key, Entry* e, size_t len) {
  size_t old_len = 0;
  if (e == nullptr) {
    // Exactly `len`, as Redis sizes a new bitmap, and without a zeroed temporary (SETBIT
    // at the last offset would hold 512 MB twice).
    e = shard.GrowString(shard.SetString(key, {}), len);
  } else {
    old_len = e->str().size();
    if (len <= old_len) return e;
    e = EnsureCapacity(shard, e, len);
  }
  std::memset(e->MutableStr() + old_len, 0, len - old_len);
  e->SetStrLen(len);
  return e;
}

}  // namespace rc
