#pragma once
// Bit-level work on byte strings for the bitmap commands, in Redis's bit order: bit 0 is
// the most significant bit of byte 0, bit 8 that of byte 1 (SETBIT, GETBIT, BITCOUNT,
// BITPOS, BITFIELD and BITOP all number bits so). No threads, no I/O.
//
// The scans go a 64-bit word at a time (POPCNT where the CPU has it, chosen at load time),
// and BITOP's loops are written for the compiler to vectorize (AVX2 where the CPU has it).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/types/span.h"

namespace rc::bits {

// Set bits among `n` bytes at `p`.
uint64_t PopCount(const uint8_t* p, size_t n);
// Set bits among bits [first, last] of `p` (inclusive; last / 8 must be a byte of `p`).
uint64_t PopCountRange(const uint8_t* p, uint64_t first, uint64_t last);
// The first bit equal to `bit` among bits [first, last] of `p`, or -1.
int64_t FindBit(const uint8_t* p, uint64_t first, uint64_t last, bool bit);

enum class BitOpKind { kAnd, kOr, kXor, kNot };
// Writes `len` bytes to `out`: `op` over `srcs`, where a source shorter than `len` reads
// as zeros past its end (Redis's BITOP). kNot takes one source. `out` must not overlap a
// source.
void BitOp(BitOpKind op, absl::Span<const std::string_view> srcs, char* out, size_t len);

// BITFIELD: the `width`-bit (1..64) unsigned integer at bit `offset` of the `len` bytes at
// `p`, most significant bit first; bits past `len` read as zero.
uint64_t GetField(const uint8_t* p, size_t len, uint64_t offset, unsigned width);
// Writes the low `width` bits of `value` at bit `offset`; the bytes must exist.
void SetField(uint8_t* p, uint64_t offset, unsigned width, uint64_t value);
// `v`'s low `width` bits as a two's complement integer of that width.
int64_t SignExtend(uint64_t v, unsigned width);

// What BITFIELD's OVERFLOW does with a result that does not fit the field.
enum class Overflow { kWrap, kSat, kFail };
// The value a field of `width` bits gets when `incr` is added to `value` (SET adds 0 to
// the new value). Returns false only for kFail on overflow, leaving *out alone. The
// arithmetic is Redis's (checkUnsignedBitfieldOverflow, checkSignedBitfieldOverflow),
// corner cases included, so replies match it exactly.
bool AddUnsigned(uint64_t value, int64_t incr, unsigned width, Overflow ow, uint64_t* out);
bool AddSigned(int64_t value, int64_t incr, unsigned width, Overflow ow, int64_t* out);

}  // namespace rc::bits
