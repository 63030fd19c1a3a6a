#pragma once
// CRC-64 with Jones' polynomial, as Redis computes it for RDB files and DUMP payloads:
// reflected input and output, polynomial 0xad93d23594c935a9, initial value 0, no final
// xor. Crc64(0, "123456789") is 0xe9c6d914c4b8d9ca. Pure function: any thread.

#include <cstdint>
#include <string_view>

namespace rc {

// Continues `crc` over `data` (0 to start).
uint64_t Crc64(uint64_t crc, std::string_view data);

}  // namespace rc
