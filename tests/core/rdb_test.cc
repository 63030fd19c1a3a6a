// CRC-64 (core/crc64.h) against its check value, and the RDB pieces of DUMP payloads
// (core/rdb.h) against a payload redis-server 7.0.15 made: FUNCTION DUMP of one library,
// whose code Redis compressed with LZF.
#include "core/rdb.h"

#include <gtest/gtest.h>

#include <limits>
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

// What the snapshot and the value codec read besides strings: positions, raw bytes,
// fixed-width little-endian numbers, both kinds of doubles, skipped strings.
TEST(RdbTest, ReaderNumbersSkipsAndOffsets) {
  std::string in;
  RdbAppendU64(0x0102030405060708ULL, &in);
  RdbAppendBinaryDouble(-2.5, &in);
  in += "\xfe";  // +inf as rdbSaveDoubleValue writes it
  in += "\x03" "1.5";
  in += std::string("\xd2\x02\x96\x49", 4);  // u32 1234567890
  RdbAppendString("12", &in);
  RdbAppendString(std::string(100, 'a'), &in);
  RdbAppendString("plain", &in);
  RdbReader r(in);
  uint64_t u = 0;
  double d = 0;
  uint32_t u32 = 0;
  std::string_view raw;
  ASSERT_TRUE(r.ReadU64(&u));
  EXPECT_EQ(u, 0x0102030405060708ULL);
  EXPECT_EQ(r.offset(), 8u);
  ASSERT_TRUE(r.ReadBinaryDouble(&d));
  EXPECT_EQ(d, -2.5);
  ASSERT_TRUE(r.ReadStringDouble(&d));
  EXPECT_EQ(d, std::numeric_limits<double>::infinity());
  ASSERT_TRUE(r.ReadStringDouble(&d));
  EXPECT_EQ(d, 1.5);
  ASSERT_TRUE(r.ReadU32(&u32));
  EXPECT_EQ(u32, 1234567890u);
  const size_t before_skips = r.offset();
  ASSERT_TRUE(r.SkipString());  // integer-encoded
  ASSERT_TRUE(r.SkipString());  // LZF, not decompressed
  EXPECT_GT(r.offset(), before_skips + 3);
  std::string scratch;
  ASSERT_TRUE(r.ReadStringView(&raw, &scratch));
  EXPECT_EQ(raw, "plain");
  EXPECT_NE(raw.data(), scratch.data());  // a view into the input: no copy
  EXPECT_EQ(r.offset(), in.size());
  EXPECT_FALSE(r.ReadRaw(1, &raw));
  EXPECT_FALSE(r.ReadU64(&u));
}

TEST(RdbTest, UncompressedStringsStayIntegersOtherwisePlain) {
  std::string enc;
  RdbAppendString(std::string(100, 'a'), &enc, /*compress=*/false);
  EXPECT_EQ(enc.size(), 2u + 100u);  // 14-bit length, then the bytes
  enc.clear();
  RdbAppendString("-7", &enc, false);
  EXPECT_EQ(enc, std::string("\xc0\xf9", 2));
  // A canonical spelling of more than 11 bytes, or outside int32, stays a string.
  enc.clear();
  RdbAppendString("2147483648", &enc, false);
  EXPECT_EQ(uint8_t(enc[0]), 10u);
}

}  // namespace
}  // namespace rc
