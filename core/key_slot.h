#pragma once
// Redis Cluster key hashing: CRC16 (XMODEM) of the key, or of its hash tag, modulo 16384.
// Matching Redis exactly lets CLUSTER KEYSLOT answer as redis-server does and lets clients
// that group keys with {tags} rely on those keys landing together.

#include <cstdint>
#include <string_view>

namespace rc {

inline constexpr uint16_t kNumKeySlots = 16384;

// CRC-16/XMODEM: polynomial 0x1021, initial value 0, no reflection, no final xor.
// Crc16("123456789") == 0x31C3.
uint16_t Crc16(std::string_view data);

// The bytes that decide a key's slot (Redis keyHashSlot): the content of the first '{' and
// the first '}' after it when that content is non-empty, otherwise the whole key. So
// "{user1000}.following" hashes "user1000", "foo{}{bar}" hashes all of itself, and
// "foo{{bar}}zap" hashes "{bar".
std::string_view KeyHashPart(std::string_view key);

// Crc16(KeyHashPart(key)) % kNumKeySlots, in [0, 16383].
uint16_t KeySlot(std::string_view key);

}  // namespace rc
