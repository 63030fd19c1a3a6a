#pragma once
// Redis's intset blob (intset.c): how RDB files and DUMP payloads carry a set of integers
// (RDB_TYPE_SET_INTSET). MemberSet keeps its integers as int64; this writes the bytes
// Redis's intset would hold for them and reads and checks Redis's.
//
//   [width: u32 LE, 2 / 4 / 8][count: u32 LE][count integers of that width, LE, ascending]
//
// Pure functions: any thread.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"

namespace rc::intset {

// Appends the intset of `ints` (ascending, distinct), in the narrowest width that holds
// them all, as intsetAdd would have grown it.
void Append(std::span<const int64_t> ints, std::string* out);

// Checks the blob as intsetValidateIntegrity(deep) does (a known width, the size its
// count implies, not empty, strictly ascending) and visits its integers in order. False
// when it is malformed or `fn` returns false.
bool ForEach(std::string_view blob, absl::FunctionRef<bool(int64_t)> fn);

}  // namespace rc::intset
