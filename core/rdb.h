#pragma once
// Pieces of Redis's RDB format (version 10, Redis 7.0) that RDB files and DUMP payloads are
// made of: lengths, strings (integer-, LZF- or not encoded, as Redis chooses), raw
// little-endian numbers and the payload footer (RDB version and CRC-64, both
// little-endian), so what is made here loads into redis-server and the other way round.
// Values (a key's whole body) are core/rdb_value.h. Pure functions: any thread.
//
//   payload = body ‖ version (2 bytes LE) ‖ Crc64(0, body ‖ version) (8 bytes LE)

#include <cstdint>
#include <string>
#include <string_view>

namespace rc {

inline constexpr uint16_t kRdbVersion = 10;
// Opcodes of an RDB file's items (Redis's RDB_OPCODE_*); the two function ones also
// begin the items of a FUNCTION DUMP payload.
inline constexpr uint8_t kRdbOpcodeFunction2 = 245;
inline constexpr uint8_t kRdbOpcodeFunctionPreGa = 246;
inline constexpr uint8_t kRdbOpcodeModuleAux = 247;
inline constexpr uint8_t kRdbOpcodeIdle = 248;
inline constexpr uint8_t kRdbOpcodeFreq = 249;
inline constexpr uint8_t kRdbOpcodeAux = 250;
inline constexpr uint8_t kRdbOpcodeResizeDb = 251;
inline constexpr uint8_t kRdbOpcodeExpireMs = 252;
inline constexpr uint8_t kRdbOpcodeExpireSec = 253;
inline constexpr uint8_t kRdbOpcodeSelectDb = 254;
inline constexpr uint8_t kRdbOpcodeEof = 255;

void RdbAppendLength(uint64_t len, std::string* out);
// As rdbSaveRawString: a canonical integer of at most 11 bytes in the int32 range as an
// integer, else (with `compress`, Redis's rdbcompression) LZF when longer than 20 bytes
// and it compresses (Debian's liblzf, the one Debian's redis-server links, so the bytes
// match), else the bytes as they are. Allocates nothing but `out`'s growth: it runs once
// per key and element of a snapshot.
void RdbAppendString(std::string_view s, std::string* out, bool compress = true);
// As rdbSaveMillisecondTime / rdbSaveBinaryDoubleValue: 8 bytes, little-endian.
void RdbAppendU64(uint64_t v, std::string* out);
void RdbAppendBinaryDouble(double v, std::string* out);

// Reads items of an RDB body in order; each read is false when the input is cut short or
// malformed (nothing is consumed reliably after that).
class RdbReader {
 public:
  explicit RdbReader(std::string_view in) : in_(in), size_(in.size()) {}
  bool ReadByte(uint8_t* out);
  bool ReadLength(uint64_t* out);
  bool ReadString(std::string* out);
  // A string without a copy where it can: a plain one is a view into the input, an
  // integer- or LZF-encoded one is decoded into *scratch and viewed there.
  bool ReadStringView(std::string_view* out, std::string* scratch);
  // Moves past a string without decoding it (an LZF one is not decompressed).
  bool SkipString();
  // `n` bytes as they are, viewed in the input.
  bool ReadRaw(size_t n, std::string_view* out);
  // Little-endian fixed-width numbers: expiry times (u32 seconds, u64 ms), binary scores.
  bool ReadU32(uint32_t* out);
  bool ReadU64(uint64_t* out);
  bool ReadBinaryDouble(double* out);
  // rdbLoadDoubleValue: a length byte (253 nan, 254 +inf, 255 -inf) then that many ASCII
  // bytes, as the scores of RDB_TYPE_ZSET (type 3) are kept.
  bool ReadStringDouble(double* out);
  size_t remaining() const { return in_.size(); }
  // Bytes consumed since construction: the position an error names.
  size_t offset() const { return size_ - in_.size(); }

 private:
  // A length, or with *encoded set the encoding of a special string (the low 6 bits).
  bool ReadLengthOrEncoding(uint64_t* out, bool* encoded);
  std::string_view in_;
  size_t size_;
};

// Appends the footer that makes `payload` a DUMP payload.
void AppendDumpFooter(std::string* payload);
// Redis's verifyDumpPayload: at least the footer's 10 bytes, a version this server reads,
// and a matching CRC-64. *version is set whenever the footer is there.
bool VerifyDumpFooter(std::string_view payload, uint16_t* version);

}  // namespace rc
