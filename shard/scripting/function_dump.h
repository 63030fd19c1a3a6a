#pragma once
// FUNCTION DUMP's payload, byte-compatible with Redis 7.0's: each library as the RDB
// opcode FUNCTION2 and its code as an RDB string, then the RDB version (10) and a CRC-64
// (core/rdb.h). Payloads from redis-server restore here and the other way round. Pure
// functions: any thread.

#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "shard/scripting/function_library.h"

namespace rc {

std::string DumpLibraries(const std::vector<LibraryPtr>& libraries);

// Hands `each` the code of every library in a FUNCTION RESTORE payload, in order, as
// Redis creates each as soon as it is read. False with Redis's error (a wrong footer, an
// item that is not a library, a string cut short) or the one `each` failed with.
// Libraries of the pre-GA format (Redis 7.0's release candidates) get their metadata line
// back, as Redis gives it them.
bool UndumpLibraries(std::string_view payload,
                     absl::FunctionRef<bool(std::string_view code, std::string* error)> each,
                     std::string* error);

}  // namespace rc
