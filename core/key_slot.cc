#include "core/key_slot.h"

#include <array>
#include <cstddef>

namespace rc {
namespace {

// One step of the bitwise CRC for each possible top byte, so the hot loop does one lookup
// per byte instead of eight shifts.
constexpr std::array<uint16_t, 256> MakeCrc16Table() {
  std::array<uint16_t, 256> table{};
  for (size_t i = 0; i < table.size(); ++i) {
    uint16_t crc = static_cast<uint16_t>(i << 8);
    for (int bit = 0; bit < 8; ++bit) {
      crc = static_cast<uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    table[i] = crc;
  }
  return table;
}

constexpr std::array<uint16_t, 256> kCrc16Table = MakeCrc16Table();
static_assert(kCrc16Table[1] == 0x1021 && kCrc16Table[255] == 0x1EF0);

}  // namespace

uint16_t Crc16(std::string_view data) {
  uint16_t crc = 0;
  for (unsigned char byte : data) {
    crc = static_cast<uint16_t>((crc << 8) ^ kCrc16Table[((crc >> 8) ^ byte) & 0xFF]);
  }
  return crc;
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
