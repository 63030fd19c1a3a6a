#pragma once
// Incremental RESP2 request parser that accepts and rejects exactly what redis-server 7.0
// does (networking.c processMultibulkBuffer / processInlineBuffer), with the same error
// texts, so clients and tests written against Redis see no difference.
//
// One parser per connection, used only by the thread that owns the connection:
//
//   read bytes -> append to conn buffer -> Parse(buffer) --kOk------> dispatch args,
//                      ^                     |                         drop `consumed` bytes,
//                      |                     |                         Parse again
//                      +---- kNeedMore ------+ (keep every unconsumed byte; the parser
//                                               remembers where it stopped)
//                                            +--kError----> reply "-ERR " + error(), close
//
// Resuming rather than rescanning keeps a 1M-argument MSET that arrives in 10k reads
// O(total bytes). Partially parsed arguments are stored as offsets, not views, because the
// caller may move its buffer when it grows it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rc::net {

struct ParserLimits {
  int64_t max_bulk_len = 512LL * 1024 * 1024;  // Redis proto-max-bulk-len.
  // Redis PROTO_INLINE_MAX_SIZE: bounds an inline line and the `*N` / `$N` count lines.
  size_t max_inline_len = 64 * 1024;
  // Redis allows INT_MAX arguments; we cap lower and reuse its "invalid multibulk length".
  int64_t max_multibulk_len = 1024 * 1024;
  // A client that still has to AUTH may send at most 10 arguments of at most 16 KiB each
  // (Redis's "unauthenticated multibulk/bulk length" errors), so a stranger cannot make
  // the server buffer megabytes.
  bool unauthenticated = false;
  static constexpr int64_t kUnauthMaxMultibulk = 10;
  static constexpr int64_t kUnauthMaxBulk = 16384;
};

class RespParser {
 public:
  enum class Status { kOk, kNeedMore, kError };

  explicit RespParser(ParserLimits limits = {});

  // Parses one request from the front of `buf`.
  // kOk: *consumed = bytes of this request; args = its arguments. Multibulk arguments view
  //   `buf`; inline arguments view parser-owned storage (quotes and escapes are decoded), so
  //   all args stay valid only until the next Parse() or Reset() and while `buf` is unchanged.
  //   args is empty for `*0`, `*-1` (any count <= 0) and a blank inline line: Redis skips
  //   those silently, so the caller sends no reply.
  // kNeedMore: incomplete. The caller must call again with the same bytes at the front of
  //   the buffer plus whatever arrived since; parsing resumes where it stopped.
  // kError: error() holds Redis's text without the leading "-ERR ". The parser stays in the
  //   error state until Reset(); the connection is expected to reply and close.
  // *consumed is 0 unless kOk; args is cleared on every call.
  Status Parse(std::string_view buf, size_t* consumed, std::vector<std::string_view>* args);

  const std::string& error() const { return error_; }

  // Replaces the limits; they apply from the next line parsed (CONFIG SET and AUTH change
  // them between requests).
  void set_limits(const ParserLimits& limits) { limits_ = limits; }
  const ParserLimits& limits() const { return limits_; }

  // Lower bound on the total buffer size (from the front of the request) that the current
  // incomplete request needs: known while a bulk is being read, so a caller receiving a
  // 512MB bulk can reserve once. 0 if unknown.
  size_t BytesNeeded() const;

  // Forgets any partial request and error.
  void Reset();

  // Bytes examined plus one unit per argument and per call since construction. Lets tests
  // assert linear work without timing anything.
  uint64_t work() const { return work_; }

 private:
  enum class State : uint8_t { kIdle, kMultibulkCount, kBulkLen, kBulkData, kInline, kError };
  enum class LineResult : uint8_t { kFound, kNeedMore, kTooBig };
  struct Span {
    size_t offset;
    size_t len;
  };

  Status ParseMultibulk(std::string_view buf, size_t* consumed,
                        std::vector<std::string_view>* args);
  Status ParseInline(std::string_view buf, size_t* consumed, std::vector<std::string_view>* args);
  // Looks for `term` in the line starting at `line_start`, resuming at scan_pos_.
  LineResult FindLine(std::string_view buf, size_t line_start, char term, size_t* term_pos);
  void EnterLine(State state);
  Status Fail(std::string_view text);

  ParserLimits limits_;
  State state_ = State::kIdle;
  size_t pos_ = 0;             // Start of the line or bulk being parsed, from the request start.
  size_t scan_pos_ = 0;        // Where the terminator search resumes within the current line.
  bool line_blocked_ = false;  // Saw a NUL; see FindLine.
  int64_t args_left_ = 0;
  int64_t bulk_len_ = 0;
  std::vector<Span> spans_;  // Completed arguments of the current multibulk request.
  std::string inline_args_;  // Decoded inline arguments, which args view on kOk.
  std::string error_;
  uint64_t work_ = 0;
};

}  // namespace rc::net
