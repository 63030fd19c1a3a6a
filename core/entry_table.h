#pragma once
// The keyspace of one shard: an intrusive table of Entries that owns them. Lookups take
// a key; the table hashes once and compares bytes along a chain of ~1 entry.
//
// Not thread-safe by design: exactly one shard thread owns each table.
//
// Keys per slot (cluster mode). After CountSlots() the table keeps a SlotCounts exact in
// Insert and Detach (Replace keeps the key, Clear zeroes them), the only ways an entry is
// linked or unlinked: every command, expiry, eviction and flush reaches the keyspace
// through them (Shard::Link, Unlink, Flush), on the shard's own thread. Without it the
// cost is one null check per insert and detach.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>

#include "absl/hash/hash.h"
#include "core/entry.h"
#include "core/intrusive_table.h"
#include "core/slot_counts.h"

namespace rc {

inline uint64_t HashKey(std::string_view key) { return absl::Hash<std::string_view>{}(key); }

struct EntryTraits {
  static Entry* Next(const Entry* e) { return e->next(); }
  static void SetNext(Entry* e, Entry* next) { e->set_next(next); }
  static uint64_t Hash(const Entry* e) { return HashKey(e->key()); }
};

class EntryTable {
 public:
  using Table = IntrusiveTable<Entry, EntryTraits>;

  EntryTable() = default;
  ~EntryTable() { Clear(); }
  EntryTable(const EntryTable&) = delete;
  EntryTable& operator=(const EntryTable&) = delete;
  // Moving leaves `o` empty (FLUSHALL ASYNC hands a whole table to the lazyfree pool).
  // The slot counts stay with `o`, zeroed: they describe the table the shard keeps, and
  // the pool thread that destroys the moved entries must not touch them.
  EntryTable(EntryTable&& o) noexcept
      : table_(std::move(o.table_)), entry_bytes_(std::exchange(o.entry_bytes_, 0)) {
    if (o.slot_counts_ != nullptr) o.slot_counts_->Clear();
  }

  // From now on keeps the keys per slot (counting those present). Cluster mode only: the
  // counts cost 64 KiB and a KeySlot per insert and detach.
  void CountSlots();
  // nullptr unless CountSlots() was called.
  const SlotCounts* slot_counts() const { return slot_counts_.get(); }

  Entry* Find(std::string_view key) { return table_.Find(HashKey(key), KeyEq{key}); }
  // Hints for a batch of lookups (IntrusiveTable::PrefetchBucket): `hashes` are HashKey's.
  void Prefetch(const uint64_t* hashes, size_t n) const {
    for (size_t i = 0; i < n; ++i) table_.PrefetchBucket(hashes[i]);
    for (size_t i = 0; i < n; ++i) table_.PrefetchHead(hashes[i]);
  }
  // The key must be absent.
  Entry* Insert(EntryPtr e);
  // Unlinks the key's entry and hands it back (nullptr if absent).
  EntryPtr Detach(std::string_view key);
  // Swaps `old_entry` (present) for `repl` holding the same key; returns the old one.
  EntryPtr Replace(Entry* old_entry, EntryPtr repl);
  // Drops every entry.
  void Clear();

  size_t size() const { return table_.size(); }
  size_t BucketCount() const { return table_.BucketCount(); }
  // Buckets for `n` entries while the table is empty, kept until Unreserve
  // (IntrusiveTable::Reserve).
  void Reserve(size_t n) { table_.Reserve(n); }
  void Unreserve() { table_.Unreserve(); }
  // Allocator bytes held by entries, bucket arrays and the slot counts.
  size_t MemoryBytes() const {
    return entry_bytes_ + table_.BucketBytes() + (slot_counts_ ? sizeof(SlotCounts) : 0);
  }

  template <typename Fn>
  uint64_t Scan(uint64_t cursor, Fn&& fn) {
    return table_.Scan(cursor, [&](Entry* e) { fn(static_cast<const Entry*>(e)); });
  }
  // The entry for which eq(const Entry*) holds among those whose hash matches `hash` in
  // the bits the table uses (the low 32 are enough below 2^32 buckets).
  template <typename Eq>
  Entry* FindIf(uint64_t hash, Eq&& eq) {
    return table_.Find(hash, eq);
  }
  // Scan that may change entries in place (not link or unlink them): a CLOCK hand.
  template <typename Fn>
  uint64_t Sweep(uint64_t cursor, Fn&& fn) {
    return table_.Scan(cursor, fn);
  }
  template <typename Rng>
  const Entry* Random(Rng& rng) {
    return table_.Random(rng);
  }
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    table_.ForEach([&](const Entry* e) { fn(e); });
  }
  // ForEach until fn(const Entry*) returns false.
  template <typename Fn>
  void ForEachWhile(Fn&& fn) const {
    table_.ForEachWhile([&](const Entry* e) { return fn(e); });
  }
  bool RehashStep(size_t max_nodes) { return table_.RehashStep(max_nodes); }
  // The table's invariants, and the slot counts against the entries (O(n) KeySlots).
  void Verify() const;

 private:
  struct KeyEq {
    std::string_view key;
    bool operator()(const Entry* e) const { return e->key() == key; }
  };

  Table table_;
  size_t entry_bytes_ = 0;
  std::unique_ptr<SlotCounts> slot_counts_;
};

}  // namespace rc
