#include "core/reply_builder.h"

#include <limits>

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

TEST(ReplyBuilder, Resp3TypesAndTheirResp2Forms) {
  for (bool resp3 : {false, true}) {
    std::string out;
    ReplyBuilder rb(&out, resp3);
    rb.MapLen(1);
    rb.Bulk("k");
    rb.SetLen(2);
    rb.Double(2.5);
    rb.Double(-std::numeric_limits<double>::infinity());
    rb.PushLen(1);
    rb.NullBulk();
    rb.NullArray();
    rb.Verbatim("a:1");
    if (resp3) {
      EXPECT_EQ(out, "%1\r\n$1\r\nk\r\n~2\r\n,2.5\r\n,-inf\r\n>1\r\n_\r\n_\r\n=7\r\ntxt:a:1\r\n");
    } else {
      EXPECT_EQ(out,
                "*2\r\n$1\r\nk\r\n*2\r\n$3\r\n2.5\r\n$4\r\n-inf\r\n*1\r\n$-1\r\n*-1\r\n$3\r\na:1\r\n");
    }
  }
}

}  // namespace
}  // namespace rc
