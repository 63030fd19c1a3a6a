// CRC-64 (core/crc64.h) against its check value, and the RDB pieces of DUMP payloads
// (core/rdb.h) against a payload redis-server 7.0.15 made: FUNCTION DUMP of one library,
// whose code Redis compressed with LZF.
#include "core/rdb.h"

#include <gtest/gtest.h>

#include <string>

#include "core/crc64.h"

namespace rc {
namespace {

std::string FromHex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(char(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

std::string RepeatedLibrary() {
  std::string code = "#!lua name=lzf\n";
  for (int i = 0; i < 3; ++i) {
    code += "redis.register_function('f" + std::to_string(i) +
            "', function(keys, args) return redis.call('get', keys[1]) end)\n";
  }
  return code;
}

// FUNCTION DUMP from redis-server 7.0.15 (Debian) after FUNCTION LOAD RepeatedLibrary().
const char kRedisDump[] =
    "f5c34073411d1f23216c7561206e616d653d6c7a660a72656469732e72656769737465725f66750c6e637469"
    "6f6e28276630272c20e0000e116b6579732c2061726773292072657475726e200640390863616c6c28276765"
    "74202d4024085b315d2920656e6429e012590031202be04d590032e0345901290a0a008b57a045ae67c028";

TEST(Crc64Test, CheckValueAndContinuation) {
  EXPECT_EQ(Crc64(0, "123456789"), 0xe9c6d914c4b8d9caULL);
  EXPECT_EQ(Crc64(0, ""), 0u);
  EXPECT_EQ(Crc64(Crc64(0, "1234"), "56789"), Crc64(0, "123456789"));
}

TEST(RdbTest, RedisPayloadVerifiesAndDecodes) {
  const std::string payload = FromHex(kRedisDump);
  uint16_t version = 0;
  ASSERT_TRUE(VerifyDumpFooter(payload, &version));
  EXPECT_EQ(version, 10);
  RdbReader in(payload);
  uint8_t type = 0;
  ASSERT_TRUE(in.ReadByte(&type));
  EXPECT_EQ(type, kRdbOpcodeFunction2);
  std::string code;
  ASSERT_TRUE(in.ReadString(&code));
  EXPECT_EQ(code, RepeatedLibrary());
  EXPECT_EQ(in.remaining(), 10u);
}

TEST(RdbTest, EncodesAsRedisDoes) {
  std::string body;
  body.push_back(char(kRdbOpcodeFunction2));
  RdbAppendString(RepeatedLibrary(), &body);
  AppendDumpFooter(&body);
  EXPECT_EQ(body, FromHex(kRedisDump));
}

TEST(RdbTest, CorruptFootersFail) {
  std::string payload = FromHex(kRedisDump);
  uint16_t version = 0;
  EXPECT_FALSE(VerifyDumpFooter(payload.substr(0, 9), &version));
  std::string flipped = payload;
  flipped[3] ^= 1;
  EXPECT_FALSE(VerifyDumpFooter(flipped, &version));
  std::string newer;
  newer.push_back(char(kRdbOpcodeFunction2));
  RdbAppendString("x", &newer);
  newer += std::string("\x0b\x00", 2);
  const uint64_t crc = Crc64(0, newer);
  for (int i = 0; i < 8; ++i) newer.push_back(char((crc >> (8 * i)) & 0xff));
  EXPECT_FALSE(VerifyDumpFooter(newer, &version));
  EXPECT_EQ(version, 11);
}

TEST(RdbTest, StringsRoundTripInEveryEncoding) {
  const std::string cases[] = {"",
                               "a",
                               "12",
                               "-128",
                               "300",
                               "-32769",
                               "2147483647",
                               "2147483648",
                               "007",
                               "-0",
                               std::string(63, 'x'),
                               std::string(64, 'y'),
                               std::string(16383, 'z'),
                               std::string(16384, 'w'),
                               "abcdefghijklmnopqrstuvwxyz0123456789"};
  for (const std::string& s : cases) {
    std::string enc;
    RdbAppendString(s, &enc);
    RdbReader in(enc);
    std::string out;
    ASSERT_TRUE(in.ReadString(&out)) << s.substr(0, 20);
    EXPECT_EQ(out, s);
    EXPECT_EQ(in.remaining(), 0u);
  }
  std::string enc;
  RdbAppendString("12", &enc);
  EXPECT_EQ(enc, std::string("\xc0\x0c", 2));
  enc.clear();
  RdbAppendString(std::string(100, 'a'), &enc);
  EXPECT_EQ(uint8_t(enc[0]), 0xc3);  // compressed
}

TEST(RdbTest, TruncatedAndMalformedStringsFail) {
  std::string enc;
  RdbAppendString(std::string(300, 'q') + "tail", &enc);
  for (size_t cut = 0; cut < enc.size(); ++cut) {
    RdbReader in(std::string_view(enc).substr(0, cut));
    std::string out;
    EXPECT_FALSE(in.ReadString(&out)) << cut;
  }
  // A reader views its input: the bytes outlive it.
  const std::string lies(
      "\xc3\x05\x20"
      "abcde",
      8);
  RdbReader lzf_lies(lies);
  std::string out;
  EXPECT_FALSE(lzf_lies.ReadString(&out));
  const std::string unknown("\xc5", 1);
  RdbReader bad_encoding(unknown);
  EXPECT_FALSE(bad_encoding.ReadString(&out));
}

}  // namespace
}  // namespace rc
