#pragma once
// One worker thread's slice of the keyspace: its table, its TTL heap, its counters.
// Nothing here is locked: only the owning thread may call any method (RC_DCHECK_OWNER
// through ThreadCheck in debug builds).
//
// Values. Shard names no type: a string lives in its entry, any other value is an object
// that the value layer describes (core/value.h). Commands create one with Add or Store and
// change it in place inside a ValueUpdate, which keeps the shard's byte count exact and
// deletes a value left empty. A value leaves by its type's free effort: freed inline, or
// handed to the lazyfree pool once unlinked.
//
// Expiry. Every lookup checks the key's deadline first and deletes an expired key before
// answering (lazy). The reactor also calls ExpireDue() every loop turn with a work bound,
// popping the earliest deadlines off a 4-ary heap of entries (active), and sleeps no
// longer than NextDeadline(). Entries carry their deadline and heap index themselves
// (core/entry.h), so the heap holds one pointer per key with a TTL.
//
// Memory. MemoryBytes() is exact (the allocator's chunk sizes of everything the shard
// holds). Over maxmemory, the reactor has Evictor remove keys by the policy within a
// per-turn budget (shard/runtime/memory_limit.h says how the shards share one limit);
// PublishMemory() makes the figure visible to other threads.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/random/random.h"
#include "core/entry_table.h"
#include "shard/runtime/aof_recorder.h"
#include "shard/runtime/blocking.h"
#include "shard/runtime/evictor.h"
#include "shard/runtime/key_locks.h"
#include "shard/runtime/snapshot.h"
#include "shard/runtime/stats.h"
#include "shard/runtime/thread_check.h"
#include "shard/runtime/watch.h"
#include "shard/state/notify_flags.h"
#include "shard/wire/command_stats.h"
#include "timers/indexed_heap.h"

namespace rc {

struct ServerState;

struct ShardStats {
  uint64_t keyspace_hits = 0;
  uint64_t keyspace_misses = 0;
  uint64_t expired_keys = 0;
  uint64_t lazyfree_submitted = 0;  // values handed to the lazyfree pool
  uint64_t evicted_keys = 0;
};

// What a write does to the key's TTL.
enum class TtlMode {
  kClear,  // SET, GETSET, MSET: the new value has no TTL
  kKeep,   // INCR, APPEND, SETRANGE, SET KEEPTTL: the TTL stays as it was
  kSet,    // SET EX/PX/EXAT/PXAT, SETEX: the TTL becomes the given deadline
};

// Told about every key that expires (actively or lazily) or is evicted, and about the
// keyspace events commands raise (Shard::Notify), on the shard's thread.
class KeyEventListener {
 public:
  virtual ~KeyEventListener() = default;
  virtual void OnExpired(uint32_t shard, std::string_view key) = 0;
  virtual void OnEvicted(uint32_t shard, std::string_view key) = 0;
  // A read found no such key (possibly in the middle of writing a reply).
  virtual void OnKeyMiss(std::string_view key) = 0;
  // `event` names a static string (a literal).
  virtual void OnKeyEvent(int64_t type_class, std::string_view event, std::string_view key) = 0;
};

class ValueUpdate;

class Shard {
 public:
  // In cluster mode the table keeps its keys per slot (core/slot_counts.h).
  Shard(uint32_t id, ThreadStats* thread_stats, const ServerState* server);
  ~Shard();
  Shard(const Shard&) = delete;
  Shard& operator=(const Shard&) = delete;

  uint32_t id() const { return id_; }
  // Wall-clock milliseconds from the server's clock (a ManualClock in tests).
  int64_t NowMs() const;

  // Lookup for reads: counts hits and misses as Redis's keyspace_hits/misses do, and a
  // miss raises "keymiss" (class m). `touch`: false for the reads Redis makes without
  // updating the key's access time (EXISTS, TYPE: its LOOKUP_NOTOUCH).
  Entry* FindForRead(std::string_view key, bool touch = true);
  // Lookup for writes and existence checks: no hit/miss accounting. An expired key is
  // deleted and reads as absent. A running snapshot writes the entry first, since the
  // caller may change it in place (APPEND, INCR): a handler changes only entries it found
  // here or opened a ValueUpdate on.
  Entry* Find(std::string_view key);
  // Inserts or overwrites `key` with a string value; see TtlMode. Returns the entry.
  Entry* SetString(std::string_view key, std::string_view value, TtlMode ttl = TtlMode::kClear,
                   int64_t deadline_ms = 0);
  // Links a string under `key`, which must be absent (the RDB loader has looked), with a
  // deadline when `deadline_ms` >= 0: one lookup fewer than SetString's.
  Entry* AddString(std::string_view key, std::string_view value, int64_t deadline_ms);
  // Buckets for `n` keys while the keyspace is empty: a load that knows its count links
  // them without a table resize. Unreserve when it is over.
  void Reserve(size_t n) { table_.Reserve(n); }
  void Unreserve() { table_.Unreserve(); }
  // Why a value is freed, as Redis's lazyfree-lazy-* settings name the cases: each says
  // whether a large value goes to the lazyfree pool or is freed inline.
  enum class FreeCause : uint8_t {
    kServerDel,  // overwritten or removed as a side effect (SET, RENAME, RESTORE REPLACE)
    kUserDel,    // DEL
    kUnlink,     // UNLINK: always the pool
    kExpire,
    kEviction,
  };
  // Removes the key; returns whether it existed.
  bool Delete(std::string_view key, FreeCause cause = FreeCause::kServerDel);
  // Reallocates `e` so its value can hold `capacity` bytes; returns the new entry, whose
  // value bytes and TTL equal the old ones.
  Entry* GrowString(Entry* e, size_t capacity);
  // Gives `e` the deadline (adding a TTL reallocates it); returns the entry.
  Entry* SetDeadline(Entry* e, int64_t deadline_ms);
  // Removes `e`'s TTL (reallocating it); returns the entry.
  Entry* Persist(Entry* e);
  bool IsExpired(const Entry* e, int64_t now_ms) const {
    return e->has_ttl() && e->deadline() <= now_ms;
  }
  // Drops every key. `async`: the table goes to the lazyfree pool whole (FLUSHALL ASYNC),
  // so the shard answers at once; large sorted sets go there in either case.
  void Flush(bool async = false);

  // Values of every type but string (core/value.h), type-agnostic.
  // Links `v` under `key`, which must be absent; no TTL. Returns the entry.
  Entry* Add(std::string_view key, Value v);
  // Replaces whatever `key` holds by `v`, without a TTL; an empty `v` deletes the key.
  void Store(std::string_view key, Value v);

  // Moving a key (RENAME): Take unlinks the key's entry, value and TTL, and hands it over
  // (nullptr if absent); Put stores such an entry's value and TTL under `key`,
  // overwriting what is there. The entry may travel to another shard's thread between.
  // Its object moves with it: neither copies the value. `is_new`: false when the entry
  // goes back under the key it was taken from (a refused RENAMENX), which then raises no
  // "new".
  EntryPtr Take(std::string_view key);
  void Put(std::string_view key, EntryPtr moved, bool is_new = true);

  // Active expiry: deletes up to `max_keys` keys whose deadline is ≤ now; returns how many.
  size_t ExpireDue(int64_t now_ms, size_t max_keys);
  // The earliest deadline, or INT64_MAX when no key has a TTL or expiry is paused.
  int64_t NextDeadline() const {
    return ttl_.empty() || ExpiryPaused() ? INT64_MAX : ttl_.Top()->deadline();
  }
  // While CLIENT PAUSE holds writes the dataset stays as it is, as in Redis: keys past
  // their deadline read as absent but are not deleted, actively or lazily.
  bool ExpiryPaused() const;
  size_t keys_with_ttl() const { return ttl_.size(); }
  // Mean remaining TTL in ms over a sample of keys with a TTL (INFO's avg_ttl).
  int64_t SampleAvgTtl(int64_t now_ms);
  void set_event_listener(KeyEventListener* l) { event_listener_ = l; }
  // Redis's notifyKeyspaceEvent for a command's change: `event` (a string literal such as
  // "setbit", Redis's name) of class `type_class` (a NotifyFlag, shard/runtime/notify.h)
  // happened to `key`. Published at the end of the loop turn to whoever subscribed.
  void Notify(int64_t type_class, std::string_view event, std::string_view key) {
    if (event_listener_ != nullptr) event_listener_->OnKeyEvent(type_class, event, key);
  }
  // Redis's pair after removing elements of a collection (ZREM, HDEL, SREM, SPOP, ...):
  // `event`, then "del" when the removal left the key gone.
  void NotifyRemoved(int64_t type_class, std::string_view event, std::string_view key, bool gone) {
    Notify(type_class, event, key);
    if (gone) Notify(kNotifyGeneric, "del", key);
  }
  // The ending of a STORE command (SINTERSTORE, ZUNIONSTORE, ...): `v` replaces `key` and
  // raises `event`, or, when empty, deletes the key and raises "del" if there was one.
  void StoreNotify(std::string_view key, Value v, int64_t type_class, std::string_view event);

  EntryTable& table() { return table_; }
  // The keys of `slot` in the table, those past their deadline but not yet reclaimed
  // included (as Redis counts them). Cluster mode only: the table counts them then.
  uint32_t KeysInSlot(uint16_t slot) const {
    RC_DCHECK_OWNER(thread_check_);
    return (*table_.slot_counts())[slot];
  }
  size_t size() const { return table_.size(); }
  // Allocator bytes of entries, buckets, values, the TTL heap and eviction's structures.
  size_t MemoryBytes() const {
    return table_.MemoryBytes() + ttl_.MemoryBytes() + value_bytes_ + evictor_.MemoryBytes();
  }
  // Owner thread: makes MemoryBytes() and the key counts visible to other threads (the
  // server-wide memory figure sums them; shard/runtime/memory_limit.h).
  void PublishMemory() {
    published_.bytes.store(int64_t(MemoryBytes()), std::memory_order_relaxed);
    published_.keys.store(table_.size(), std::memory_order_relaxed);
    published_.ttl_keys.store(ttl_.size(), std::memory_order_relaxed);
  }
  // Any thread: the figures last published.
  int64_t PublishedBytes() const { return published_.bytes.load(std::memory_order_relaxed); }
  size_t PublishedKeys(bool with_ttl_only) const {
    return (with_ttl_only ? published_.ttl_keys : published_.keys).load(std::memory_order_relaxed);
  }
  Evictor& evictor() { return evictor_; }
  ShardStats& stats() { return stats_; }
  // Counters of the thread that owns this shard (connections, commands, bytes).
  ThreadStats& thread_stats() { return *thread_stats_; }
  // Per-command statistics of the owning thread (commands EXEC runs here count in them).
  CommandStats& command_stats() { return *command_stats_; }
  void set_command_stats(CommandStats* s) { command_stats_ = s; }
  absl::BitGen& rng() { return rng_; }
  // For a loop turn that served nobody (housekeeping.h): advances an in-progress resize by
  // a bounded amount (busy turns leave it to the operations' own small steps), unless
  // activerehashing is off. True when more is left.
  bool IdleRehashStep();

  // Snapshots (shard/runtime/snapshot.h). BeginSnapshot runs while the shard is held
  // whole; then SnapshotStep each loop turn until it returns false.
  struct SnapshotCounts {
    size_t keys = 0;
    size_t expires = 0;
  };
  SnapshotCounts BeginSnapshot(std::shared_ptr<SnapshotSink> sink);
  bool SnapshotActive() const { return snapshot_.active(); }
  SnapshotProgress SnapshotStep(int64_t now_us);
  // Writes `e` to the running snapshot unless it is there already: it is about to change.
  void Preserve(const Entry& e) { snapshot_.Preserve(e); }

  // Redis's signalModifiedKey: `key`'s value or TTL changed, so clients WATCHing it fail
  // their EXEC. The mutators below call it themselves; commands that edit a value in
  // place (APPEND, SETRANGE) call it after the edit. Costs one branch while nothing is
  // watched.
  void KeyModified(std::string_view key) {
    dirty_.store(dirty_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (!watched_.empty()) watched_.Touch(key);
  }
  // Changes made on this shard since it started (Redis's server.dirty, per shard): save
  // points and INFO's rdb_changes_since_last_save count from it. Any thread.
  int64_t Dirty() const { return dirty_.load(std::memory_order_relaxed); }
  WatchedKeys& watched() { return watched_; }

  // Locks held by multi-shard commands on this shard's keys, and the work waiting on them.
  KeyLocks& locks() { return locks_; }
  // Blocking commands waiting on this shard's keys (blocking.h). Add, Store and Put signal
  // a key someone waits on; ServeReady serves it after the command.
  WaitingKeys& waiting() { return waiting_; }

  // This shard's records for the append-only log (aof_recorder.h).
  AofRecorder& aof() { return aof_; }
  // A key past its deadline that must stay until later: while the log replays at start
  // nothing expires (the log says when keys went), and while the log is on a key a
  // multi-shard command holds keeps its state until the lock comes off, since the
  // command's record replays against the state at the lock (multi_shard.cc).
  bool KeepsPastDeadline(std::string_view key) const;
  // Deletes `key` if it is past its deadline, whatever holds it: a multi-shard command
  // taking its lock, so the expiry is logged before the command.
  void ReclaimIfExpired(std::string_view key);

  ThreadCheck& thread_check() { return thread_check_; }
  void VerifyTtl() const;

 private:
  friend class ValueUpdate;
  friend class Evictor;
  struct HeapTraits {
    static int64_t Deadline(Entry* const& e) { return e->deadline(); }
    static void SetIndex(Entry* const& e, uint32_t i) { e->set_heap_index(i); }
  };
  using TtlHeap = IndexedHeap<Entry*, HeapTraits, 4>;

  // Find without writing the entry to a running snapshot: for reads.
  Entry* Lookup(std::string_view key);
  // Table and heap bookkeeping around entries coming and going.
  // `is_new`: raise "new" (false only when a taken entry goes back).
  Entry* Link(EntryPtr e, bool is_new = true);
  EntryPtr Unlink(Entry* e);
  Entry* Swap(Entry* old_entry, EntryPtr fresh);
  void ExpireEntry(Entry* e);
  // Removes `e` for maxmemory (Evictor); returns the bytes that frees.
  size_t EvictEntry(Entry* e);
  // Takes the object out of `e` (about to be freed) and frees it: inline when small or
  // when `cause`'s lazyfree-lazy-* setting is off, else on the lazyfree pool, so a
  // million-member set never stalls this thread.
  void ReleaseValue(Entry* e, FreeCause cause = FreeCause::kServerDel);
  void Dispose(Value v, FreeCause cause);
  bool FreesLazily(FreeCause cause) const;

  uint32_t id_;
  ThreadStats* thread_stats_;
  CommandStats* command_stats_ = nullptr;
  const ServerState* server_;
  EntryTable table_;
  TtlHeap ttl_;
  ShardStats stats_;
  absl::BitGen rng_;
  KeyLocks locks_;
  WaitingKeys waiting_;
  WatchedKeys watched_;
  KeyEventListener* event_listener_ = nullptr;
  size_t value_bytes_ = 0;  // ValueBytes() of every entry in the table
  // A lookup left an expired key in the table during a pause: a write that then links
  // the key anew reclaims it first.
  bool kept_expired_ = false;
  Evictor evictor_{*this};
  ShardSnapshot snapshot_;
  AofRecorder aof_;
  ThreadCheck thread_check_;
  // Written by the owner, read by any thread; a line of its own, as other threads read
  // it while the owner's hot fields change.
  struct alignas(64) Published {
    std::atomic<int64_t> bytes{0};
    std::atomic<size_t> keys{0};
    std::atomic<size_t> ttl_keys{0};
  };
  Published published_;
  // Written on every change and rarely read elsewhere: a line of its own, away from what
  // other threads read often.
  alignas(64) std::atomic<int64_t> dirty_{0};
};

// One in-place change of a key's object (ZADD, ZREM, ...), as Dragonfly's
// DbSlice::AutoUpdater: when it ends, the shard's memory count follows the object's new
// size, WATCH hears the key changed, and a value the change left empty is deleted with
// its key (Redis never keeps an empty collection). Handlers never count bytes themselves.
// Owner thread only; nothing else may unlink the key while the update is open.
class ValueUpdate {
 public:
  ValueUpdate(Shard& shard, Entry* e) : shard_(shard), e_(e), bytes_before_(ValueBytes(*e)) {
    shard.Preserve(*e);
    e->Touch();
  }
  ~ValueUpdate() { Finish(); }
  ValueUpdate(const ValueUpdate&) = delete;
  ValueUpdate& operator=(const ValueUpdate&) = delete;

  template <ValueObject T>
  T& get() const {
    return *e_->object<T>();
  }
  // The command changed nothing after all: WATCH is not told (Redis signals only real
  // writes). Memory and emptiness are still checked.
  void NothingChanged() { modified_ = false; }
  // Ends the update now rather than at scope exit. Returns whether the key still exists.
  bool Finish();

 private:
  Shard& shard_;
  Entry* e_;  // nullptr once finished
  size_t bytes_before_;
  bool modified_ = true;
  bool exists_ = true;
};

}  // namespace rc
