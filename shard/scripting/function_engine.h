#pragma once
// One worker thread's functions: its Lua state for function libraries, and the libraries
// it compiled there, by Library::id. Owner thread only.
//
//   FCALL f on this thread ─▶ Find(f): generation unchanged and f looked up before? it
//     ─▶ else FunctionRegistry::Find(f) ─▶ its library compiled here already? else its code
//        runs here now in FUNCTION LOAD's environment (LuaEngine::LoadLibrary), and the
//        callbacks it registers are kept by library id
//   a new generation (a library added, replaced, deleted, flushed, restored) ─▶ the names
//     looked up are forgotten, and libraries no longer in the registry are dropped
//
// So a library loaded on any thread runs on every thread from its next FCALL, and one
// deleted or replaced is never run again once the registry changed.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/functional/function_ref.h"
#include "shard/scripting/function_library.h"
#include "shard/scripting/lua_engine.h"

namespace rc {

class FunctionRegistry;

class FunctionEngine {
 public:
  FunctionEngine(ScriptRegistry& scripts, uint32_t shard, std::atomic<int64_t>* vm_bytes);

  LuaEngine& lua() { return lua_; }

  // A function ready to run here: its callback and flags, and its name as registered
  // (what errors name; valid until this thread's next Find or Make).
  struct Function {
    LuaEngine::Script script;
    std::string_view name;
  };
  // FCALL: the function `name`, in any case. False with the error: "Function not found",
  // or what compiling its library here failed with.
  bool Find(std::string_view name, Function* out, std::string* error);

  // FUNCTION LOAD / RESTORE: checks `code` as Redis does before anything changes (its
  // metadata line, then its code run in the load environment here) and makes the Library
  // with a fresh id. `exists` tells whether a library of that name is there and may not
  // be replaced: checked right after the metadata, as Redis orders its errors. False with
  // the error.
  bool Make(std::string_view code, absl::FunctionRef<bool(std::string_view)> exists,
            LibraryPtr* out, std::string* error);

 private:
  struct Compiled {
    std::vector<LuaEngine::RegisteredFunction> functions;  // in the library's order
  };
  struct Known {
    LuaEngine::Script script;
    std::string_view name;  // in the Compiled entry's FunctionInfo
  };

  // Compiled copies of libraries the registry no longer has are dropped.
  void Refresh();
  // The compiled copy of `lib`, compiled now if needed; null with the error.
  Compiled* CompiledOf(const Library& lib, std::string* error);

  FunctionRegistry& registry_;
  LuaEngine lua_;
  uint64_t generation_ = 0;
  // Stable addresses: Known::name views their names.
  absl::node_hash_map<uint64_t, Compiled> compiled_;
  absl::flat_hash_map<std::string, Known> known_;  // by lowered name, this generation
};

}  // namespace rc
