#pragma once
// The lookup every typed command starts with: the key's entry if it holds the command's
// type, Redis's WRONGTYPE error if it holds another. Owner shard's thread.

#include <string_view>

#include "core/entry.h"
#include "core/reply_builder.h"
#include "shard/command/errors.h"
#include "shard/runtime/shard.h"
#include "shard/wire/command.h"

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

// The T at args[1] for a read: nullptr when the key is missing or after a WRONGTYPE reply,
// which *ok tells apart.
template <ValueObject T>
const T* ReadObject(ShardCmd& cmd, bool* ok) {
  Entry* e;
  *ok = FindTyped(cmd.shard, cmd.args[1], ValueTraits<T>::kType, Access::kRead, cmd.reply, &e);
  return *ok && e != nullptr ? e->object<T>() : nullptr;
}

}  // namespace rc
