#include "net/resp_peek.h"

#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"

namespace rc::net {
namespace {

std::vector<std::string_view> Peek(std::string_view buf, size_t max, size_t* end) {
  std::string_view out[8];
  size_t n = PeekSecondArgs(buf, out, max, end);
  return {out, out + n};
}

TEST(RespPeek, SecondArgumentOfEachCompleteRequest) {
  const std::string buf =
      "*2\r\n$3\r\nGET\r\n$5\r\nkey:1\r\n"
      "*1\r\n$4\r\nPING\r\n"
      "*3\r\n$3\r\nSET\r\n$0\r\n\r\n$2\r\nvv\r\n"
      "*2\r\n$3\r\nGET\r\n$2\r\nk";  // incomplete
  size_t end = 0;
  EXPECT_EQ(Peek(buf, 8, &end), (std::vector<std::string_view>{"key:1", ""}));
  EXPECT_EQ(end, buf.find("*2\r\n$3\r\nGET\r\n$2\r\nk"));
}

TEST(RespPeek, StopsAtMaxAndAtWhatItDoesNotRead) {
  const std::string get = "*2\r\n$3\r\nGET\r\n$1\r\na\r\n";
  size_t end = 0;
  EXPECT_EQ(Peek(get + get + get, 2, &end).size(), 2u);
  EXPECT_EQ(end, 2 * get.size());
  EXPECT_TRUE(Peek("GET a\r\n" + get, 8, &end).empty());  // inline
  EXPECT_EQ(end, 0u);
  EXPECT_EQ(Peek(get + "*2\r\n$x\r\n" + get, 8, &end).size(), 1u);  // malformed
  EXPECT_EQ(end, get.size());
  EXPECT_TRUE(Peek("*2\r\n$3\r\nGET\r\n$99999999999999\r\n", 8, &end).empty());
  EXPECT_TRUE(Peek("*0\r\n", 8, &end).empty());
  EXPECT_TRUE(Peek("", 8, &end).empty());
  EXPECT_TRUE(Peek("*2\r\n$3\r\nGET\r\n$1\r\na\r", 8, &end).empty());  // no final \n
}

}  // namespace
}  // namespace rc::net
