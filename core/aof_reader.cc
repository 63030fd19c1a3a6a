#include "core/aof_reader.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "core/strings.h"

namespace rc {

namespace {

// Redis's `char buf[AOF_ANNOTATION_LINE_MAX_LEN]` (1024): fgets keeps one byte for the NUL.
constexpr size_t kLineMax = 1023;

// strtol(s, NULL, 10) in the C locale on a C string: the text stops at a NUL, leading
// space is skipped, trailing junk ignored, and overflow saturates.
long StrToL(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) ++i;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  unsigned long v = 0;
  const unsigned long limit = neg ? 0UL - static_cast<unsigned long>(LONG_MIN) : LONG_MAX;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    const unsigned d = static_cast<unsigned>(s[i] - '0');
    v = v > (limit - d) / 10 ? limit : v * 10 + d;
  }
  return neg ? static_cast<long>(0UL - v) : static_cast<long>(v);
}

}  // namespace

// fgets(buf, 1024, fp): through the next '\n' or 1023 bytes; false with nothing left.
// The line is cut at a NUL, as Redis then reads buf as a C string.
bool AofCommandReader::ReadLine(std::string_view* line) {
  if (pos_ >= data_.size()) {
    eof_ = true;
    return false;
  }
  const size_t avail = std::min(data_.size() - pos_, kLineMax);
  const char* p = data_.data() + pos_;
  const void* nl = std::memchr(p, '\n', avail);
  size_t n = nl != nullptr ? static_cast<const char*>(nl) - p + 1 : avail;
  if (nl == nullptr && n < kLineMax) eof_ = true;
  pos_ += n;
  if (const void* nul = std::memchr(p, '\0', n)) n = static_cast<const char*>(nul) - p;
  *line = std::string_view(p, n);
  return true;
}

AofCommandReader::Result AofCommandReader::Next(std::vector<std::string_view>* argv) {
  if (done_ != Result::kCommand) return done_;
  argv->clear();
  auto stop = [&](Result r, size_t offset) {
    error_offset_ = offset;
    done_ = r;
    return r;
  };
  std::string_view line;
  size_t start;
  do {
    start = pos_;
    if (!ReadLine(&line)) {
      done_ = Result::kEnd;
      return done_;
    }
  } while (!line.empty() && line[0] == '#');  // an annotation (#TS:<unix time>)
  if (line.empty() || line[0] != '*') return stop(Result::kCorrupt, start);
  // "*" and nothing more: at the end of the data a cut, elsewhere (a NUL) Redis's
  // unrecoverable read error.
  if (line.size() < 2) return stop(eof_ ? Result::kTruncated : Result::kCorrupt, start);
  const int argc = static_cast<int>(StrToL(line.substr(1)));  // atoi
  if (argc < 1) return stop(Result::kCorrupt, start);

  for (int j = 0; j < argc; ++j) {
    const size_t line_start = pos_;
    if (!ReadLine(&line)) return stop(Result::kTruncated, start);
    if (line.empty() || line[0] != '$') return stop(Result::kCorrupt, line_start);
    // Redis stores it in an unsigned long and fails to allocate a negative length.
    const long len = StrToL(line.substr(1));
    if (len < 0) return stop(Result::kCorrupt, line_start);
    // The argument, then its "\r\n", skipped without a look.
    if (data_.size() - pos_ < static_cast<size_t>(len) + 2) {
      pos_ = data_.size();
      eof_ = true;
      return stop(Result::kTruncated, start);
    }
    argv->push_back(data_.substr(pos_, static_cast<size_t>(len)));
    pos_ += static_cast<size_t>(len) + 2;
  }

  // Only EXEC ends a transaction: Redis's loader queues everything else, DISCARD and a
  // second MULTI included.
  if (EqualsIgnoreCase((*argv)[0], "multi")) {
    valid_before_multi_ = valid_end_;
    in_multi_ = true;
  } else if (in_multi_ && EqualsIgnoreCase((*argv)[0], "exec")) {
    in_multi_ = false;
  }
  valid_end_ = pos_;
  return Result::kCommand;
}

void AofAppendCommand(absl::Span<const std::string_view> argv, std::string* out) {
  StrAppend(out, "*", argv.size(), "\r\n");
  for (std::string_view a : argv) {
    StrAppend(out, "$", a.size(), "\r\n");
    out->append(a);
    out->append("\r\n");
  }
}

}  // namespace rc
