#pragma once
// A library of functions (FUNCTION LOAD): its code, the metadata line it starts with
// (`#!lua name=mylib`), and the functions its code registers. A Library is immutable once
// made and shared between the server-wide FunctionRegistry and the threads that compiled
// it, so any thread may read one.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rc {

// What redis.register_function declared of one function.
struct FunctionInfo {
  std::string name;  // as registered; FCALL finds it in any case
  std::string description;
  bool has_description = false;
  uint32_t flags = 0;  // ScriptFlag bits (script_flags.h)
};

struct Library {
  // Unique for each library made: threads key their compiled copies by it, so a library
  // replaced under the same name is never mistaken for the old one.
  uint64_t id = 0;
  std::string name;
  std::string code;  // the whole code, metadata line included (FUNCTION LIST, DUMP)
  // Where the Lua source starts: the metadata line's newline, so line numbers count it.
  size_t body_offset = 0;
  std::vector<FunctionInfo> functions;  // in the order the code registered them

  std::string_view body() const { return std::string_view(code).substr(body_offset); }
  // What the library holds, for INFO's used_memory_functions.
  size_t MemoryBytes() const;
};

using LibraryPtr = std::shared_ptr<const Library>;

// The metadata line of a library's code.
struct LibraryMeta {
  std::string engine;  // after "#!"
  std::string name;
  size_t body_offset = 0;
};

// Redis's functionExtractLibMetaData, then its name and engine checks
// (functionsCreateWithLibraryCtx), in Redis's order. False with the error text.
bool ParseLibraryMeta(std::string_view code, LibraryMeta* out, std::string* error);

// Library and function names: letters, digits and '_', at least one.
bool ValidFunctionName(std::string_view name);

}  // namespace rc
