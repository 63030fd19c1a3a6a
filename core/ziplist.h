#pragma once
// Redis's older packed blobs, which RDB files and DUMP payloads of earlier Redis versions
// carry and Redis 7.0 still loads (converting them as it reads): the ziplist (lists, small
// hashes and sorted sets before 7.0; the nodes of RDB_TYPE_LIST_QUICKLIST) and the
// zipmap (small hashes before 2.6). Read only: nothing writes them any more.
//
//   ziplist: [bytes: u32 LE][tail offset: u32 LE][count: u16 LE, 65535 = more][entries][0xFF]
//            entry = prevlen (1 byte, or 0xFE + u32 LE) ‖ encoding (+ length) ‖ data
//   zipmap:  [count: 1 byte, 254 = more] then per pair
//            [len][field][len][free: 1 byte][value][free bytes], ending 0xFF;
//            len = 1 byte below 254, or 254 + u32 LE
//
// Pure functions: any thread.

#include <string_view>

#include "absl/functional/function_ref.h"
#include "core/listpack.h"

namespace rc {

namespace ziplist {
// Checks the whole ziplist as ziplistValidateIntegrity(deep) does (header, tail offset,
// every entry's prevlen and encoding within bounds, terminator, count) and visits its
// elements in order. False when it is malformed or `fn` returns false.
bool ForEach(std::string_view zl, absl::FunctionRef<bool(const listpack::Element&)> fn);
}  // namespace ziplist

namespace zipmap {
// Checks the zipmap as zipmapValidateIntegrity(deep) does (bounds, terminator last, not
// empty, count) and visits its pairs in order. False when it is malformed or `fn`
// returns false.
bool ForEach(std::string_view zm,
             absl::FunctionRef<bool(std::string_view field, std::string_view value)> fn);
}  // namespace zipmap

}  // namespace rc
