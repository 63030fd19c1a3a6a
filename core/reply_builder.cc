#include "core/reply_builder.h"

#include <charconv>

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

void ReplyBuilder::Bulk(std::string_view s) {
  PrefixedNumber('$', int64_t(s.size()));
  out_->append(s);
  out_->append("\r\n", 2);
}

}  // namespace rc
