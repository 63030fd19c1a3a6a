#pragma once
// The lookup every typed command starts with: the key's entry if it holds the command's
// type, Redis's WRONGTYPE error if it holds another. Owner shard's thread.

#include <string_view>

#include "core/entry.h"
#include "core/reply_builder.h"
#include "shard/command/errors.h"
#include "shard/runtime/shard.h"

namespace rc {

// kRead counts a keyspace hit or miss (Redis's lookupKeyRead); kWrite does not.
enum class Access { kRead, kWrite };

// Returns false (having replied WRONGTYPE) when `key` holds another type than `type`;
// otherwise *out is the entry, or nullptr when the key is missing.
inline bool FindTyped(Shard& shard, std::string_view key, ValueType type, Access access,
                      ReplyBuilder& reply, Entry** out) {
  Entry* e = access == Access::kRead ? shard.FindForRead(key) : shard.Find(key);
  if (e != nullptr && e->type() != type) {
    reply.Error(err::kWrongType);
    return false;
  }
  *out = e;
  return true;
}

}  // namespace rc
