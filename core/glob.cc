#include "core/glob.h"

#include <cstddef>
#include <utility>

namespace rc {
namespace {

// Redis returns no match beyond this depth of '*' recursion (CVE-2024-31228 hardening).
constexpr int kMaxStarNesting = 1000;

// Redis compares plain chars, signed on x86-64; keeping that makes bracket ranges over
// bytes >= 0x80 agree with redis-server there, whatever the signedness of char here.
int Byte(char c) { return static_cast<signed char>(c); }

int Fold(int c, bool nocase) { return nocase && c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

bool SameByte(char a, char b, bool nocase) {
  return Fold(Byte(a), nocase) == Fold(Byte(b), nocase);
}

// Walks a bracket expression starting just after '[' against the byte c. Leaves p and plen
// on its last byte (the ']', or the final byte of an unterminated pattern), where the
// caller's common advance steps past it.
bool MatchBracket(const char*& p, size_t& plen, char c, bool nocase) {
  const bool negate = plen > 0 && p[0] == '^';
  if (negate) {
    ++p;
    --plen;
  }
  bool match = false;
  while (true) {
    if (plen >= 2 && p[0] == '\\') {
      ++p;
      --plen;
      if (p[0] == c) match = true;
    } else if (plen == 0) {
      // Unterminated: back up so the caller's advance consumes exactly the pattern.
      --p;
      ++plen;
      break;
    } else if (p[0] == ']') {
      break;
    } else if (plen >= 3 && p[1] == '-') {
      int lo = Byte(p[0]);
      int hi = Byte(p[2]);
      if (lo > hi) std::swap(lo, hi);
      const int x = Fold(Byte(c), nocase);
      // Redis folds the ends after ordering them, so [B-a] with nocase is [b-a] → empty.
      if (x >= Fold(lo, nocase) && x <= Fold(hi, nocase)) match = true;
      p += 2;
      plen -= 2;
    } else if (SameByte(p[0], c, nocase)) {
      match = true;
    }
    ++p;
    --plen;
  }
  return negate ? !match : match;
}

// skip_longer is set once the rest of the pattern after some '*' has failed at every
// position of the remaining string: a longer match for an earlier '*' would only start
// that same rest later, so every caller can give up at once.
bool Match(const char* p, size_t plen, const char* s, size_t slen, bool nocase, bool* skip_longer,
           int nesting) {
  if (nesting > kMaxStarNesting) return false;
  while (plen > 0 && slen > 0) {
    switch (p[0]) {
      case '*':
        while (plen > 1 && p[1] == '*') {
          ++p;
          --plen;
        }
        if (plen == 1) return true;
        for (; slen > 0; ++s, --slen) {
          if (Match(p + 1, plen - 1, s, slen, nocase, skip_longer, nesting + 1)) return true;
          if (*skip_longer) return false;
        }
        *skip_longer = true;
        return false;
      case '?':
        ++s;
        --slen;
        break;
      case '[':
        ++p;
        --plen;
        if (!MatchBracket(p, plen, s[0], nocase)) return false;
        ++s;
        --slen;
        break;
      case '\\':
        if (plen >= 2) {
          ++p;
          --plen;
        }
        [[fallthrough]];
      default:
        if (!SameByte(p[0], s[0], nocase)) return false;
        ++s;
        --slen;
        break;
    }
    ++p;
    --plen;
    if (slen == 0) {
      while (plen > 0 && p[0] == '*') {
        ++p;
        --plen;
      }
      break;
    }
  }
  return plen == 0 && slen == 0;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view str, bool nocase) {
  bool skip_longer = false;
  return Match(pattern.data(), pattern.size(), str.data(), str.size(), nocase, &skip_longer, 0);
}

}  // namespace rc
