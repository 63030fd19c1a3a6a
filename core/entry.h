#pragma once
// One key of a shard's keyspace, in a single allocation:
//
//   [next: 8][meta: 1][key len][value len]([deadline: 8][heap index: 4])[key][value]
//
// The meta byte: the value's type (3 bits), wide lengths, has a TTL, and 3 bits of
// eviction state (shard/runtime/evictor.h): a 2-bit hit counter and a probation flag, so
// eviction costs no byte of its own.
//
// Lengths take one byte each when both fit (the common cache key/value), four bytes each
// otherwise. The TTL fields exist only in entries that have a TTL (meta bit kTtl), so a
// key without one pays nothing for expiry; adding or removing a TTL reallocates the entry. A
// 12-byte key with a 32-byte value needs 55 bytes, which glibc serves from a 64-byte chunk; a
// separate key or value allocation would cost 32+ bytes more per key (measured in
// docs/PERFORMANCE.md). The hash is not stored: the table recomputes it on the rare migration
// instead of paying 8 bytes per key forever.
//
// Strings live inline. Any other type's entry holds an owning pointer to its object in its
// 8 value bytes (core/value.h); the object's memory is counted by its shard, not by
// AllocatedBytes().

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "core/value.h"

namespace rc {

class Entry;
struct EntryDeleter {
  void operator()(Entry* e) const;
};
using EntryPtr = std::unique_ptr<Entry, EntryDeleter>;

class Entry {
 public:
  // `capacity` reserves room for the value to grow in place (APPEND, SETRANGE).
  static EntryPtr MakeString(std::string_view key, std::string_view value, size_t capacity = 0,
                             bool with_ttl = false);
  // An entry owning `v`'s object.
  static EntryPtr MakeValue(std::string_view key, Value v, bool with_ttl = false);
  // `e`'s value under `key` (RENAME) with or without the TTL fields; the deadline and heap
  // index are copied when both have them. A string is copied; an object moves to the new
  // entry (`e` is left owning none).
  static EntryPtr Remake(Entry& e, std::string_view key, bool with_ttl, size_t capacity = 0);
  // A copy of `e` under `key` (COPY): a string's bytes, or its object cloned through the
  // value layer (Value::Clone); with the TTL fields and deadline when `e` has them. `e` is
  // left as it was.
  static EntryPtr Copy(const Entry& e, std::string_view key);
  // Remake under the same key (adding or removing the TTL fields, growing a string).
  static EntryPtr Reshape(Entry& e, bool with_ttl, size_t capacity = 0) {
    return Remake(e, e.key(), with_ttl, capacity);
  }

  std::string_view key() const { return {Data(), KeyLen()}; }
  ValueType type() const { return ValueType(meta_ & kTypeMask); }

  std::string_view str() const { return {Data() + KeyLen(), ValueLen()}; }
  // The object of a non-string entry; nullptr once taken.
  void* object() const;
  template <ValueObject T>
  T* object() const {
    assert(type() == ValueTraits<T>::kType);
    return static_cast<T*>(object());
  }
  // Hands the object over, leaving the entry owning none.
  Value TakeValue();
  // The largest value this allocation holds without moving.
  size_t StrCapacity() const;
  // Rewrites the value in place: `len` must be ≤ StrCapacity(); bytes are the caller's
  // to fill through MutableStr().
  void SetStrLen(size_t len);
  char* MutableStr() { return Data() + KeyLen(); }

  // Bytes the allocator really holds for this entry (what used_memory counts).
  size_t AllocatedBytes() const;

  // Expiry, for entries made with_ttl. The deadline is absolute Unix milliseconds; the
  // heap index is the entry's position in its shard's TTL heap.
  bool has_ttl() const { return meta_ & kTtl; }
  int64_t deadline() const;
  void set_deadline(int64_t unix_ms);
  uint32_t heap_index() const;
  void set_heap_index(uint32_t i);

  // Eviction state. Hits saturate at kMaxHits; a reallocated entry gets its predecessor's
  // state through CopyEvictionState.
  static constexpr uint8_t kMaxHits = 3;
  uint8_t hits() const { return (meta_ & kHitsMask) >> kHitsShift; }
  void set_hits(uint8_t h) { meta_ = uint8_t((meta_ & ~kHitsMask) | (h << kHitsShift)); }
  void Touch() {
    if ((meta_ & kHitsMask) != kHitsMask) meta_ = uint8_t(meta_ + (1 << kHitsShift));
  }
  bool probation() const { return meta_ & kProbation; }
  void set_probation(bool on) { meta_ = uint8_t(on ? meta_ | kProbation : meta_ & ~kProbation); }
  void CopyEvictionState(const Entry& from) {
    meta_ = uint8_t((meta_ & ~kEvictionMask) | (from.meta_ & kEvictionMask));
  }

  Entry* next() const { return reinterpret_cast<Entry*>(link_ & ~kSavedBit); }
  void set_next(Entry* n) { link_ = reinterpret_cast<uintptr_t>(n) | (link_ & kSavedBit); }

  // One bit for a running snapshot (shard/runtime/snapshot.h): whether the entry has been
  // written to it, or is newer than it. It lives in the chain link's low bit, which
  // malloc's alignment leaves zero, because the meta byte has none to spare.
  bool saved_mark() const { return link_ & kSavedBit; }
  void set_saved_mark(bool on) { link_ = on ? link_ | kSavedBit : link_ & ~kSavedBit; }

 private:
  static constexpr uint8_t kTypeMask = 0x07;
  static constexpr uint8_t kWide = 0x08;
  static constexpr uint8_t kTtl = 0x10;
  static constexpr uint8_t kHitsShift = 5;
  static constexpr uint8_t kHitsMask = 0x60;
  static constexpr uint8_t kProbation = 0x80;
  static constexpr uint8_t kEvictionMask = kHitsMask | kProbation;
  static constexpr size_t kMetaOffset = sizeof(Entry*);
  static constexpr size_t kNarrowHeader = kMetaOffset + 1 + 2;
  static constexpr size_t kWideHeader = kMetaOffset + 1 + 8;
  static constexpr size_t kTtlFields = 8 + 4;

  Entry() = default;
  bool Wide() const { return meta_ & kWide; }
  size_t LengthsEnd() const { return Wide() ? kWideHeader : kNarrowHeader; }
  size_t HeaderSize() const { return LengthsEnd() + (has_ttl() ? kTtlFields : 0); }
  char* Base() { return reinterpret_cast<char*>(this); }
  const char* Base() const { return reinterpret_cast<const char*>(this); }
  char* Data() { return Base() + HeaderSize(); }
  const char* Data() const { return Base() + HeaderSize(); }
  size_t KeyLen() const;
  size_t ValueLen() const;
  void SetLens(size_t klen, size_t vlen);

  static constexpr uintptr_t kSavedBit = 1;
  uintptr_t link_;  // the chain's next entry, and the saved mark
  uint8_t meta_;
  // Lengths and bytes follow meta_ directly, unaligned.
};

}  // namespace rc
