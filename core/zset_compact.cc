#include "core/zset_compact.h"

#include <malloc.h>

#include <cmath>
#include <cstdlib>

#include "core/zset_node.h"

namespace rc::zset_internal {

uint32_t Compact::Find(const char* b, std::string_view member, size_t* rank) {
  if (b == nullptr || member.size() > kCompactMaxMember) return 0;
  size_t r = 0;
  for (uint32_t off = Begin(), end = End(b); off < end; off = Next(b, off), ++r) {
    // The length byte rules out most entries before their bytes are compared.
    if (uint8_t(b[off + 8]) == member.size() &&
        std::memcmp(b + off + 9, member.data(), member.size()) == 0) {
      if (rank) *rank = r;
      return off;
    }
  }
  return 0;
}

uint32_t Compact::InsertPos(const char* b, double score, std::string_view member) {
  uint32_t off = Begin();
  for (const uint32_t end = End(b); off < end; off = Next(b, off)) {
    if (!Less(Score(b, off), Member(b, off), score, member)) break;
  }
  return off;
}

void Compact::WriteEntry(char* p, std::string_view member, double score) {
  Store(p, score);
  p[8] = char(member.size());
  if (!member.empty()) std::memcpy(p + 9, member.data(), member.size());
  p[9 + member.size()] = char(member.size());
}

char* Compact::Insert(char* b, std::string_view member, double score) {
  const uint32_t n = kOverhead + uint32_t(member.size());
  const uint32_t used = b ? Used(b) : kHeader;
  const uint32_t count = b ? Count(b) : 0;
  // Find the place first: realloc may move the block, offsets stay valid.
  const uint32_t pos = b ? InsertPos(b, score, member) : kHeader;
  char* nb = static_cast<char*>(std::realloc(b, used + n));
  if (nb == nullptr) Fail("out of memory for a small sorted set");
  std::memmove(nb + pos + n, nb + pos, used - pos);
  WriteEntry(nb + pos, member, score);
  Store(nb, count + 1);
  Store(nb + 4, used + n);
  return nb;
}

char* Compact::Erase(char* b, uint32_t off) {
  const uint32_t count = Count(b);
  if (count == 1) {
    std::free(b);
    return nullptr;
  }
  const uint32_t used = Used(b);
  const uint32_t n = Next(b, off) - off;
  std::memmove(b + off, b + off + n, used - off - n);
  Store(b, count - 1);
  Store(b + 4, used - n);
  // Shrinking gives the tail back to glibc once it is a whole chunk (>= 32 B).
  char* nb = static_cast<char*>(std::realloc(b, used - n));
  return nb ? nb : b;
}

void Compact::SetScore(char* b, uint32_t off, double score) {
  char copy[kCompactMaxMember];
  const std::string_view old = Member(b, off);
  std::memcpy(copy, old.data(), old.size());
  const std::string_view member(copy, old.size());
  const uint32_t used = Used(b);
  const uint32_t n = kOverhead + uint32_t(member.size());
  // Close the gap, then open one at the new place: at most two memmoves of < 10 KB.
  std::memmove(b + off, b + off + n, used - off - n);
  Store(b + 4, used - n);
  const uint32_t pos = InsertPos(b, score, member);
  std::memmove(b + pos + n, b + pos, used - n - pos);
  WriteEntry(b + pos, member, score);
  Store(b + 4, used);
}

uint32_t Compact::AtRank(const char* b, size_t rank) {
  uint32_t off = Begin();
  for (; rank > 0; --rank) off = Next(b, off);
  return off;
}

size_t Compact::Verify(const char* b) {
  if (b == nullptr) return 0;
  const uint32_t count = Count(b), used = Used(b);
  if (count == 0) Fail("an empty compact block is kept");
  if (used > malloc_usable_size(const_cast<char*>(b))) Fail("a compact block overruns");
  size_t seen = 0;
  uint32_t prev = 0;
  uint32_t off = Begin();
  while (off < used) {
    if (off + kOverhead > used) Fail("a compact entry header overruns the block");
    const size_t len = uint8_t(b[off + 8]);
    if (len > kCompactMaxMember) Fail("a compact member is too long");
    if (off + kOverhead + len > used) Fail("a compact entry overruns the block");
    if (uint8_t(b[off + 9 + len]) != len) Fail("a compact entry's trailing length differs");
    if (std::isnan(Score(b, off))) Fail("a compact score is NaN");
    if (prev != 0) {
      if (!Less(Score(b, prev), Member(b, prev), Score(b, off), Member(b, off))) {
        Fail("compact entries out of order");
      }
      if (Prev(b, off) != prev) Fail("a compact entry cannot step back");
    }
    // Members are unique (order alone allows one member under two scores).
    for (uint32_t o = Begin(); o < off; o = Next(b, o)) {
      if (Member(b, o) == Member(b, off)) Fail("a compact member appears twice");
    }
    prev = off;
    off = Next(b, off);
    ++seen;
  }
  if (off != used) Fail("compact entries do not add up to the used bytes");
  if (seen != count) Fail("a compact block's count is wrong");
  return seen;
}

}  // namespace rc::zset_internal
