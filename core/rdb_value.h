#pragma once
// A key's value in Redis's RDB format (version 10, Redis 7.0's rdbSaveObject and
// rdbLoadObject): what an RDB file holds between a key's type byte and key name and the
// next record, and what a DUMP payload holds after its type byte. The snapshot code and
// DUMP / RESTORE / MIGRATE call these. Pure functions: any thread that may read the
// entry (its shard's, or one the shard handed a frozen value to).
//
// Writing gives Redis's bytes wherever ringcache's encoding is Redis's:
//
//   ringcache value                    RDB type                 body
//   string                             0  string                a string
//   list                               18 quicklist 2           nodes: container 2 and a
//                                                               listpack of about 8 KiB
//                                                               (1 and the element for one
//                                                               of 1 GiB or more)
//   set, intset                        11 intset                the intset blob
//   set, hashtable                     2  set                   members
//   sorted set, compact (listpack)     17 zset listpack         member, score pairs
//   sorted set, big (skiplist)         5  zset 2                member, binary score,
//                                                               highest first
//   hash, compact (listpack)           16 hash listpack         field, value pairs
//   hash, big (hashtable)              4  hash                  field, value
//
// Lists are split into nodes as Redis's list-max-listpack-size -2 splits a list pushed
// at the tail, so a list's bytes match a redis-server's that was built by RPUSH.
//
// Reading takes every type a Redis 7.0 server loads but streams and modules (1, 3, 9, 10,
// 12, 13 and 14 are older Redis versions' lists, sorted sets, zipmap and ziplist hashes),
// checks each blob the way Redis's deep sanitization does, refuses what Redis refuses
// (duplicate members or fields, a NaN score, an empty value), and builds the value
// through its type's own API with the server's limits, so encodings convert as Redis's
// loading converts them.

#include <cstdint>
#include <string>

#include "core/hash.h"
#include "core/list.h"
#include "core/member_set.h"
#include "core/rdb.h"
#include "core/value.h"
#include "core/zset.h"

namespace rc {

class Entry;

// RDB object type bytes (Redis 7.0 rdb.h).
inline constexpr uint8_t kRdbTypeString = 0;
inline constexpr uint8_t kRdbTypeList = 1;
inline constexpr uint8_t kRdbTypeSet = 2;
inline constexpr uint8_t kRdbTypeZSet = 3;
inline constexpr uint8_t kRdbTypeHash = 4;
inline constexpr uint8_t kRdbTypeZSet2 = 5;
inline constexpr uint8_t kRdbTypeHashZipmap = 9;
inline constexpr uint8_t kRdbTypeListZiplist = 10;
inline constexpr uint8_t kRdbTypeSetIntset = 11;
inline constexpr uint8_t kRdbTypeZSetZiplist = 12;
inline constexpr uint8_t kRdbTypeHashZiplist = 13;
inline constexpr uint8_t kRdbTypeListQuicklist = 14;
inline constexpr uint8_t kRdbTypeHashListpack = 16;
inline constexpr uint8_t kRdbTypeZSetListpack = 17;
inline constexpr uint8_t kRdbTypeListQuicklist2 = 18;

// The types ringcache reads (Redis's rdbIsObjectType less streams and modules).
bool RdbIsObjectType(uint8_t type);
// What Redis 7.0 would write for this value (table above).
uint8_t RdbObjectType(const Entry& e);
// The value's body in that type, appended to `out`: not the type byte, not the key.
// `compress`: rdbcompression (LZF for strings and blobs longer than 20 bytes).
void RdbAppendObject(const Entry& e, bool compress, std::string* out);

// The limits loading builds values with: the server's hash-max-listpack-*,
// set-max-intset-entries and list-max-listpack-size.
struct RdbLimits {
  Hash::Limits hash;
  MemberSet::Limits set;
  List::Limits list;
  ZSet::Limits zset;
};
// A value read back: a string's bytes in `str`, any other type's object in `obj`. Reuse
// one across a file's values: `str` keeps its buffer.
struct RdbObject {
  ValueType type = ValueType::kString;
  std::string str;
  Value obj;
  // Set when the read failed because the value was well-formed but empty: Redis refuses
  // it in RESTORE and skips the key when loading a file.
  bool empty = false;
};
// Reads a value of RDB type `type` from `in`. False on a type ringcache does not read,
// input cut short, malformed or refused, with *error saying what (no "ERR" prefix and no
// offset: the caller adds where it was, from in.offset()).
bool RdbReadObject(uint8_t type, RdbReader& in, const RdbLimits& limits, RdbObject* out,
                   std::string* error);
// Moves past a value of type `type` without building or checking its contents (splitting
// a file into records). False when the input is cut short or the type is not read here.
bool RdbSkipObject(uint8_t type, RdbReader& in);

// A DUMP payload of `e`: type byte, body and footer (Redis's createDumpPayload).
std::string RdbDumpPayload(const Entry& e, bool compress);

}  // namespace rc
