// List: the element codec, operations on one run of packed elements, the ring of blocks,
// then the list operations, each of which works on blocks:
//
//   Push ─> end block fits (Fits)? insert there : new block at that end (small: ToBig)
//   Pop / Erase ─> erase byte ranges of the blocks covered; empty blocks leave the ring
//   Set / Insert ─> edit one block in place, then MaybeSplit it
//   At / Walk ─> Locate (block counts from the nearer end), then decode forwards

#include "core/list.h"

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "core/chunk_bytes.h"
#include "core/numbers.h"

namespace rc {

namespace {

[[noreturn]] void ListFail(const char* what) {
  std::fprintf(stderr, "List: %s\n", what);
  std::abort();
}

size_t VectorBytes(const std::vector<uint32_t>& v) {
  return v.capacity() == 0 ? 0 : ChunkBytes(v.data());
}

// ---- element codec (core/list.h has the table) ----

constexpr uint8_t kStr6 = 0x80;
constexpr uint8_t kInt13 = 0xC0;
constexpr uint8_t kInt20 = 0xE0;
constexpr uint8_t kInt27 = 0xF0;
constexpr uint8_t kInt32 = 0xF8;
constexpr uint8_t kInt64 = 0xF9;
constexpr uint8_t kStrVar = 0xFA;

// An element ready to be written: its header bytes, then `str` (for strings).
struct Encoded {
  char head[10];
  uint8_t head_len = 0;
  std::string_view str;
  size_t size() const { return head_len + str.size(); }
  char* WriteTo(char* p) const {
    std::memcpy(p, head, head_len);
    if (!str.empty()) std::memcpy(p + head_len, str.data(), str.size());
    return p + size();
  }
};

Encoded Encode(std::string_view v) {
  Encoded e;
  int64_t x;
  if (v.size() <= kMaxInt64Chars && ParseInt64(v, &x)) {
    auto big_endian = [&](uint8_t tag, int bytes) {
      const uint64_t u = uint64_t(x);
      e.head[0] = char(tag | ((u >> (8 * bytes)) & (0xFFu >> (__builtin_popcount(tag) + 1))));
      for (int i = 0; i < bytes; ++i) e.head[1 + i] = char(u >> (8 * (bytes - 1 - i)));
      e.head_len = uint8_t(1 + bytes);
    };
    if (x >= 0 && x < 128) {
      e.head[0] = char(x);
      e.head_len = 1;
    } else if (x >= -(1 << 12) && x < (1 << 12)) {
      big_endian(kInt13, 1);
    } else if (x >= -(1 << 19) && x < (1 << 19)) {
      big_endian(kInt20, 2);
    } else if (x >= -(1 << 26) && x < (1 << 26)) {
      big_endian(kInt27, 3);
    } else if (x >= INT32_MIN && x <= INT32_MAX) {
      e.head[0] = char(kInt32);
      const int32_t y = int32_t(x);
      std::memcpy(e.head + 1, &y, 4);
      e.head_len = 5;
    } else {
      e.head[0] = char(kInt64);
      std::memcpy(e.head + 1, &x, 8);
      e.head_len = 9;
    }
    return e;
  }
  e.str = v;
  if (v.size() < 64) {
    e.head[0] = char(kStr6 | v.size());
    e.head_len = 1;
    return e;
  }
  e.head[0] = char(kStrVar);
  uint8_t n = 1;
  size_t len = v.size();
  for (; len >= 128; len >>= 7) e.head[n++] = char(len | 128);
  e.head[n++] = char(len);
  e.head_len = n;
  return e;
}

// A decoded element: an integer or a view of its bytes, and the bytes it spans.
struct Decoded {
  bool is_int;
  int64_t value;
  std::string_view str;
  size_t size;
};

int64_t SignExtend(uint64_t u, int bits) {
  const uint64_t m = uint64_t(1) << (bits - 1);
  return int64_t((u ^ m) - m);
}

inline Decoded Decode(const char* p) {
  const uint8_t h = uint8_t(p[0]);
  if (h < 0x80) return {true, h, {}, 1};
  if (h < kInt13) return {false, 0, {p + 1, size_t(h & 0x3F)}, 1 + size_t(h & 0x3F)};
  auto big_endian = [p](uint64_t hi, int bytes) {
    uint64_t u = hi;
    for (int i = 0; i < bytes; ++i) u = (u << 8) | uint8_t(p[1 + i]);
    return u;
  };
  if (h < kInt20) return {true, SignExtend(big_endian(h & 0x1F, 1), 13), {}, 2};
  if (h < kInt27) return {true, SignExtend(big_endian(h & 0x0F, 2), 20), {}, 3};
  if (h < kInt32) return {true, SignExtend(big_endian(h & 0x07, 3), 27), {}, 4};
  if (h == kInt32) {
    int32_t y;
    std::memcpy(&y, p + 1, 4);
    return {true, y, {}, 5};
  }
  if (h == kInt64) {
    int64_t y;
    std::memcpy(&y, p + 1, 8);
    return {true, y, {}, 9};
  }
  size_t len = 0;
  const char* q = p + 1;
  int shift = 0;
  uint8_t b;
  do {
    b = uint8_t(*q++);
    len |= size_t(b & 127) << shift;
    shift += 7;
  } while (b & 128);
  return {false, 0, {q, len}, size_t(q - p) + len};
}

inline size_t SizeAt(const char* p) {
  const uint8_t h = uint8_t(p[0]);
  if (h < 0x80) return 1;
  if (h < kInt13) return 1 + (h & 0x3F);
  if (h < kInt20) return 2;
  if (h < kInt27) return 3;
  if (h < kInt32) return 4;
  if (h == kInt32) return 5;
  if (h == kInt64) return 9;
  return Decode(p).size;
}

inline std::string_view View(const Decoded& d, char* buf) {
  if (!d.is_int) return d.str;
  return {buf, size_t(FormatInt64(d.value, buf) - buf)};
}

// A value to compare elements with, its integer form found once.
struct Needle {
  explicit Needle(std::string_view v)
      : str(v), is_int(v.size() <= kMaxInt64Chars && ParseInt64(v, &value)) {}
  bool Matches(const char* p) const {
    const Decoded d = Decode(p);
    return d.is_int ? is_int && d.value == value : !is_int && d.str == str;
  }
  std::string_view str;
  int64_t value = 0;
  bool is_int;
};

// Redis's quicklist node limits (_quicklistNodeAllowInsert): a negative fill caps bytes
// at 4 KiB << (-fill - 1) (at most 64 KiB), a positive one caps elements, within 8 KiB.
constexpr size_t kSafetyLimit = 8192;
size_t ByteLimit(int64_t fill) {
  if (fill >= 0) return kSafetyLimit;
  return size_t(4096) << (std::min<int64_t>(-fill, 5) - 1);
}
bool Fits(size_t used, size_t count, const List::Limits& l) {
  if (used > ByteLimit(l.fill)) return false;
  return l.fill < 0 || int64_t(count) <= l.fill;
}

}  // namespace

// ---- the ring of blocks ----

struct List::Big {
  Run* ring = nullptr;
  uint32_t cap = 0;  // a power of two
  uint32_t head = 0;
  uint32_t n = 0;    // blocks
  size_t count = 0;  // elements
  size_t bytes = 0;  // ChunkBytes of every block, and of `tail`'s array
  // Offsets of the last block's elements while `tail_ok`: pops and pushes at the tail
  // keep it, any other change of that block drops it, so RPOP walks no block. Built only
  // by changes (inside a ValueUpdate), so reads never change MemoryBytes().
  std::vector<uint32_t> tail;
  bool tail_ok = false;

  void TailPush(uint32_t off) {
    bytes -= VectorBytes(tail);
    tail.push_back(off);
    bytes += VectorBytes(tail);
  }

  ~Big() {
    for (uint32_t i = 0; i < n; ++i) std::free(at(i).data);
    std::free(ring);
  }
  Run& at(size_t i) { return ring[(head + i) & (cap - 1)]; }
  const Run& at(size_t i) const { return ring[(head + i) & (cap - 1)]; }
  void Insert(size_t i, Run r) {
    if (n == cap) Resize(cap == 0 ? 4 : cap * 2);
    if (i == 0) {
      head = (head - 1) & (cap - 1);
    } else {
      for (size_t k = n; k > i; --k) at(k) = at(k - 1);
    }
    ++n;
    at(i) = r;
  }
  void Erase(size_t i) {
    if (i == 0) {
      head = (head + 1) & (cap - 1);
    } else {
      for (size_t k = i; k + 1 < n; ++k) at(k) = at(k + 1);
    }
    --n;
    if (cap > 8 && n < cap / 4) Resize(cap / 2);
  }
  void Resize(uint32_t ncap) {
    Run* nr = static_cast<Run*>(std::malloc(sizeof(Run) * ncap));
    if (nr == nullptr) ListFail("out of memory");
    for (uint32_t k = 0; k < n; ++k) nr[k] = at(k);
    std::free(ring);
    ring = nr;
    cap = ncap;
    head = 0;
  }
};

namespace {

// Resizes `r`'s block to hold `need` bytes, keeping `acct` (a big list's byte count) in
// step. Exact below 256 bytes (a small list stays tight); above, grows by a quarter so
// a block filled one push at a time is not copied every time, as jemalloc's size classes
// spare Redis; a block that lost a quarter of its room shrinks to fit.
template <typename RunT>
void Reserve(RunT& r, size_t need, size_t* acct) {
  const size_t have = r.data == nullptr ? 0 : malloc_usable_size(r.data);
  size_t want;
  if (need > have) {
    want = need < 256 ? need : std::max(need, have + have / 4);
  } else if (need == 0) {
    want = 0;
  } else if (need + 64 < have && need < have - have / 4) {
    want = need;
  } else {
    return;
  }
  if (acct != nullptr) *acct -= ChunkBytes(r.data);
  if (want == 0) {
    std::free(r.data);
    r.data = nullptr;
  } else {
    char* p = static_cast<char*>(std::realloc(r.data, want));
    if (p == nullptr) ListFail("out of memory");
    r.data = p;
  }
  if (acct != nullptr) *acct += ChunkBytes(r.data);
}

template <typename RunT>
void ShrinkToFit(RunT& r, size_t* acct) {
  if (r.used == 0 || malloc_usable_size(r.data) < r.used + 16) return;
  if (acct != nullptr) *acct -= ChunkBytes(r.data);
  char* p = static_cast<char*>(std::realloc(r.data, r.used));
  if (p != nullptr) r.data = p;
  if (acct != nullptr) *acct += ChunkBytes(r.data);
}

template <typename RunT>
size_t OffsetOf(const RunT& r, size_t index) {
  size_t off = 0;
  for (size_t i = 0; i < index; ++i) off += SizeAt(r.data + off);
  return off;
}

template <typename RunT>
void InsertAt(RunT& r, size_t off, const Encoded& e, size_t* acct) {
  const size_t add = e.size();
  Reserve(r, r.used + add, acct);
  std::memmove(r.data + off + add, r.data + off, r.used - off);
  e.WriteTo(r.data + off);
  r.used += uint32_t(add);
  ++r.count;
}

template <typename RunT>
void EraseBytes(RunT& r, size_t off, size_t len, size_t elems, size_t* acct) {
  std::memmove(r.data + off, r.data + off + len, r.used - off - len);
  r.used -= uint32_t(len);
  r.count -= uint32_t(elems);
  Reserve(r, r.used, acct);
}

}  // namespace

// ---- the list ----

List::~List() {
  std::free(small_.data);
  delete big_;
}

size_t List::size() const { return big_ != nullptr ? big_->count : small_.count; }

size_t List::blocks() const {
  if (big_ != nullptr) return big_->n;
  return small_.count > 0 ? 1 : 0;
}

List::Run& List::RunAt(size_t b) { return big_ != nullptr ? big_->at(b) : small_; }
const List::Run& List::RunAt(size_t b) const { return big_ != nullptr ? big_->at(b) : small_; }
size_t* List::Accounting() { return big_ != nullptr ? &big_->bytes : nullptr; }

void List::AddCount(int64_t d) {
  if (big_ != nullptr) big_->count = size_t(int64_t(big_->count) + d);
}

List::Pos List::Locate(size_t i) const {
  if (big_ == nullptr) return {0, i};
  if (i < big_->count / 2) {
    size_t b = 0;
    while (i >= big_->at(b).count) i -= big_->at(b++).count;
    return {b, i};
  }
  size_t from_end = big_->count - i;  // >= 1
  size_t b = big_->n - 1;
  while (from_end > big_->at(b).count) from_end -= big_->at(b--).count;
  return {b, big_->at(b).count - from_end};
}

void List::ToBig() {
  big_ = new Big();
  big_->count = small_.count;
  if (small_.count > 0) {
    big_->Insert(0, small_);
    big_->bytes = ChunkBytes(small_.data);
  }
  small_ = Run();
}

void List::MaybeSmall() {
  if (big_ == nullptr || big_->n > 1) return;
  if (big_->n == 1 && big_->at(0).used > kSafetyLimit / 2) return;
  if (big_->n == 1) {
    small_ = big_->at(0);
    big_->Erase(0);
  }
  delete big_;
  big_ = nullptr;
}

void List::DropBlock(size_t b) {
  if (b + 1 == big_->n) big_->tail_ok = false;
  Run& r = big_->at(b);
  big_->bytes -= ChunkBytes(r.data);
  std::free(r.data);
  big_->Erase(b);
}

void List::Push(std::string_view v, End end, const Limits& limits) {
  const Encoded e = Encode(v);
  if (big_ == nullptr) {
    if (small_.count == 0 || Fits(small_.used + e.size(), small_.count + 1, limits)) {
      InsertAt(small_, end == End::kHead ? 0 : small_.used, e, nullptr);
      return;
    }
    ToBig();
  }
  const size_t b = end == End::kHead ? 0 : big_->n - 1;
  Run& r = big_->at(b);
  if (Fits(r.used + e.size(), r.count + 1, limits)) {
    if (end == End::kTail && big_->tail_ok) {
      big_->TailPush(r.used);
    } else if (b == big_->n - 1) {
      big_->tail_ok = false;
    }
    InsertAt(r, end == End::kHead ? 0 : r.used, e, &big_->bytes);
  } else {
    if (end == End::kTail) big_->tail_ok = false;
    // The block leaves the end for good: give back its growth room.
    ShrinkToFit(r, &big_->bytes);
    Run fresh;
    InsertAt(fresh, 0, e, &big_->bytes);
    big_->Insert(end == End::kHead ? 0 : big_->n, fresh);
  }
  ++big_->count;
}

size_t List::Pop(End end, size_t n, absl::FunctionRef<void(std::string_view)> fn) {
  n = std::min(n, size());
  if (n == 0) return 0;
  if (end == End::kHead) {
    size_t left = n;
    Walk(0, false, [&](std::string_view v) {
      fn(v);
      return --left > 0;
    });
    Erase(0, n);
    return n;
  }
  // From the tail, a block at a time: its last k elements' offsets (the tail cache of a
  // big list, one forward pass over a small one), handed out backwards, then cut off.
  char buf[kBufBytes];
  absl::InlinedVector<uint32_t, 64> offs;
  for (size_t left = n; left > 0;) {
    const size_t b = blocks() - 1;
    Run& r = RunAt(b);
    const size_t k = std::min<size_t>(left, r.count);
    const uint32_t* at;
    if (big_ != nullptr) {
      at = TailOffsets().data() + (r.count - k);
    } else {
      offs.clear();
      for (size_t off = OffsetOf(r, r.count - k); off < r.used; off += SizeAt(r.data + off)) {
        offs.push_back(uint32_t(off));
      }
      at = offs.data();
    }
    for (size_t j = k; j-- > 0;) fn(View(Decode(r.data + at[j]), buf));
    const uint32_t cut = at[0];
    left -= k;
    AddCount(-int64_t(k));
    if (k == r.count && big_ != nullptr) {
      DropBlock(b);
      continue;
    }
    if (big_ != nullptr) big_->tail.resize(r.count - k);
    r.count -= uint32_t(k);
    r.used = cut;
    Reserve(r, r.used, Accounting());
  }
  MaybeSmall();
  return n;
}

const std::vector<uint32_t>& List::TailOffsets() {
  const Run& r = big_->at(big_->n - 1);
  if (!big_->tail_ok || big_->tail.size() != r.count) {
    big_->tail.clear();
    for (size_t off = 0; off < r.used; off += SizeAt(r.data + off)) big_->TailPush(uint32_t(off));
    big_->tail_ok = true;
  }
  return big_->tail;
}

std::string_view List::At(size_t i, char* buf) const {
  const Pos p = Locate(i);
  const Run& r = RunAt(p.block);
  if (big_ != nullptr && big_->tail_ok && p.block + 1 == big_->n) {
    return View(Decode(r.data + big_->tail[p.index]), buf);
  }
  return View(Decode(r.data + OffsetOf(r, p.index)), buf);
}

void List::Set(size_t i, std::string_view v, const Limits& limits) {
  TailChanged();
  const Pos p = Locate(i);
  Run& r = RunAt(p.block);
  const size_t off = OffsetOf(r, p.index);
  EraseBytes(r, off, SizeAt(r.data + off), 1, Accounting());
  InsertAt(r, off, Encode(v), Accounting());
  MaybeSplit(p.block, limits);
}

void List::Walk(size_t start, bool reverse, Visit fn) const {
  char buf[kBufBytes];
  Pos p = Locate(start);
  const size_t nblocks = blocks();
  if (!reverse) {
    for (size_t b = p.block; b < nblocks; ++b) {
      const Run& r = RunAt(b);
      size_t off = b == p.block ? OffsetOf(r, p.index) : 0;
      while (off < r.used) {
        const Decoded d = Decode(r.data + off);
        if (!fn(View(d, buf))) return;
        off += d.size;
      }
    }
    return;
  }
  absl::InlinedVector<uint32_t, 128> offs;
  for (size_t b = p.block + 1; b-- > 0;) {
    const Run& r = RunAt(b);
    const size_t last = b == p.block ? p.index : r.count - 1;
    offs.clear();
    size_t off = 0;
    for (size_t k = 0; k <= last; ++k) {
      offs.push_back(uint32_t(off));
      off += SizeAt(r.data + off);
    }
    for (size_t k = offs.size(); k-- > 0;) {
      if (!fn(View(Decode(r.data + offs[k]), buf))) return;
    }
  }
}

bool List::Insert(std::string_view pivot, std::string_view v, bool after, const Limits& limits) {
  TailChanged();
  const Needle needle(pivot);
  const size_t nblocks = blocks();
  for (size_t b = 0; b < nblocks; ++b) {
    Run& r = RunAt(b);
    for (size_t off = 0; off < r.used;) {
      const size_t sz = SizeAt(r.data + off);
      if (needle.Matches(r.data + off)) {
        InsertAt(r, after ? off + sz : off, Encode(v), Accounting());
        AddCount(1);
        MaybeSplit(b, limits);
        return true;
      }
      off += sz;
    }
  }
  return false;
}

size_t List::Remove(std::string_view v, int64_t count) {
  TailChanged();
  const Needle needle(v);
  const size_t limit = count == 0 ? SIZE_MAX : size_t(count < 0 ? -count : count);
  size_t removed = 0;
  if (count >= 0) {
    for (size_t b = 0; b < blocks() && removed < limit;) {
      Run& r = RunAt(b);
      for (size_t off = 0; off < r.used && removed < limit;) {
        const size_t sz = SizeAt(r.data + off);
        if (needle.Matches(r.data + off)) {
          EraseBytes(r, off, sz, 1, Accounting());
          ++removed;
        } else {
          off += sz;
        }
      }
      if (r.count == 0 && big_ != nullptr) {
        DropBlock(b);
      } else {
        ++b;
      }
    }
  } else {
    absl::InlinedVector<uint32_t, 128> offs;
    for (size_t b = blocks(); b-- > 0 && removed < limit;) {
      Run& r = RunAt(b);
      offs.clear();
      for (size_t off = 0; off < r.used; off += SizeAt(r.data + off)) offs.push_back(uint32_t(off));
      // Erasing from the back leaves the offsets before it valid.
      for (size_t k = offs.size(); k-- > 0 && removed < limit;) {
        if (needle.Matches(r.data + offs[k])) {
          EraseBytes(r, offs[k], SizeAt(r.data + offs[k]), 1, Accounting());
          ++removed;
        }
      }
      if (r.count == 0 && big_ != nullptr) DropBlock(b);
    }
  }
  AddCount(-int64_t(removed));
  MaybeSmall();
  return removed;
}

void List::Erase(size_t start, size_t n) {
  if (n == 0) return;
  if (big_ == nullptr) {
    const size_t off = OffsetOf(small_, start);
    size_t len = 0;
    for (size_t k = 0; k < n; ++k) len += SizeAt(small_.data + off + len);
    EraseBytes(small_, off, len, n, nullptr);
    return;
  }
  const Pos p = Locate(start);
  big_->count -= n;
  size_t b = p.block;
  size_t first = p.index;
  while (n > 0) {
    Run& r = big_->at(b);
    const size_t take = std::min<size_t>(n, r.count - first);
    n -= take;
    if (take == r.count) {
      DropBlock(b);
    } else {
      if (b + 1 == big_->n) TailChanged();
      const size_t off = OffsetOf(r, first);
      size_t len = 0;
      for (size_t k = 0; k < take; ++k) len += SizeAt(r.data + off + len);
      EraseBytes(r, off, len, take, &big_->bytes);
      ++b;
    }
    first = 0;
  }
  MaybeSmall();
}

void List::TailChanged() {
  if (big_ != nullptr) big_->tail_ok = false;
}

void List::MaybeSplit(size_t b, const Limits& limits) {
  Run& r = RunAt(b);
  if (r.count < 2 || Fits(r.used, r.count, limits)) return;
  if (big_ == nullptr) ToBig();
  Run& left = big_->at(b);
  // The first element boundary past the middle byte, leaving each half one at least.
  size_t off = 0, k = 0;
  while (k + 1 < left.count && off < left.used / 2) {
    off += SizeAt(left.data + off);
    ++k;
  }
  Run right;
  Reserve(right, left.used - off, &big_->bytes);
  std::memcpy(right.data, left.data + off, left.used - off);
  right.used = uint32_t(left.used - off);
  right.count = uint32_t(left.count - k);
  left.used = uint32_t(off);
  left.count = uint32_t(k);
  Reserve(left, left.used, &big_->bytes);
  big_->Insert(b + 1, right);
}

std::unique_ptr<List> List::Clone() const {
  auto out = std::make_unique<List>();
  auto copy = [](const Run& r, size_t* acct) {
    Run c;
    Reserve(c, r.used, acct);
    if (r.used > 0) std::memcpy(c.data, r.data, r.used);
    c.used = r.used;
    c.count = r.count;
    return c;
  };
  if (big_ == nullptr) {
    out->small_ = copy(small_, nullptr);
    return out;
  }
  out->big_ = new Big();
  out->big_->count = big_->count;
  for (size_t b = 0; b < big_->n; ++b) {
    out->big_->Insert(b, copy(big_->at(b), &out->big_->bytes));
  }
  return out;
}

size_t List::MemoryBytes() const {
  constexpr size_t kObjectBytes = 32;  // the object's glibc chunk
  if (big_ == nullptr) return kObjectBytes + ChunkBytes(small_.data);
  return kObjectBytes + ChunkBytes(big_) + ChunkBytes(big_->ring) + big_->bytes;
}

void List::Verify() const {
  size_t total = 0, bytes = 0;
  for (size_t b = 0; b < blocks(); ++b) {
    const Run& r = RunAt(b);
    if (big_ != nullptr && r.count == 0) ListFail("empty block");
    size_t off = 0, k = 0;
    while (off < r.used) {
      off += SizeAt(r.data + off);
      ++k;
    }
    if (off != r.used || k != r.count) ListFail("block bytes or count disagree");
    if (r.used > 0 && malloc_usable_size(r.data) < r.used) ListFail("block overflows its chunk");
    total += k;
    bytes += ChunkBytes(r.data);
  }
  if (total != size()) ListFail("element count disagrees");
  if (big_ != nullptr && bytes + VectorBytes(big_->tail) != big_->bytes) {
    ListFail("byte count disagrees");
  }
  if (big_ != nullptr && big_->tail_ok) {
    const Run& r = big_->at(big_->n - 1);
    size_t k = 0;
    for (size_t off = 0; off < r.used; off += SizeAt(r.data + off), ++k) {
      if (k >= big_->tail.size() || big_->tail[k] != off) ListFail("tail offsets disagree");
    }
    if (k != big_->tail.size()) ListFail("tail offsets disagree");
  }
}

}  // namespace rc
