#include "core/key_slot.h"

#include <array>
#include <cstddef>

namespace rc {
namespace {

using Crc16Table = std::array<uint16_t, 256>;

// kByte[b]: the CRC register after feeding byte b into a zero register, so the bytewise
// loop does one lookup per byte instead of eight shifts.
constexpr Crc16Table MakeByteTable() {
  Crc16Table table{};
  for (size_t i = 0; i < table.size(); ++i) {
    uint16_t crc = static_cast<uint16_t>(i << 8);
    for (int bit = 0; bit < 8; ++bit) {
      crc = static_cast<uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    table[i] = crc;
  }
  return table;
}

constexpr Crc16Table kByte = MakeByteTable();
static_assert(kByte[1] == 0x1021 && kByte[255] == 0x1EF0);

// Feeding byte b into register r is feeding a zero byte into r ^ (b << 8), and feeding
// zero bytes is linear, so four bytes at once are four independent lookups: the register
// xor the first two bytes, its high and its low byte each advanced by four bytes, the
// third byte advanced by two, the fourth by one (kByte). The bytewise loop waits on each
// lookup; these overlap. Keys are hashed for every command that may hop, a multi-key
// command's several times.
constexpr uint16_t ZeroByte(uint16_t r) { return uint16_t((r << 8) ^ kByte[r >> 8]); }

constexpr Crc16Table MakeAdvanced(uint16_t shift, int zero_bytes) {
  Crc16Table table{};
  for (size_t i = 0; i < table.size(); ++i) {
    auto r = static_cast<uint16_t>(i << shift);
    for (int k = 0; k < zero_bytes; ++k) r = ZeroByte(r);
    table[i] = r;
  }
  return table;
}

constexpr Crc16Table kHigh4 = MakeAdvanced(8, 4);  // high byte of the register, 4 bytes on
constexpr Crc16Table kLow4 = MakeAdvanced(0, 4);   // low byte of the register, 4 bytes on
constexpr Crc16Table kHigh2 = MakeAdvanced(8, 2);  // the third byte, 2 bytes on
static_assert(MakeAdvanced(8, 1) == kByte);

}  // namespace

uint16_t Crc16(std::string_view data) {
  uint32_t crc = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  size_t n = data.size();
  for (; n >= 4; p += 4, n -= 4) {
    const uint32_t r = crc ^ (uint32_t(p[0]) << 8 | p[1]);
    crc = kHigh4[r >> 8] ^ kLow4[r & 0xFF] ^ kHigh2[p[2]] ^ kByte[p[3]];
  }
  for (; n > 0; ++p, --n) crc = ((crc << 8) ^ kByte[((crc >> 8) ^ *p) & 0xFF]) & 0xFFFF;
  return static_cast<uint16_t>(crc);
}

std::string_view KeyHashPart(std::string_view key) {
  const size_t open = key.find('{');
  if (open == std::string_view::npos) return key;
  const size_t close = key.find('}', open + 1);
  if (close == std::string_view::npos || close == open + 1) return key;
  return key.substr(open + 1, close - open - 1);
}

uint16_t KeySlot(std::string_view key) {
  // kNumKeySlots is a power of two, so the modulo is Redis's "& 0x3FFF".
  return Crc16(KeyHashPart(key)) & (kNumKeySlots - 1);
}

}  // namespace rc
