#include "core/reply_builder.h"

#include "gtest/gtest.h"

namespace rc {
namespace {

TEST(ReplyBuilder, WritesResp2) {
  std::string out;
  ReplyBuilder rb(&out);
  rb.ArrayLen(6);
  rb.SimpleString("OK");
  rb.Integer(-42);
  rb.Bulk("a\r\nb");
  rb.Bulk("");
  rb.NullBulk();
  rb.Error("ERR bad\r\nthing");
  EXPECT_EQ(out, "*6\r\n+OK\r\n:-42\r\n$4\r\na\r\nb\r\n$0\r\n\r\n$-1\r\n-ERR bad  thing\r\n");
}

TEST(ReplyBuilder, ExtremeIntegers) {
  std::string out;
  ReplyBuilder rb(&out);
  rb.Integer(INT64_MIN);
  rb.Integer(INT64_MAX);
  EXPECT_EQ(out, ":-9223372036854775808\r\n:9223372036854775807\r\n");
}

}  // namespace
}  // namespace rc
