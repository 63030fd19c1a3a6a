#include "core/split_args.h"

#include "absl/strings/ascii.h"

namespace rc {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = absl::ascii_tolower(c);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

std::optional<std::vector<std::string>> SplitArgs(std::string_view line) {
  std::vector<std::string> out;
  size_t i = 0, n = line.size();
  for (;;) {
    while (i < n && IsSpace(line[i])) ++i;
    if (i >= n) return out;
    std::string cur;
    bool in_dq = false, in_sq = false;
    for (;;) {
      if (in_dq) {
        if (i >= n) return std::nullopt;
        if (line[i] == '\\' && i + 3 < n && line[i + 1] == 'x' && HexValue(line[i + 2]) >= 0 &&
            HexValue(line[i + 3]) >= 0) {
          cur.push_back(char(HexValue(line[i + 2]) * 16 + HexValue(line[i + 3])));
          i += 3;
        } else if (line[i] == '\\' && i + 1 < n) {
          ++i;
          char c = line[i];
          switch (c) {
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'b': c = '\b'; break;
            case 'a': c = '\a'; break;
            default: break;
          }
          cur.push_back(c);
        } else if (line[i] == '"') {
          // The closing quote must be followed by a space or the end of the line.
          if (i + 1 < n && !IsSpace(line[i + 1])) return std::nullopt;
          in_dq = false;
          ++i;
          break;
        } else {
          cur.push_back(line[i]);
        }
      } else if (in_sq) {
        if (i >= n) return std::nullopt;
        if (line[i] == '\\' && i + 1 < n && line[i + 1] == '\'') {
          ++i;
          cur.push_back('\'');
        } else if (line[i] == '\'') {
          if (i + 1 < n && !IsSpace(line[i + 1])) return std::nullopt;
          in_sq = false;
          ++i;
          break;
        } else {
          cur.push_back(line[i]);
        }
      } else {
        if (i >= n) break;
        char c = line[i];
        if (IsSpace(c)) break;
        if (c == '"') {
          in_dq = true;
        } else if (c == '\'') {
          in_sq = true;
        } else {
          cur.push_back(c);
        }
      }
      ++i;
    }
    out.push_back(std::move(cur));
  }
}

}  // namespace rc
