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
  explicit ReplyBuilder(std::string* out) : out_(out) {}

  void SimpleString(std::string_view s);
  void Ok() { out_->append("+OK\r\n", 5); }
  // `msg` is the whole error line without the '-', e.g. "ERR syntax error".
  void Error(std::string_view msg);
  void Integer(int64_t v);
  void Bulk(std::string_view s);
  void NullBulk() { out_->append("$-1\r\n", 5); }
  void NullArray() { out_->append("*-1\r\n", 5); }
  void ArrayLen(size_t n);
  // A HELP reply: Redis sends its lines as an array of simple strings.
  template <size_t N>
  void HelpLines(const char* const (&lines)[N]) {
    ArrayLen(N);
    for (const char* l : lines) SimpleString(l);
  }
  // Already-encoded RESP (a reply computed on another thread).
  void Raw(std::string_view resp) { out_->append(resp); }

  std::string* out() const { return out_; }
  void set_out(std::string* out) { out_ = out; }

 private:
  void PrefixedNumber(char prefix, int64_t v);

  std::string* out_;
};

}  // namespace rc
