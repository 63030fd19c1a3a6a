#include "net/resp_parser.h"

#include <algorithm>
#include <cassert>
#include <limits>

#include "core/split_args.h"

namespace rc::net {
namespace {

constexpr std::string_view kTooBigInlineErr = "Protocol error: too big inline request";
constexpr std::string_view kTooBigMbulkErr = "Protocol error: too big mbulk count string";
constexpr std::string_view kTooBigBulkErr = "Protocol error: too big bulk count string";
constexpr std::string_view kInvalidMbulkErr = "Protocol error: invalid multibulk length";
constexpr std::string_view kInvalidBulkErr = "Protocol error: invalid bulk length";
constexpr std::string_view kUnauthMbulkErr = "Protocol error: unauthenticated multibulk length";
constexpr std::string_view kUnauthBulkErr = "Protocol error: unauthenticated bulk length";
constexpr std::string_view kUnbalancedErr = "Protocol error: unbalanced quotes in request";

// Past a request this large, drop the span storage rather than hold megabytes per idle
// connection (Redis likewise frees argv after every command).
constexpr size_t kRetainedSpans = 1024;

// Redis's string2ll grammar, which decides which counts are "invalid": at most 20 chars,
// optional '-', no '+', no spaces, no leading zeros, and "-0" is rejected.
bool ParseRedisInt(std::string_view s, int64_t* out) {
  const size_t n = s.size();
  if (n == 0 || n >= 21) return false;
  if (n == 1 && s[0] == '0') {
    *out = 0;
    return true;
  }
  size_t i = 0;
  const bool negative = s[0] == '-';
  if (negative && ++i == n) return false;
  if (s[i] < '1' || s[i] > '9') return false;
  uint64_t v = static_cast<uint64_t>(s[i++] - '0');
  for (; i < n; ++i) {
    const unsigned digit = static_cast<unsigned char>(s[i]) - unsigned{'0'};
    if (digit > 9) return false;
    if (__builtin_mul_overflow(v, uint64_t{10}, &v) || __builtin_add_overflow(v, digit, &v)) {
      return false;
    }
  }
  constexpr uint64_t kMax = std::numeric_limits<int64_t>::max();
  if (v > kMax + (negative ? 1 : 0)) return false;
  *out = negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}

// Fast path for the usual "<digits>\r?" tail of a count line, starting at `pos`: up to 18
// digits, no leading zero, then '\r' and the byte after it. Such a line reads the same under
// FindLine and ParseRedisInt, so anything else (signs, NULs, long lines, partial lines)
// can simply take the general path.
bool ScanPlainCount(std::string_view buf, size_t pos, uint64_t* value, size_t* cr) {
  const size_t end = std::min(buf.size(), pos + 18);
  uint64_t v = 0;
  size_t i = pos;
  for (; i < end; ++i) {
    const unsigned digit = static_cast<unsigned char>(buf[i]) - unsigned{'0'};
    if (digit > 9) break;
    v = v * 10 + digit;
  }
  if (i == pos || i + 1 >= buf.size() || buf[i] != '\r') return false;
  if (buf[pos] == '0' && i - pos > 1) return false;
  *value = v;
  *cr = i;
  return true;
}

}  // namespace

RespParser::RespParser(ParserLimits limits) : limits_(limits) {}

RespParser::Status RespParser::Parse(std::string_view buf, size_t* consumed,
                                     std::vector<std::string_view>* args) {
  *consumed = 0;
  args->clear();
  ++work_;
  if (state_ == State::kError) return Status::kError;
  if (state_ == State::kIdle) {
    if (buf.empty()) return Status::kNeedMore;
    pos_ = 0;
    EnterLine(buf[0] == '*' ? State::kMultibulkCount : State::kInline);
  }
  assert(buf.size() >= pos_ && "caller dropped bytes of an incomplete request");
  if (state_ == State::kInline) return ParseInline(buf, consumed, args);
  return ParseMultibulk(buf, consumed, args);
}

RespParser::Status RespParser::ParseMultibulk(std::string_view buf, size_t* consumed,
                                              std::vector<std::string_view>* args) {
  size_t cr;
  uint64_t plain;
  if (state_ == State::kMultibulkCount) {
    int64_t count;
    if (ScanPlainCount(buf, 1, &plain, &cr)) {
      work_ += cr + 1;
      if (plain > static_cast<uint64_t>(limits_.max_multibulk_len)) return Fail(kInvalidMbulkErr);
      count = static_cast<int64_t>(plain);
      if (limits_.unauthenticated && count > ParserLimits::kUnauthMaxMultibulk) {
        return Fail(kUnauthMbulkErr);
      }
    } else {
      switch (FindLine(buf, 0, '\r', &cr)) {
        case LineResult::kNeedMore:
          return Status::kNeedMore;
        case LineResult::kTooBig:
          return Fail(kTooBigMbulkErr);
        case LineResult::kFound:
          break;
      }
      // Redis wants one byte after the '\r' but never checks that it is '\n'.
      if (cr + 1 >= buf.size()) return Status::kNeedMore;
      if (!ParseRedisInt(buf.substr(1, cr - 1), &count) || count > limits_.max_multibulk_len) {
        return Fail(kInvalidMbulkErr);
      }
      if (limits_.unauthenticated && count > ParserLimits::kUnauthMaxMultibulk) {
        return Fail(kUnauthMbulkErr);
      }
    }
    pos_ = cr + 2;
    args_left_ = count;
    spans_.clear();
    // Bounded so that a bare "*1000000" line cannot make us allocate for arguments that
    // never arrive.
    spans_.reserve(static_cast<size_t>(std::clamp<int64_t>(count, 0, 1024)));
    EnterLine(State::kBulkLen);
  }
  while (args_left_ > 0) {
    if (state_ == State::kBulkLen && pos_ < buf.size() && buf[pos_] == '$' &&
        ScanPlainCount(buf, pos_ + 1, &plain, &cr)) {
      work_ += cr + 1 - pos_;
      if (plain > static_cast<uint64_t>(limits_.max_bulk_len)) return Fail(kInvalidBulkErr);
      bulk_len_ = static_cast<int64_t>(plain);
      if (limits_.unauthenticated && bulk_len_ > ParserLimits::kUnauthMaxBulk) {
        return Fail(kUnauthBulkErr);
      }
      pos_ = cr + 2;
      state_ = State::kBulkData;
    } else if (state_ == State::kBulkLen) {
      switch (FindLine(buf, pos_, '\r', &cr)) {
        case LineResult::kNeedMore:
          return Status::kNeedMore;
        case LineResult::kTooBig:
          return Fail(kTooBigBulkErr);
        case LineResult::kFound:
          break;
      }
      if (cr + 1 >= buf.size()) return Status::kNeedMore;
      if (buf[pos_] != '$') {
        // Redis's error replies turn CR and LF into spaces.
        const char got = buf[pos_] == '\r' || buf[pos_] == '\n' ? ' ' : buf[pos_];
        return Fail(std::string("Protocol error: expected '$', got '") + got + "'");
      }
      int64_t len;
      if (!ParseRedisInt(buf.substr(pos_ + 1, cr - pos_ - 1), &len) || len < 0 ||
          len > limits_.max_bulk_len) {
        return Fail(kInvalidBulkErr);
      }
      if (limits_.unauthenticated && len > ParserLimits::kUnauthMaxBulk) {
        return Fail(kUnauthBulkErr);
      }
      bulk_len_ = len;
      pos_ = cr + 2;
      state_ = State::kBulkData;
    }
    // The two bytes after the data must be present; like Redis, we skip them unchecked.
    const size_t need = static_cast<size_t>(bulk_len_) + 2;
    if (buf.size() - pos_ < need) return Status::kNeedMore;
    spans_.push_back({pos_, static_cast<size_t>(bulk_len_)});
    pos_ += need;
    --args_left_;
    ++work_;
    EnterLine(State::kBulkLen);
  }
  args->reserve(spans_.size());
  for (const Span& s : spans_) args->emplace_back(buf.data() + s.offset, s.len);
  if (spans_.capacity() > kRetainedSpans) spans_ = {};
  *consumed = pos_;
  state_ = State::kIdle;
  return Status::kOk;
}

RespParser::Status RespParser::ParseInline(std::string_view buf, size_t* consumed,
                                           std::vector<std::string_view>* args) {
  size_t nl;
  switch (FindLine(buf, 0, '\n', &nl)) {
    case LineResult::kNeedMore:
      return Status::kNeedMore;
    case LineResult::kTooBig:
      return Fail(kTooBigInlineErr);
    case LineResult::kFound:
      break;
  }
  const size_t line_len = nl > 0 && buf[nl - 1] == '\r' ? nl - 1 : nl;
  work_ += line_len;
  if (!SplitArgsInto(buf.substr(0, line_len), &inline_args_, args)) {
    args->clear();
    return Fail(kUnbalancedErr);
  }
  *consumed = nl + 1;
  state_ = State::kIdle;
  return Status::kOk;
}

// Redis finds line ends with strchr, which stops at a NUL: a NUL before the terminator
// hides it for good, and the client can only run into the size limit. The limit is applied
// to the line itself, as Redis does when bytes arrive one at a time; Redis reads 16KB at a
// time and only checks between reads, so it sometimes tolerates a little more, but a
// verdict that depends on how TCP split the stream is not worth copying.
RespParser::LineResult RespParser::FindLine(std::string_view buf, size_t line_start, char term,
                                            size_t* term_pos) {
  if (!line_blocked_) {
    const size_t end = std::min(buf.size(), line_start + limits_.max_inline_len + 1);
    const char* p = buf.data();
    size_t i = scan_pos_;
    for (; i < end; ++i) {
      if (p[i] == term) {
        work_ += i - scan_pos_ + 1;
        scan_pos_ = i;  // A '\r' may still lack its following byte; find it at once next time.
        *term_pos = i;
        return LineResult::kFound;
      }
      if (p[i] == '\0') {
        line_blocked_ = true;
        break;
      }
    }
    work_ += i - scan_pos_;
    scan_pos_ = i;
  }
  return buf.size() - line_start > limits_.max_inline_len ? LineResult::kTooBig
                                                          : LineResult::kNeedMore;
}

void RespParser::EnterLine(State state) {
  state_ = state;
  scan_pos_ = pos_;
  line_blocked_ = false;
}

RespParser::Status RespParser::Fail(std::string_view text) {
  error_.assign(text);
  state_ = State::kError;
  return Status::kError;
}

size_t RespParser::BytesNeeded() const {
  if (state_ != State::kBulkData) return 0;
  return pos_ + static_cast<size_t>(bulk_len_) + 2;
}

void RespParser::Reset() {
  state_ = State::kIdle;
  pos_ = 0;
  scan_pos_ = 0;
  line_blocked_ = false;
  args_left_ = 0;
  bulk_len_ = 0;
  spans_.clear();
  error_.clear();
}

}  // namespace rc::net
