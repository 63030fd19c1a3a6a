#include "shard/runtime/shard.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "shard/state/server_state.h"
#include "threadpool/thread_pool.h"

namespace rc {

namespace {
// Enough to finish a resize of a million-key table within a few idle turns without
// holding one turn for more than a few tens of microseconds.
constexpr size_t kIdleRehashWork = 1024;
}  // namespace

Shard::Shard(uint32_t id, ThreadStats* thread_stats, const ServerState* server)
    : id_(id), thread_stats_(thread_stats), server_(server) {
  // cluster-enabled is fixed at start (CONFIG SET refuses it), so the counts are kept
  // from the first key on or never.
  if (server != nullptr && server->config.cluster_enabled) table_.CountSlots();
}

int64_t Shard::NowMs() const { return server_->clock->NowUnixMillis(); }

Shard::~Shard() {
  // The table owns the entries; the heap only points at them.
  ttl_.Clear();
}

Entry* Shard::FindForRead(std::string_view key, bool touch) {
  Entry* e = Lookup(key);
  if (e != nullptr) {
    if (touch) e->Touch();
    ++stats_.keyspace_hits;
  } else {
    ++stats_.keyspace_misses;
    if (event_listener_ != nullptr) event_listener_->OnKeyMiss(key);
  }
  return e;
}

Entry* Shard::Find(std::string_view key) {
  Entry* e = Lookup(key);
  if (e != nullptr) snapshot_.Preserve(*e);
  return e;
}

Entry* Shard::Lookup(std::string_view key) {
  RC_DCHECK_OWNER(thread_check_);
  Entry* e = table_.Find(key);
  if (e != nullptr && e->has_ttl() && e->deadline() <= NowMs() && !KeepsPastDeadline(key)) {
    if (ExpiryPaused()) {
      kept_expired_ = true;
    } else {
      ExpireEntry(e);
    }
    return nullptr;
  }
  return e;
}

bool Shard::KeepsPastDeadline(std::string_view key) const {
  if (server_ == nullptr) return false;
  if (server_->persist.aof_loading.load(std::memory_order_relaxed)) return true;
  if (!aof_.on() || locks_.Idle()) return false;
  const uint64_t hash = HashKey(key);
  return !locks_.MayRun(KeyLocks::Keys(&hash, 1), false);
}

void Shard::ReclaimIfExpired(std::string_view key) {
  Entry* e = table_.Find(key);
  if (e != nullptr && e->has_ttl() && e->deadline() <= NowMs() && !ExpiryPaused()) {
    ExpireEntry(e);
  }
}

bool Shard::ExpiryPaused() const {
  return server_ != nullptr && server_->introspect.pause.Active(NowMs());
}

Entry* Shard::Link(EntryPtr e, bool is_new) {
  if (kept_expired_) {
    // A write got through while expiry was paused (it was under way when the pause
    // began): the expired key it replaces goes first.
    if (Entry* stale = table_.Find(e->key())) ExpireEntry(stale);
  }
  // Newer than any running snapshot.
  e->set_saved_mark(snapshot_.epoch());
  Entry* raw = table_.Insert(std::move(e));
  if (raw->has_ttl()) ttl_.Push(raw);
  evictor_.OnLink(raw);
  // Redis's dbAdd: every key created raises "new" (class n, which A leaves out).
  if (is_new) Notify(kNotifyNew, "new", raw->key());
  return raw;
}

EntryPtr Shard::Unlink(Entry* e) {
  snapshot_.Preserve(*e);
  if (e->has_ttl()) ttl_.Remove(e->heap_index());
  evictor_.OnUnlink(e);
  return table_.Detach(e->key());
}

Entry* Shard::Swap(Entry* old_entry, EntryPtr fresh) {
  ReleaseValue(old_entry);
  Entry* raw = fresh.get();
  raw->set_saved_mark(snapshot_.epoch());
  // Same key: it keeps its place in eviction (and its probation ring slot).
  raw->CopyEvictionState(*old_entry);
  if (old_entry->has_ttl() && raw->has_ttl()) {
    uint32_t index = old_entry->heap_index();
    table_.Replace(old_entry, std::move(fresh));  // frees old_entry
    ttl_.Replace(index, raw);
  } else {
    if (old_entry->has_ttl()) ttl_.Remove(old_entry->heap_index());
    table_.Replace(old_entry, std::move(fresh));
    if (raw->has_ttl()) ttl_.Push(raw);
  }
  return raw;
}

void Shard::ExpireEntry(Entry* e) {
  ++stats_.expired_keys;
  KeyModified(e->key());
  ReleaseValue(e, FreeCause::kExpire);
  EntryPtr gone = Unlink(e);
  if (aof_.on()) aof_.Command({"DEL", gone->key()});
  if (event_listener_ != nullptr) event_listener_->OnExpired(id_, gone->key());
}

size_t Shard::EvictEntry(Entry* e) {
  const size_t bytes = e->AllocatedBytes() + ValueBytes(*e);
  ++stats_.evicted_keys;
  KeyModified(e->key());
  ReleaseValue(e, FreeCause::kEviction);
  EntryPtr gone = Unlink(e);
  if (aof_.on()) aof_.Command({"DEL", gone->key()});
  if (event_listener_ != nullptr) event_listener_->OnEvicted(id_, gone->key());
  return bytes;
}

Entry* Shard::SetString(std::string_view key, std::string_view value, TtlMode ttl,
                        int64_t deadline_ms) {
  RC_DCHECK_OWNER(thread_check_);
  Entry* e = Find(key);
  KeyModified(key);
  if (e != nullptr) e->Touch();
  bool want_ttl = ttl == TtlMode::kSet || (ttl == TtlMode::kKeep && e != nullptr && e->has_ttl());
  if (ttl == TtlMode::kKeep && want_ttl) deadline_ms = e->deadline();
  if (e != nullptr && e->type() == ValueType::kString && e->has_ttl() == want_ttl &&
      value.size() <= e->StrCapacity() && value.size() + 64 >= e->StrCapacity()) {
    // Same-size overwrites (the cache workload) reuse the allocation; a much smaller
    // value gets a fresh, smaller one so memory is not held by past peaks.
    std::memmove(e->MutableStr(), value.data(), value.size());
    e->SetStrLen(value.size());
    if (want_ttl && e->deadline() != deadline_ms) {
      e->set_deadline(deadline_ms);
      ttl_.Update(e->heap_index());
    }
    return e;
  }
  EntryPtr fresh = Entry::MakeString(key, value, 0, want_ttl);
  if (want_ttl) fresh->set_deadline(deadline_ms);
  return e != nullptr ? Swap(e, std::move(fresh)) : Link(std::move(fresh));
}

Entry* Shard::AddString(std::string_view key, std::string_view value, int64_t deadline_ms) {
  RC_DCHECK_OWNER(thread_check_);
  KeyModified(key);
  EntryPtr fresh = Entry::MakeString(key, value, 0, deadline_ms >= 0);
  if (deadline_ms >= 0) fresh->set_deadline(deadline_ms);
  return Link(std::move(fresh));
}

bool Shard::Delete(std::string_view key, FreeCause cause) {
  Entry* e = Find(key);
  if (e == nullptr) return false;
  KeyModified(key);
  ReleaseValue(e, cause);
  Unlink(e);
  return true;
}

void Shard::ReleaseValue(Entry* e, FreeCause cause) {
  snapshot_.Preserve(*e);
  if (e->type() == ValueType::kString || e->object() == nullptr) return;
  value_bytes_ -= ValueBytes(*e);
  Dispose(e->TakeValue(), cause);
}

bool Shard::FreesLazily(FreeCause cause) const {
  const Config& c = server_->config;
  switch (cause) {
    case FreeCause::kServerDel:
      return c.lazyfree_lazy_server_del;
    case FreeCause::kUserDel:
      return c.lazyfree_lazy_user_del;
    case FreeCause::kUnlink:
      return true;
    case FreeCause::kExpire:
      return c.lazyfree_lazy_expire;
    case FreeCause::kEviction:
      return c.lazyfree_lazy_eviction;
  }
  return true;
}

void Shard::Dispose(Value v, FreeCause cause) {
  ThreadPool* pool = server_ != nullptr ? server_->lazyfree : nullptr;
  // Handing a value over costs more than freeing a few blocks inline (Redis frees a
  // listpack inline too, whatever its length).
  if (pool == nullptr || int64_t(v.FreeEffort()) <= server_->config.lazyfree_threshold ||
      !FreesLazily(cause)) {
    return;
  }
  ++stats_.lazyfree_submitted;
  // From here the value is unreachable from any shard; the pool thread only destroys it.
  pool->Submit([v = std::move(v)]() mutable { v.Reset(); });
}

Entry* Shard::Add(std::string_view key, Value v) {
  RC_DCHECK_OWNER(thread_check_);
  KeyModified(key);
  Entry* e = Link(Entry::MakeValue(key, std::move(v)));
  value_bytes_ += ValueBytes(*e);
  if (!waiting_.empty()) waiting_.Signal(key);
  return e;
}

void Shard::Store(std::string_view key, Value v) {
  RC_DCHECK_OWNER(thread_check_);
  if (v.empty()) {
    Delete(key);
    return;
  }
  KeyModified(key);
  EntryPtr fresh = Entry::MakeValue(key, std::move(v));
  value_bytes_ += ValueBytes(*fresh);
  Entry* old = Find(key);
  old != nullptr ? Swap(old, std::move(fresh)) : Link(std::move(fresh));
  if (!waiting_.empty()) waiting_.Signal(key);
}

void Shard::StoreNotify(std::string_view key, Value v, int64_t type_class, std::string_view event) {
  if (!v.empty()) {
    Store(key, std::move(v));
    Notify(type_class, event, key);
  } else if (Delete(key)) {
    Notify(kNotifyGeneric, "del", key);
  }
}

bool ValueUpdate::Finish() {
  if (e_ == nullptr) return exists_;
  Entry* e = std::exchange(e_, nullptr);
  RC_DCHECK_OWNER(shard_.thread_check_);
  if (modified_) shard_.KeyModified(e->key());
  shard_.value_bytes_ = shard_.value_bytes_ + ValueBytes(*e) - bytes_before_;
  if (!ValueEmpty(*e)) return exists_;
  shard_.ReleaseValue(e);
  shard_.Unlink(e);
  return exists_ = false;
}

EntryPtr Shard::Take(std::string_view key) {
  RC_DCHECK_OWNER(thread_check_);
  Entry* e = Find(key);
  if (e == nullptr) return nullptr;
  KeyModified(key);
  value_bytes_ -= ValueBytes(*e);
  return Unlink(e);
}

void Shard::Put(std::string_view key, EntryPtr moved, bool is_new) {
  RC_DCHECK_OWNER(thread_check_);
  KeyModified(key);
  EntryPtr fresh = Entry::Remake(*moved, key, moved->has_ttl());
  value_bytes_ += ValueBytes(*fresh);
  Entry* old = Find(key);
  if (old == nullptr) {
    Link(std::move(fresh), is_new);
    if (!waiting_.empty()) waiting_.Signal(key);
    return;
  }
  Swap(old, std::move(fresh));
  // Redis's RENAME and COPY delete the key they replace and add it anew: "new" all the same.
  if (is_new) Notify(kNotifyNew, "new", key);
  if (!waiting_.empty()) waiting_.Signal(key);
}

Entry* Shard::GrowString(Entry* e, size_t capacity) {
  RC_DCHECK_OWNER(thread_check_);
  return Swap(e, Entry::Reshape(*e, e->has_ttl(), capacity));
}

Entry* Shard::SetDeadline(Entry* e, int64_t deadline_ms) {
  RC_DCHECK_OWNER(thread_check_);
  snapshot_.Preserve(*e);
  KeyModified(e->key());
  if (e->has_ttl()) {
    e->set_deadline(deadline_ms);
    ttl_.Update(e->heap_index());
    return e;
  }
  EntryPtr fresh = Entry::Reshape(*e, true);
  fresh->set_deadline(deadline_ms);
  return Swap(e, std::move(fresh));
}

Entry* Shard::Persist(Entry* e) {
  RC_DCHECK_OWNER(thread_check_);
  if (!e->has_ttl()) return e;
  snapshot_.Preserve(*e);
  KeyModified(e->key());
  return Swap(e, Entry::Reshape(*e, false));
}

void Shard::Flush(bool async) {
  RC_DCHECK_OWNER(thread_check_);
  if (!watched_.empty()) {
    watched_.TouchExisting([this](std::string_view key) { return Find(key) != nullptr; });
  }
  ttl_.Clear();
  evictor_.OnFlush();
  if (snapshot_.active()) {
    // The snapshot still needs what it has not written: it takes the table whole and
    // frees it when done, so the flush costs this turn nothing either way.
    value_bytes_ = 0;
    snapshot_.Adopt(std::make_unique<EntryTable>(std::move(table_)));
    return;
  }
  ThreadPool* pool = server_ != nullptr ? server_->lazyfree : nullptr;
  if (async && pool != nullptr && table_.size() > 0) {
    value_bytes_ = 0;
    ++stats_.lazyfree_submitted;
    auto whole = std::make_unique<EntryTable>(std::move(table_));
    pool->Submit([whole = std::move(whole)]() mutable { whole.reset(); });
    return;
  }
  // Synchronous, as Redis's FLUSHALL SYNC, except that large values still leave through
  // the pool. Each release takes its bytes off value_bytes_, which ends at zero.
  table_.ForEach([this](const Entry* e) { ReleaseValue(const_cast<Entry*>(e)); });
  table_.Clear();
}

size_t Shard::ExpireDue(int64_t now_ms, size_t max_keys) {
  RC_DCHECK_OWNER(thread_check_);
  if (ExpiryPaused()) return 0;
  kept_expired_ = false;  // from here on due keys go as they are found
  size_t n = 0;
  while (n < max_keys && !ttl_.empty() && ttl_.Top()->deadline() <= now_ms) {
    // Held past its deadline: the rest wait with it, for a lock lasts a moment.
    if (KeepsPastDeadline(ttl_.Top()->key())) break;
    ExpireEntry(ttl_.Top());
    ++n;
  }
  return n;
}

int64_t Shard::SampleAvgTtl(int64_t now_ms) {
  if (ttl_.empty()) return 0;
  constexpr int kSamples = 20;
  // Deadlines reach INT64_MAX ms (PEXPIREAT accepts them): a 64-bit sum would overflow.
  __int128 sum = 0;
  for (int i = 0; i < kSamples; ++i) {
    const Entry* e = ttl_.At(absl::Uniform<uint32_t>(rng_, 0, uint32_t(ttl_.size())));
    sum += std::max<int64_t>(e->deadline() - now_ms, 0);
  }
  return int64_t(sum / kSamples);
}

bool Shard::IdleRehashStep() {
  if (server_ != nullptr && !server_->config.activerehashing) return false;
  return table_.RehashStep(kIdleRehashWork);
}

Shard::SnapshotCounts Shard::BeginSnapshot(std::shared_ptr<SnapshotSink> sink) {
  RC_DCHECK_OWNER(thread_check_);
  snapshot_.Begin(id_, std::move(sink));
  return {table_.size(), ttl_.size()};
}

SnapshotProgress Shard::SnapshotStep(int64_t now_us) {
  RC_DCHECK_OWNER(thread_check_);
  std::vector<std::unique_ptr<EntryTable>> done;
  const SnapshotProgress progress = snapshot_.Step(table_, now_us, &done);
  ThreadPool* pool = server_ != nullptr ? server_->lazyfree : nullptr;
  for (auto& t : done) {
    if (pool == nullptr) continue;  // freed here, at the end of the loop
    ++stats_.lazyfree_submitted;
    pool->Submit([t = std::move(t)]() mutable { t.reset(); });
  }
  return progress;
}

void Shard::VerifyTtl() const {
  table_.Verify();
  ttl_.Verify([](Entry* const& e) { return e->heap_index(); });
  size_t with_ttl = 0;
  table_.ForEach([&](const Entry* e) { with_ttl += e->has_ttl() ? 1 : 0; });
  if (with_ttl != ttl_.size()) {
    std::fprintf(stderr, "Shard: %zu keys have a TTL, the heap holds %zu\n", with_ttl, ttl_.size());
    std::abort();
  }
}

}  // namespace rc
