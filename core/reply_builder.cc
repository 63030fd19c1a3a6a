#include "core/reply_builder.h"

#include <charconv>

#include "core/numbers.h"

namespace rc {

void ReplyBuilder::SimpleString(std::string_view s) {
  out_->push_back('+');
  out_->append(s);
  out_->append("\r\n", 2);
}

void ReplyBuilder::Error(std::string_view msg) {
  out_->push_back('-');
  // An error line cannot carry newlines; Redis turns them into spaces the same way.
  size_t start = out_->size();
  out_->append(msg);
  for (size_t i = start; i < out_->size(); ++i) {
    if ((*out_)[i] == '\r' || (*out_)[i] == '\n') (*out_)[i] = ' ';
  }
  out_->append("\r\n", 2);
}

void ReplyBuilder::PrefixedNumber(char prefix, int64_t v) {
  char buf[24];
  buf[0] = prefix;
  auto res = std::to_chars(buf + 1, buf + sizeof(buf) - 2, v);
  res.ptr[0] = '\r';
  res.ptr[1] = '\n';
  out_->append(buf, res.ptr + 2 - buf);
}

void ReplyBuilder::Integer(int64_t v) { PrefixedNumber(':', v); }

void ReplyBuilder::ArrayLen(size_t n) { PrefixedNumber('*', int64_t(n)); }

void ReplyBuilder::MapLen(size_t n) {
  resp3_ ? PrefixedNumber('%', int64_t(n)) : PrefixedNumber('*', int64_t(2 * n));
}

void ReplyBuilder::SetLen(size_t n) { PrefixedNumber(resp3_ ? '~' : '*', int64_t(n)); }

void ReplyBuilder::PushLen(size_t n) { PrefixedNumber(resp3_ ? '>' : '*', int64_t(n)); }

void ReplyBuilder::Double(double d) {
  char buf[kMaxDoubleChars];
  char* end = FormatDouble(d, buf);
  if (!resp3_) return Bulk(std::string_view(buf, size_t(end - buf)));
  out_->push_back(',');
  out_->append(buf, size_t(end - buf));
  out_->append("\r\n", 2);
}

void ReplyBuilder::Verbatim(std::string_view text) {
  if (!resp3_) return Bulk(text);
  PrefixedNumber('=', int64_t(text.size() + 4));
  out_->append("txt:", 4);
  out_->append(text);
  out_->append("\r\n", 2);
}

void ReplyBuilder::Bulk(std::string_view s) {
  PrefixedNumber('$', int64_t(s.size()));
  out_->append(s);
  out_->append("\r\n", 2);
}

}  // namespace rc
