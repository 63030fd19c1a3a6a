#pragma once
// The libraries of a FUNCTION RESTORE payload or an RDB file, made into a set of their
// own before they join the server's, as Redis does: within the set, a library name or a
// function name may appear once. Runs on the thread whose engine compiles.

#include <string>
#include <string_view>
#include <vector>

#include "shard/scripting/function_engine.h"
#include "shard/scripting/function_library.h"

namespace rc {

// Compiles `code` and adds it to `libs`; false with Redis's error.
bool AddToRestoreSet(FunctionEngine& engine, std::string_view code, std::vector<LibraryPtr>* libs,
                     std::string* error);

}  // namespace rc
