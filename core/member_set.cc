#include "core/member_set.h"

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/numbers.h"

namespace rc {

namespace {

[[noreturn]] void SetFail(const char* what) {
  std::fprintf(stderr, "Set: %s\n", what);
  std::abort();
}

// The object's glibc chunk: its 40 bytes take a 48-byte one.
constexpr size_t kObjectBytes = 48;
static_assert(sizeof(MemberSet) <= 40);

}  // namespace

MemberSet::~MemberSet() { std::free(ints_); }

bool MemberSet::IsInt(std::string_view m, int64_t* v) {
  int64_t dummy;
  return ParseInt64(m, v != nullptr ? v : &dummy);
}

size_t MemberSet::LowerBound(int64_t v) const {
  return size_t(std::lower_bound(ints_, ints_ + count_, v) - ints_);
}

bool MemberSet::Contains(std::string_view m) const {
  if (!intset_) return map_.Find(m);
  int64_t v;
  if (!IsInt(m, &v)) return false;
  const size_t i = LowerBound(v);
  return i < count_ && ints_[i] == v;
}

// Redis's setTypeConvert: the integers move into the map as their decimal spelling.
void MemberSet::ToMap() {
  char buf[kMaxInt64Chars];
  for (uint32_t i = 0; i < count_; ++i) {
    map_.Upsert(std::string_view(buf, size_t(FormatInt64(ints_[i], buf) - buf)));
  }
  std::free(ints_);
  ints_ = nullptr;
  count_ = 0;
  intset_ = false;
  if (map_.size() > kCompactMaxEntries) map_.ToBig();
}

bool MemberSet::Add(std::string_view m, const Limits& limits) {
  int64_t v;
  if (intset_) {
    if (IsInt(m, &v)) {
      const size_t i = LowerBound(v);
      if (i < count_ && ints_[i] == v) return false;
      auto* grown = static_cast<int64_t*>(std::realloc(ints_, (count_ + 1) * sizeof(int64_t)));
      if (grown == nullptr) SetFail("out of memory");
      ints_ = grown;
      std::memmove(ints_ + i + 1, ints_ + i, (count_ - i) * sizeof(int64_t));
      ints_[i] = v;
      ++count_;
      if (count_ > limits.max_intset_entries) ToMap();
      return true;
    }
    ToMap();
  }
  if (map_.compact() && (m.size() > kCompactMaxMember || map_.size() >= kCompactMaxEntries) &&
      !map_.Find(m)) {
    map_.ToBig();
  }
  return map_.Upsert(m);
}

bool MemberSet::Remove(std::string_view m) {
  if (!intset_) return map_.Erase(m);
  int64_t v;
  if (!IsInt(m, &v)) return false;
  const size_t i = LowerBound(v);
  if (i == count_ || ints_[i] != v) return false;
  std::memmove(ints_ + i, ints_ + i + 1, (count_ - i - 1) * sizeof(int64_t));
  if (--count_ == 0) {
    std::free(ints_);
    ints_ = nullptr;
  } else if (auto* shrunk = static_cast<int64_t*>(std::realloc(ints_, count_ * sizeof(int64_t)))) {
    ints_ = shrunk;
  }
  return true;
}

void MemberSet::ForEach(Visit fn) const {
  if (!intset_) return map_.ForEach([&](std::string_view m, std::string_view) { fn(m); });
  char buf[kMaxInt64Chars];
  for (uint32_t i = 0; i < count_; ++i) {
    fn(std::string_view(buf, size_t(FormatInt64(ints_[i], buf) - buf)));
  }
}

uint64_t MemberSet::Scan(uint64_t cursor, size_t count, Visit fn) const {
  if (intset_) {
    ForEach(fn);
    return 0;
  }
  return map_.Scan(cursor, count, [&](std::string_view m, std::string_view) { fn(m); });
}

std::string MemberSet::Random(absl::BitGen& rng) const {
  if (!intset_) {
    std::string m;
    map_.Random(rng, &m);
    return m;
  }
  if (count_ == 0) SetFail("Random on an empty set");
  char buf[kMaxInt64Chars];
  const int64_t v = ints_[absl::Uniform<size_t>(rng, 0, count_)];
  return std::string(buf, size_t(FormatInt64(v, buf) - buf));
}

std::unique_ptr<MemberSet> MemberSet::Clone() const {
  auto s = std::make_unique<MemberSet>(intset_);
  map_.CopyTo(&s->map_);
  if (count_ > 0) {
    s->ints_ = static_cast<int64_t*>(std::malloc(count_ * sizeof(int64_t)));
    if (s->ints_ == nullptr) SetFail("out of memory");
    std::memcpy(s->ints_, ints_, count_ * sizeof(int64_t));
    s->count_ = count_;
  }
  return s;
}

size_t MemberSet::MemoryBytes() const {
  const size_t ints = ints_ == nullptr ? 0 : malloc_usable_size(ints_) + sizeof(size_t);
  return kObjectBytes + ints + map_.MemoryBytes();
}

void MemberSet::Verify() const {
  if (!intset_) {
    if (ints_ != nullptr || count_ != 0) SetFail("map set keeps integers");
    return map_.Verify();
  }
  if (map_.size() != 0) SetFail("intset keeps strings");
  for (uint32_t i = 1; i < count_; ++i) {
    if (ints_[i - 1] >= ints_[i]) SetFail("intset out of order");
  }
}

}  // namespace rc
