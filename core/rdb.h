#pragma once
// Pieces of Redis's RDB format (version 10, Redis 7.0) that DUMP payloads are made of:
// lengths, strings (integer-, LZF- or not encoded, as Redis chooses with rdbcompression
// yes) and the payload footer (RDB version and CRC-64, both little-endian), so payloads
// made here restore into redis-server and the other way round. Pure functions: any thread.
//
//   payload = body ‖ version (2 bytes LE) ‖ Crc64(0, body ‖ version) (8 bytes LE)

#include <cstdint>
#include <string>
#include <string_view>

namespace rc {

inline constexpr uint16_t kRdbVersion = 10;
// Opcodes of a DUMP payload's items.
inline constexpr uint8_t kRdbOpcodeFunctionPreGa = 246;
inline constexpr uint8_t kRdbOpcodeFunction2 = 245;

void RdbAppendLength(uint64_t len, std::string* out);
// As rdbSaveRawString: a canonical integer of at most 11 bytes in the int32 range as an
// integer, else LZF when longer than 20 bytes and it compresses (Debian's liblzf, the one
// Debian's redis-server links, so the bytes match), else the bytes as they are.
void RdbAppendString(std::string_view s, std::string* out);

// Reads items of an RDB body in order; each read is false when the input is cut short or
// malformed (nothing is consumed reliably after that).
class RdbReader {
 public:
  explicit RdbReader(std::string_view in) : in_(in) {}
  bool ReadByte(uint8_t* out);
  bool ReadLength(uint64_t* out);
  bool ReadString(std::string* out);
  size_t remaining() const { return in_.size(); }

 private:
  // A length, or with *encoded set the encoding of a special string (the low 6 bits).
  bool ReadLengthOrEncoding(uint64_t* out, bool* encoded);
  std::string_view in_;
};

// Appends the footer that makes `payload` a DUMP payload.
void AppendDumpFooter(std::string* payload);
// Redis's verifyDumpPayload: at least the footer's 10 bytes, a version this server reads,
// and a matching CRC-64. *version is set whenever the footer is there.
bool VerifyDumpFooter(std::string_view payload, uint16_t* version);

}  // namespace rc
