// PackedMap: the element codec, the run operations shared by the compact block and the
// buckets, then the linear-hashing table.
//
//   Upsert ─> compact: FindIn(small_) ─┬─ present: Splice the value in place
//                                      └─ absent:  append
//             big: bucket(h) ─> FindIn ─> the same on the bucket, then Grow (≤ 1 split)
//   Erase  ─> FindIn ─> Splice the element out; big: Shrink (≤ 1 merge)
//   Scan   ─> compact: all, cursor 0 │ big: virtual buckets, reverse-binary cursor

#include "core/packed_map.h"

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/hash/hash.h"
#include "core/chunk_bytes.h"
#include "core/intrusive_table.h"

namespace rc {

namespace {

[[noreturn]] void MapFail(const char* what) {
  std::fprintf(stderr, "PackedMap: %s\n", what);
  std::abort();
}

uint64_t HashOf(std::string_view key) { return absl::Hash<std::string_view>{}(key); }

size_t VarintLen(size_t n) {
  size_t len = 1;
  for (; n >= 128; n >>= 7) ++len;
  return len;
}

char* PutVarint(char* p, size_t n) {
  for (; n >= 128; n >>= 7) *p++ = char(n | 128);
  *p++ = char(n);
  return p;
}

const char* GetVarint(const char* p, size_t* n) {
  size_t v = 0;
  int shift = 0;
  uint8_t b;
  do {
    b = uint8_t(*p++);
    v |= size_t(b & 127) << shift;
    shift += 7;
  } while (b & 128);
  *n = v;
  return p;
}

// One decoded element: its key, its value (empty without values) and the bytes it spans.
struct Elem {
  std::string_view key;
  std::string_view value;
  size_t size;
};

template <bool kValues>
Elem Decode(const char* p) {
  const char* start = p;
  size_t len;
  p = GetVarint(p, &len);
  Elem e{{p, len}, {}, 0};
  p += len;
  if constexpr (kValues) {
    p = GetVarint(p, &len);
    e.value = {p, len};
    p += len;
  }
  e.size = size_t(p - start);
  return e;
}

template <bool kValues>
size_t EncodedSize(std::string_view key, std::string_view value) {
  size_t n = VarintLen(key.size()) + key.size();
  if constexpr (kValues) n += VarintLen(value.size()) + value.size();
  return n;
}

template <bool kValues>
void Encode(char* p, std::string_view key, std::string_view value) {
  p = PutVarint(p, key.size());
  std::memcpy(p, key.data(), key.size());
  p += key.size();
  if constexpr (kValues) {
    p = PutVarint(p, value.size());
    if (!value.empty()) std::memcpy(p, value.data(), value.size());
  }
}

// A run of elements: `data` bytes [0, used). Offset of `key`, or SIZE_MAX.
template <bool kValues>
size_t FindIn(const char* data, size_t used, std::string_view key) {
  for (size_t off = 0; off < used;) {
    Elem e = Decode<kValues>(data + off);
    if (e.key == key) return off;
    off += e.size;
  }
  return SIZE_MAX;
}

// Resizes the span [hdr + off, + old_len) of a block holding hdr + used bytes to new_len
// bytes (the bytes after it move); returns the block, which realloc may move, or nullptr
// when nothing is left.
char* Splice(char* b, size_t hdr, size_t used, size_t off, size_t old_len, size_t new_len) {
  const size_t tail = used - off - old_len;
  const size_t new_total = hdr + used - old_len + new_len;
  if (new_len > old_len) {
    b = static_cast<char*>(std::realloc(b, new_total));
    if (b == nullptr) MapFail("out of memory");
    std::memmove(b + hdr + off + new_len, b + hdr + off + old_len, tail);
    return b;
  }
  std::memmove(b + hdr + off + new_len, b + hdr + off + old_len, tail);
  if (new_total == hdr) {
    std::free(b);
    return nullptr;
  }
  if (new_len < old_len) {
    char* shrunk = static_cast<char*>(std::realloc(b, new_total));
    if (shrunk != nullptr) b = shrunk;
  }
  return b;
}

// Bucket blocks: [used: u32][elements].
constexpr size_t kBucketHeader = sizeof(uint32_t);

uint32_t BucketUsed(const char* b) {
  if (b == nullptr) return 0;
  uint32_t used;
  std::memcpy(&used, b, sizeof used);
  return used;
}
void SetBucketUsed(char* b, size_t used) {
  const uint32_t u = uint32_t(used);
  std::memcpy(b, &u, sizeof u);
}
const char* BucketData(const char* b) { return b + kBucketHeader; }

}  // namespace

template <bool kValues>
struct PackedMap<kValues>::Big {
  std::vector<char*> buckets{nullptr};  // 2^level + split of them
  uint32_t level = 0;
  size_t split = 0;
  size_t count = 0;
  size_t block_bytes = 0;  // ChunkBytes of every bucket block

  size_t Half() const { return size_t(1) << level; }
  size_t Index(uint64_t h) const {
    size_t b = h & (Half() - 1);
    if (b < split) b = h & (2 * Half() - 1);
    return b;
  }

  // Replaces bucket i's block (accounting its bytes).
  void SetBlock(size_t i, char* b) {
    block_bytes -= ChunkBytes(buckets[i]);
    buckets[i] = b;
    block_bytes += ChunkBytes(b);
  }

  // Appends an element known to be absent to bucket i.
  void Append(size_t i, std::string_view key, std::string_view value) {
    char* b = buckets[i];
    const size_t used = BucketUsed(b);
    const size_t n = EncodedSize<kValues>(key, value);
    block_bytes -= ChunkBytes(b);
    b = Splice(b, kBucketHeader, used, used, 0, n);
    Encode<kValues>(b + kBucketHeader + used, key, value);
    SetBucketUsed(b, used + n);
    buckets[i] = b;
    block_bytes += ChunkBytes(b);
    ++count;
  }

  // Moves the elements of bucket `split` whose next hash bit is set to a new bucket.
  void SplitOne() {
    const size_t src = split;
    const size_t dst = Half() + split;
    const uint64_t mask = 2 * Half() - 1;
    buckets.push_back(nullptr);
    char* old = buckets[src];
    const size_t used = BucketUsed(old);
    std::string keep, move;
    for (size_t off = 0; off < used;) {
      Elem e = Decode<kValues>(BucketData(old) + off);
      ((HashOf(e.key) & mask) == dst ? move : keep).append(BucketData(old) + off, e.size);
      off += e.size;
    }
    if (!move.empty()) {
      SetBlock(src, MakeBlock(keep));
      std::free(old);
      SetBlock(dst, MakeBlock(move));
    }
    if (++split == Half()) {
      ++level;
      split = 0;
    }
  }

  // Undoes the last split: the last bucket's elements join their sibling's.
  void MergeOne() {
    if (split == 0) {
      --level;
      split = Half();
    }
    --split;
    const size_t src = buckets.size() - 1;
    const size_t dst = split;
    char* from = buckets[src];
    const size_t n = BucketUsed(from);
    if (n > 0) {
      char* to = buckets[dst];
      const size_t used = BucketUsed(to);
      block_bytes -= ChunkBytes(to);
      to = Splice(to, kBucketHeader, used, used, 0, n);
      std::memcpy(to + kBucketHeader + used, BucketData(from), n);
      SetBucketUsed(to, used + n);
      buckets[dst] = to;
      block_bytes += ChunkBytes(to);
      SetBlock(src, nullptr);
      std::free(from);
    }
    buckets.pop_back();
    if (buckets.capacity() > 4 * buckets.size() + 16) buckets.shrink_to_fit();
  }

  static char* MakeBlock(const std::string& elems) {
    if (elems.empty()) return nullptr;
    char* b = static_cast<char*>(std::malloc(kBucketHeader + elems.size()));
    if (b == nullptr) MapFail("out of memory");
    SetBucketUsed(b, elems.size());
    std::memcpy(b + kBucketHeader, elems.data(), elems.size());
    return b;
  }

  void Grow() {
    if (count > buckets.size() * kLoad) SplitOne();
  }
  void Shrink() {
    if (buckets.size() > 1 && count * 4 < buckets.size() * kLoad) MergeOne();
  }

  ~Big() {
    for (char* b : buckets) std::free(b);
  }
};

template <bool kValues>
PackedMap<kValues>::~PackedMap() {
  std::free(small_);
  delete big_;
}

template <bool kValues>
size_t PackedMap<kValues>::size() const {
  return big_ != nullptr ? big_->count : count_;
}

template <bool kValues>
bool PackedMap<kValues>::Find(std::string_view key, std::string_view* value) const {
  const char* data;
  size_t used;
  if (big_ == nullptr) {
    data = small_;
    used = used_;
  } else {
    const char* b = big_->buckets[big_->Index(HashOf(key))];
    if (b == nullptr) return false;
    data = BucketData(b);
    used = BucketUsed(b);
  }
  const size_t off = FindIn<kValues>(data, used, key);
  if (off == SIZE_MAX) return false;
  if (value != nullptr) *value = Decode<kValues>(data + off).value;
  return true;
}

template <bool kValues>
bool PackedMap<kValues>::Upsert(std::string_view key, std::string_view value) {
  const size_t n = EncodedSize<kValues>(key, value);
  if (big_ == nullptr) {
    const size_t off = FindIn<kValues>(small_, used_, key);
    if (off == SIZE_MAX) {
      small_ = Splice(small_, 0, used_, used_, 0, n);
      Encode<kValues>(small_ + used_, key, value);
      used_ += uint32_t(n);
      ++count_;
      return true;
    }
    const size_t old = Decode<kValues>(small_ + off).size;
    if (old != n) small_ = Splice(small_, 0, used_, off, old, n);
    Encode<kValues>(small_ + off, key, value);
    used_ = uint32_t(used_ - old + n);
    return false;
  }
  const size_t i = big_->Index(HashOf(key));
  char* b = big_->buckets[i];
  const size_t used = BucketUsed(b);
  const size_t off = b == nullptr ? SIZE_MAX : FindIn<kValues>(BucketData(b), used, key);
  if (off == SIZE_MAX) {
    big_->Append(i, key, value);
    big_->Grow();
    return true;
  }
  const size_t old = Decode<kValues>(BucketData(b) + off).size;
  if (old != n) {
    big_->block_bytes -= ChunkBytes(b);
    b = Splice(b, kBucketHeader, used, off, old, n);
    SetBucketUsed(b, used - old + n);
    big_->buckets[i] = b;
    big_->block_bytes += ChunkBytes(b);
  }
  Encode<kValues>(b + kBucketHeader + off, key, value);
  return false;
}

template <bool kValues>
bool PackedMap<kValues>::Erase(std::string_view key) {
  if (big_ == nullptr) {
    const size_t off = FindIn<kValues>(small_, used_, key);
    if (off == SIZE_MAX) return false;
    const size_t old = Decode<kValues>(small_ + off).size;
    small_ = Splice(small_, 0, used_, off, old, 0);
    used_ = uint32_t(used_ - old);
    --count_;
    return true;
  }
  const size_t i = big_->Index(HashOf(key));
  char* b = big_->buckets[i];
  if (b == nullptr) return false;
  const size_t used = BucketUsed(b);
  const size_t off = FindIn<kValues>(BucketData(b), used, key);
  if (off == SIZE_MAX) return false;
  const size_t old = Decode<kValues>(BucketData(b) + off).size;
  big_->block_bytes -= ChunkBytes(b);
  if (used == old) {
    std::free(b);
    b = nullptr;
  } else {
    b = Splice(b, kBucketHeader, used, off, old, 0);
    SetBucketUsed(b, used - old);
  }
  big_->buckets[i] = b;
  big_->block_bytes += ChunkBytes(b);
  --big_->count;
  big_->Shrink();
  return true;
}

template <bool kValues>
void PackedMap<kValues>::ToBig() {
  if (big_ != nullptr) return;
  auto* big = new Big();
  // Size the table for what it gets, so the conversion does not split bucket by bucket.
  while (big->buckets.size() * kLoad < count_) {
    big->buckets.resize(2 * big->buckets.size(), nullptr);
    ++big->level;
  }
  for (size_t off = 0; off < used_;) {
    Elem e = Decode<kValues>(small_ + off);
    big->Append(big->Index(HashOf(e.key)), e.key, e.value);
    off += e.size;
  }
  std::free(small_);
  small_ = nullptr;
  count_ = used_ = 0;
  big_ = big;
}

namespace {

char* CopyBlock(const char* b, size_t bytes) {
  if (b == nullptr) return nullptr;
  char* copy = static_cast<char*>(std::malloc(bytes));
  if (copy == nullptr) MapFail("out of memory");
  std::memcpy(copy, b, bytes);
  return copy;
}

}  // namespace

template <bool kValues>
void PackedMap<kValues>::CopyTo(PackedMap* out) const {
  out->small_ = CopyBlock(small_, used_);
  out->count_ = count_;
  out->used_ = used_;
  if (big_ == nullptr) return;
  auto* big = new Big();
  big->buckets.resize(big_->buckets.size(), nullptr);
  big->level = big_->level;
  big->split = big_->split;
  big->count = big_->count;
  for (size_t i = 0; i < big_->buckets.size(); ++i) {
    const char* b = big_->buckets[i];
    if (b != nullptr) big->SetBlock(i, CopyBlock(b, kBucketHeader + BucketUsed(b)));
  }
  out->big_ = big;
}

template <bool kValues>
void PackedMap<kValues>::ForEach(Visit fn) const {
  auto run = [&](const char* data, size_t used) {
    for (size_t off = 0; off < used;) {
      Elem e = Decode<kValues>(data + off);
      fn(e.key, e.value);
      off += e.size;
    }
  };
  if (big_ == nullptr) return run(small_, used_);
  for (const char* b : big_->buckets) {
    if (b != nullptr) run(BucketData(b), BucketUsed(b));
  }
}

template <bool kValues>
uint64_t PackedMap<kValues>::Scan(uint64_t cursor, size_t count, Visit fn) const {
  if (big_ == nullptr) {
    ForEach(fn);
    return 0;
  }
  const Big& t = *big_;
  const size_t half = t.Half();
  const uint64_t mask = t.split == 0 ? half - 1 : 2 * half - 1;
  size_t visited = 0;
  // As Redis, bound the buckets read per call, so a sparse table cannot make one call
  // walk a great many empty buckets.
  size_t buckets_left = std::max<size_t>(count, 1) * 10;
  do {
    const size_t v = cursor & mask;
    const size_t b = v < t.buckets.size() ? v : v & (half - 1);
    // An unsplit bucket holds two virtual buckets' elements: keep this one's.
    const bool filter = t.split != 0 && b >= t.split && b < half;
    const char* block = t.buckets[b];
    for (size_t off = 0, used = BucketUsed(block); off < used;) {
      Elem e = Decode<kValues>(BucketData(block) + off);
      if (!filter || (HashOf(e.key) & mask) == v) {
        fn(e.key, e.value);
        ++visited;
      }
      off += e.size;
    }
    cursor = table_internal::NextCursor(cursor, mask);
  } while (cursor != 0 && visited < count && --buckets_left > 0);
  return cursor;
}

template <bool kValues>
void PackedMap<kValues>::Random(absl::BitGen& rng, std::string* key, std::string* value) const {
  const char* data = small_;
  size_t used = used_;
  size_t n = count_;
  if (big_ != nullptr) {
    const char* b = nullptr;
    // Buckets average kLoad elements, so an empty one is rare unless the table is sparse;
    // after many misses take the next non-empty bucket.
    size_t i = absl::Uniform<size_t>(rng, 0, big_->buckets.size());
    for (int tries = 0; (b = big_->buckets[i]) == nullptr; ++tries) {
      i = tries < 64 ? absl::Uniform<size_t>(rng, 0, big_->buckets.size())
                     : (i + 1) % big_->buckets.size();
    }
    data = BucketData(b);
    used = BucketUsed(b);
    n = 0;
    for (size_t off = 0; off < used; off += Decode<kValues>(data + off).size) ++n;
  }
  size_t pick = absl::Uniform<size_t>(rng, 0, n);
  for (size_t off = 0; off < used;) {
    Elem e = Decode<kValues>(data + off);
    if (pick-- == 0) {
      key->assign(e.key);
      if (value != nullptr) value->assign(e.value);
      return;
    }
    off += e.size;
  }
  MapFail("Random on an empty map");
}

template <bool kValues>
size_t PackedMap<kValues>::MemoryBytes() const {
  if (big_ == nullptr) return ChunkBytes(small_);
  const size_t array = big_->buckets.capacity() * sizeof(char*);
  return ChunkBytes(big_) + big_->block_bytes + (array == 0 ? 0 : array + sizeof(size_t));
}

template <bool kValues>
void PackedMap<kValues>::Verify() const {
  std::vector<std::string_view> keys;
  size_t n = 0;
  auto check_run = [&](const char* data, size_t used, size_t bucket) {
    size_t off = 0;
    while (off < used) {
      Elem e = Decode<kValues>(data + off);
      if (big_ != nullptr && big_->Index(HashOf(e.key)) != bucket) MapFail("element in wrong bucket");
      keys.push_back(e.key);
      off += e.size;
      ++n;
    }
    if (off != used) MapFail("run length disagrees");
  };
  if (big_ == nullptr) {
    check_run(small_, used_, 0);
    if (n != count_) MapFail("count disagrees");
  } else {
    if (big_->buckets.size() != big_->Half() + big_->split) MapFail("bucket count disagrees");
    size_t bytes = 0;
    for (size_t i = 0; i < big_->buckets.size(); ++i) {
      const char* b = big_->buckets[i];
      if (b != nullptr && BucketUsed(b) == 0) MapFail("empty bucket block");
      if (b != nullptr) check_run(BucketData(b), BucketUsed(b), i);
      bytes += ChunkBytes(b);
    }
    if (n != big_->count) MapFail("count disagrees");
    if (bytes != big_->block_bytes) MapFail("block bytes disagree");
  }
  std::sort(keys.begin(), keys.end());
  if (std::adjacent_find(keys.begin(), keys.end()) != keys.end()) MapFail("duplicate key");
}

template class PackedMap<true>;
template class PackedMap<false>;

}  // namespace rc
