#pragma once
// What the list commands share, and what the blocking list commands (BLPOP, BLMOVE, ...)
// build on: the one place a list is pushed to, popped from and moved between keys. Each
// keeps memory and WATCH right (a ValueUpdate), deletes a list left empty and raises
// Redis's keyspace events, so callers only decide what to do and reply.
//
// Shard functions run on the key's owning shard's thread; the *Coord ones on the
// connection's thread, taking the multi-shard locks (shard/command/multi_shard.h).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "core/list.h"
#include "shard/wire/command.h"

namespace rc {

class Entry;
class Shard;
struct ServerState;

// list-max-listpack-size as the list takes it.
List::Limits ListLimits(const ServerState& server);

// Redis's LEFT / RIGHT argument (case-insensitive); false for anything else.
bool ParseListEnd(std::string_view arg, List::End* end);

// The list under `key` for a write. Returns false when `key` holds another type;
// otherwise *out is its entry, or nullptr when missing. Counts no hit or miss.
bool FindListForWrite(Shard& shard, std::string_view key, Entry** out);

// Pushes `elems` in order at `end` of the list `e` (nullptr: created under `key`), raises
// lpush/rpush and returns the new length. `e` must be a list.
size_t PushList(Shard& shard, const ServerState& server, std::string_view key, Entry* e,
                List::End end, ArgList elems);

// Pops up to `count` elements from `end` of the list `e` (of `key`), giving each to `fn`
// nearest the end first (views live until `fn` returns); raises lpop/rpop, and del when
// the list is left empty (then deleted). Returns how many it popped.
size_t PopList(Shard& shard, std::string_view key, Entry* e, List::End end, size_t count,
               absl::FunctionRef<void(std::string_view)> fn);

// LMOVE src dst from to, both keys on `cmd.shard`: pops from `src`, pushes onto `dst`,
// replies the element (or null when `src` is missing, WRONGTYPE when either key holds
// another type), as Redis's lmoveGenericCommand.
void MoveLocal(ShardCmd& cmd, std::string_view src, std::string_view dst, List::End from,
               List::End to);
// The same with the keys on different shards, atomic across them; replies later.
void MoveCoord(CoordCmd& cmd, std::string_view src, std::string_view dst, List::End from,
               List::End to);

// LMPOP's reply: [key, [elements...]].
void ReplyKeyAndElements(ReplyBuilder& rb, std::string_view key,
                         const std::vector<std::string>& elems);
// LMPOP over `keys` (on any shards, atomic across them): pops up to `count` from `end` of
// the first key holding a non-empty list and replies [key, elements], or a null array
// when none does; WRONGTYPE when a key before it holds another type. Replies later.
void MPopCoord(CoordCmd& cmd, std::vector<std::string_view> keys, List::End end, size_t count);

}  // namespace rc
