#pragma once
// A look ahead at the requests a connection has buffered but not parsed yet: the second
// argument of each (the first key of a keyed command), so the shard can hint its table
// about the lookups coming (EntryTable::Prefetch) before it runs them one by one.
//
// Only well-formed, complete multibulk requests are read; the look stops at anything
// else (inline requests, a partial one, a malformed header), which RespParser then
// handles, errors included. What it returns is a hint and must not be trusted further.

#include <cstddef>
#include <string_view>

namespace rc::net {

// Up to `max` views into `buf`, one per complete request at its front that has at least
// two arguments; *end is the number of bytes of the requests looked at.
size_t PeekSecondArgs(std::string_view buf, std::string_view* out, size_t max, size_t* end);

}  // namespace rc::net
