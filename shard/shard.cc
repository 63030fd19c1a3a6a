#include "shard/shard.h"

#include <algorithm>
#include <cstring>

namespace rc {

namespace {
// Enough to finish a resize of a million-key table within a few idle turns without
// holding one turn for more than a few tens of microseconds.
constexpr size_t kIdleRehashWork = 1024;
}  // namespace

Entry* Shard::FindForRead(std::string_view key) {
  Entry* e = Find(key);
  if (e != nullptr) {
    ++stats_.keyspace_hits;
  } else {
    ++stats_.keyspace_misses;
  }
  return e;
}

Entry* Shard::Find(std::string_view key) {
  RC_DCHECK_OWNER(thread_check_);
  return table_.Find(key);
}

void Shard::SetString(std::string_view key, std::string_view value) {
  RC_DCHECK_OWNER(thread_check_);
  Entry* e = table_.Find(key);
  if (e != nullptr && e->type() == ValueType::kString && value.size() <= e->StrCapacity() &&
      value.size() + 64 >= e->StrCapacity()) {
    // Same-size overwrites (the cache workload) reuse the allocation; a much smaller
    // value gets a fresh, smaller one so memory is not held by past peaks.
    std::memmove(e->MutableStr(), value.data(), value.size());
    e->SetStrLen(value.size());
    return;
  }
  EntryPtr fresh = Entry::MakeString(key, value);
  if (e != nullptr) {
    table_.Replace(e, std::move(fresh));
  } else {
    table_.Insert(std::move(fresh));
  }
}

bool Shard::Delete(std::string_view key) {
  RC_DCHECK_OWNER(thread_check_);
  return table_.Detach(key) != nullptr;
}

Entry* Shard::GrowString(Entry* e, size_t capacity) {
  RC_DCHECK_OWNER(thread_check_);
  EntryPtr fresh = Entry::MakeString(e->key(), e->str(), capacity);
  Entry* raw = fresh.get();
  table_.Replace(e, std::move(fresh));
  return raw;
}

void Shard::Flush() {
  RC_DCHECK_OWNER(thread_check_);
  table_.Clear();
}

bool Shard::Housekeep() { return table_.RehashStep(kIdleRehashWork); }

}  // namespace rc
