#pragma once
// Redis's listpack (listpack.c, Redis 7.0): the blob its small hashes and sorted sets and
// each node of its lists are, and what RDB files and DUMP payloads carry for them
// (core/rdb_value.h). ringcache keeps its own compact encodings in memory; this writes the
// bytes Redis would have for the same elements, and reads and checks Redis's.
//
//   [total bytes: u32 LE][count: u16 LE, 65535 = more][entries][0xFF]
//   entry = encoding (+ data) ‖ backlen (the encoding's size, 7 bits a byte, read backwards)
//
// Pure functions: any thread.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"

namespace rc::listpack {

inline constexpr size_t kHeaderBytes = 6;
// A listpack holding nothing: header and terminator.
inline constexpr size_t kEmptyBytes = kHeaderBytes + 1;

// Appends one listpack to *out, element by element, as lpAppend makes it: a string that is
// an integer's canonical spelling is stored as that integer in the smallest encoding.
class Writer {
 public:
  explicit Writer(std::string* out);
  void Add(std::string_view s);
  void AddInt(int64_t v);
  // Writes the terminator and the header. Nothing may be added afterwards.
  void Finish();
  size_t count() const { return count_; }
  // The listpack's size so far, its terminator included.
  size_t bytes() const { return out_->size() - start_ + 1; }

 private:
  void AddEncoded(const char* enc, size_t len);
  std::string* out_;
  size_t start_;
  size_t count_ = 0;
};

// What Add(s) makes of `s`: encoding, data and backlen.
size_t EntryBytes(std::string_view s);

// One element read back: an integer-encoded one has is_int and `value`, a string one its
// bytes in `str` (a view into the listpack).
struct Element {
  bool is_int = false;
  int64_t value = 0;
  std::string_view str;
  // The element as Redis returns it: a string's bytes, an integer's decimal digits, written
  // to `buf` (kMaxInt64Chars bytes).
  std::string_view View(char* buf) const;
};

// Checks the whole listpack as lpValidateIntegrity(deep) does (header, every entry's
// encoding and backlen within bounds, terminator last, count) and visits its elements in
// order. False when it is malformed or `fn` returns false; `fn` may have seen a prefix.
bool ForEach(std::string_view lp, absl::FunctionRef<bool(const Element&)> fn);

}  // namespace rc::listpack
