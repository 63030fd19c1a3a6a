#pragma once
// Writes RESP replies into a caller-owned string. Commands on any thread write through
// one of these; the connection decides where the bytes go (its output buffer, or a
// slot that keeps pipelined replies in order), so commands never see sockets.

#include <cstdint>
#include <string>
#include <string_view>

namespace rc {

class ReplyBuilder {
 public:
  // `resp3`: the client said HELLO 3, so nulls, doubles, maps, sets and pushes get their
  // RESP3 types; otherwise each degrades to its RESP2 form, as Redis sends them.
  explicit ReplyBuilder(std::string* out, bool resp3 = false) : out_(out), resp3_(resp3) {}

  void SimpleString(std::string_view s);
  void Ok() { out_->append("+OK\r\n", 5); }
  // `msg` is the whole error line without the '-', e.g. "ERR syntax error".
  void Error(std::string_view msg);
  void Integer(int64_t v);
  void Bulk(std::string_view s);
  void NullBulk() { resp3_ ? out_->append("_\r\n", 3) : out_->append("$-1\r\n", 5); }
  void NullArray() { resp3_ ? out_->append("_\r\n", 3) : out_->append("*-1\r\n", 5); }
  void ArrayLen(size_t n);
  // n key-value pairs follow (RESP2: an array of 2n).
  void MapLen(size_t n);
  // RESP2: an array.
  void SetLen(size_t n);
  // An out-of-band message (pub/sub); RESP2: an array.
  void PushLen(size_t n);
  // Redis's %.17g form; RESP2: as a bulk string.
  void Double(double d);
  // Free text such as INFO's; RESP2: a bulk string.
  void Verbatim(std::string_view text);
  // A HELP reply: Redis sends its lines as an array of simple strings.
  template <size_t N>
  void HelpLines(const char* const (&lines)[N]) {
    ArrayLen(N);
    for (const char* l : lines) SimpleString(l);
  }
  // Already-encoded RESP (a reply computed on another thread).
  void Raw(std::string_view resp) { out_->append(resp); }

  bool resp3() const { return resp3_; }
  std::string* out() const { return out_; }
  void set_out(std::string* out) { out_ = out; }

 private:
  void PrefixedNumber(char prefix, int64_t v);

  std::string* out_;
  bool resp3_;
};

}  // namespace rc
