#include "core/split_args.h"

namespace rc {

namespace {

// C-locale isspace: sdssplitargs skips all of these between tokens, but only ' ', \t, \r
// and \n end an unquoted token, so \v and \f inside a token are kept.
bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int HexValue(char c) {
  if (c <= '9') return c - '0';
  return (c | 0x20) - 'a' + 10;
}

char Unescape(char c) {
  switch (c) {
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    case 'b':
      return '\b';
    case 'a':
      return '\a';
    default:
      return c;
  }
}

// A NUL plays the role of sdssplitargs' C string terminator (the RESP parser never
// hands over a line past one), and so does the end of the line. Decoded bytes never
// outnumber the input, so reserving line.size() keeps `out` from reallocating under the
// views already handed out. Returns false on unbalanced quotes.
}  // namespace

bool SplitArgsInto(std::string_view line, std::string* out,
                   std::vector<std::string_view>* args) {
  const size_t n = line.size();
  auto at = [&](size_t k) { return k < n ? line[k] : '\0'; };
  out->clear();
  out->reserve(n);
  size_t i = 0;
  while (true) {
    while (i < n && IsSpace(line[i])) ++i;
    if (i == n) return true;
    const size_t start = out->size();
    bool in_dq = false, in_sq = false, done = false;
    while (!done) {
      const char c = at(i);
      if (in_dq) {
        if (c == '\\' && at(i + 1) == 'x' && IsHex(at(i + 2)) && IsHex(at(i + 3))) {
          out->push_back(static_cast<char>(HexValue(at(i + 2)) * 16 + HexValue(at(i + 3))));
          i += 3;
        } else if (c == '\\' && at(i + 1) != '\0') {
          out->push_back(Unescape(line[++i]));
        } else if (c == '"') {
          // A closing quote must be followed by a space or the end of the line.
          if (at(i + 1) != '\0' && !IsSpace(at(i + 1))) return false;
          done = true;
        } else if (c == '\0') {
          return false;
        } else {
          out->push_back(c);
        }
      } else if (in_sq) {
        if (c == '\\' && at(i + 1) == '\'') {
          ++i;
          out->push_back('\'');
        } else if (c == '\'') {
          if (at(i + 1) != '\0' && !IsSpace(at(i + 1))) return false;
          done = true;
        } else if (c == '\0') {
          return false;
        } else {
          out->push_back(c);
        }
      } else {
        switch (c) {
          case ' ':
          case '\n':
          case '\r':
          case '\t':
          case '\0':
            done = true;
            break;
          case '"':
            in_dq = true;
            break;
          case '\'':
            in_sq = true;
            break;
          default:
            out->push_back(c);
            break;
        }
      }
      if (i < n) ++i;
    }
    args->emplace_back(out->data() + start, out->size() - start);
  }
}


std::optional<std::vector<std::string>> SplitArgs(std::string_view line) {
  std::string storage;
  std::vector<std::string_view> views;
  if (!SplitArgsInto(line, &storage, &views)) return std::nullopt;
  return std::vector<std::string>(views.begin(), views.end());
}

}  // namespace rc
