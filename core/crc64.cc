#include "core/crc64.h"

#include <array>

namespace rc {

namespace {

// The polynomial with its bits reversed, for the reflected (least significant bit first)
// form, and the table of each byte's contribution, built at compile time.
constexpr uint64_t kReflectedPoly = 0x95ac9329ac4bc9b5ULL;

constexpr std::array<uint64_t, 256> MakeTable() {
  std::array<uint64_t, 256> table{};
  for (uint64_t b = 0; b < 256; ++b) {
    uint64_t crc = b;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) ? (crc >> 1) ^ kReflectedPoly : crc >> 1;
    table[b] = crc;
  }
  return table;
}

constexpr std::array<uint64_t, 256> kTable = MakeTable();

}  // namespace

uint64_t Crc64(uint64_t crc, std::string_view data) {
  for (unsigned char c : data) crc = kTable[(crc ^ c) & 0xff] ^ (crc >> 8);
  return crc;
}

}  // namespace rc
