#include "core/key_slot.h"

#include <random>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace rc {
namespace {

using namespace std::string_view_literals;

// Bit-at-a-time CRC-16/XMODEM, the definition the table-driven Crc16 must reproduce.
uint16_t BitwiseCrc16(std::string_view data) {
  uint16_t crc = 0;
  for (unsigned char byte : data) {
    crc ^= static_cast<uint16_t>(byte << 8);
    for (int bit = 0; bit < 8; ++bit) {
      crc = static_cast<uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
    }
  }
  return crc;
}

TEST(Crc16, KnownValues) {
  EXPECT_EQ(Crc16(""), 0);
  EXPECT_EQ(Crc16("123456789"), 0x31C3);  // the XMODEM check value, also in Redis's crc16.c
  EXPECT_EQ(Crc16("A"), 0x58E5);
}

TEST(Crc16, TableMatchesBitwiseDefinition) {
  std::mt19937 rng(3);
  for (int i = 0; i < 10000; ++i) {
    std::string data(rng() % 40, '\0');
    for (char& c : data) c = static_cast<char>(rng());
    ASSERT_EQ(Crc16(data), BitwiseCrc16(data));
  }
}

struct SlotCase {
  std::string_view key;
  uint16_t slot;
};

TEST(KeySlot, MatchesRedisClusterKeyslot) {
  // CLUSTER KEYSLOT answers of redis-server 7.0.15 started with --cluster-enabled yes.
  const SlotCase cases[] = {
      {"foo", 12182},
      {"bar", 5061},
      {"{user1000}.following", 3443},
      {"{user1000}.followers", 3443},
      {"user1000", 3443},
      {"foo{}{bar}", 8363},  // empty tag: whole key
      {"foo{{bar}}zap", 4015},
      {"{bar", 4015},  // what the previous key hashes
      {"foo{bar}{zap}", 5061},
      {"", 0},
      {"{", 4092},
      {"}", 12090},
      {"{}", 15257},
      {"{}{}", 15786},
      {"{{}}", 4092},  // tag is "{"
      {"{a", 10276},
      {"a}", 5921},
      {"}{a}", 15495},
      {"{a}{b}", 15495},
      {"a", 15495},
      {"a{b}c", 3300},
      {"b", 3300},
      {"a{}", 6082},
      {"{ }", 9314},
      {" ", 9314},
      {"123456789", 12739},
      {"\x00\xff"sv, 7920},
      {"\xe4\xb8\xad\xe6\x96\x87", 13257},
  };
  for (const SlotCase& c : cases) EXPECT_EQ(KeySlot(c.key), c.slot) << '"' << c.key << '"';
  EXPECT_EQ(KeySlot("key:" + std::string(1000, 'x')), 293);
}

TEST(KeyHashPart, FirstOpenBraceThenFirstCloseAfterIt) {
  EXPECT_EQ(KeyHashPart("plain"), "plain");
  EXPECT_EQ(KeyHashPart("{user1000}.following"), "user1000");
  EXPECT_EQ(KeyHashPart("foo{bar}{zap}"), "bar");
  EXPECT_EQ(KeyHashPart("foo{{bar}}zap"), "{bar");
  EXPECT_EQ(KeyHashPart("foo{}{bar}"), "foo{}{bar}");
  EXPECT_EQ(KeyHashPart("}{a}"), "a");
  EXPECT_EQ(KeyHashPart("no{close"), "no{close");
  EXPECT_EQ(KeyHashPart("{a\0b}"sv), "a\0b"sv);
}

TEST(KeySlot, AlwaysInRange) {
  std::mt19937 rng(9);
  for (int i = 0; i < 10000; ++i) {
    std::string key(rng() % 20, '\0');
    for (char& c : key) c = "ab{}\x00\xff"[rng() % 6];
    const uint16_t slot = KeySlot(key);
    ASSERT_LT(slot, kNumKeySlots);
    ASSERT_EQ(slot, BitwiseCrc16(KeyHashPart(key)) % kNumKeySlots);
  }
}

}  // namespace
}  // namespace rc
