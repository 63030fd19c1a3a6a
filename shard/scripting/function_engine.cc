#include "shard/scripting/function_engine.h"

#include "core/strings.h"
#include "shard/scripting/function_registry.h"
#include "shard/scripting/script_errors.h"
#include "shard/scripting/script_registry.h"

namespace rc {

FunctionEngine::FunctionEngine(ScriptRegistry& scripts, uint32_t shard,
                               std::atomic<int64_t>* vm_bytes)
    : registry_(scripts.functions()),
      lua_(scripts, shard, LuaEngine::Kind::kFunctions, vm_bytes),
      generation_(registry_.generation()) {}

bool FunctionEngine::Make(std::string_view code, absl::FunctionRef<bool(std::string_view)> exists,
                          LibraryPtr* out, std::string* error) {
  LibraryMeta meta;
  if (!ParseLibraryMeta(code, &meta, error)) return false;
  if (exists(meta.name)) {
    *error = StrCat("ERR Library '", meta.name, "' already exists");
    return false;
  }
  std::vector<LuaEngine::RegisteredFunction> functions;
  if (!lua_.LoadLibrary(code.substr(meta.body_offset), false, &functions, error)) return false;
  // Each thread compiles the library again when it first calls one of its functions.
  for (const LuaEngine::RegisteredFunction& f : functions) lua_.Unref(f.ref);
  if (functions.empty()) {
    *error = script_err::kNoFunctions;
    return false;
  }
  auto lib = std::make_shared<Library>();
  lib->id = registry_.NextId();
  lib->name = std::move(meta.name);
  lib->code = std::string(code);
  lib->body_offset = meta.body_offset;
  for (LuaEngine::RegisteredFunction& f : functions) lib->functions.push_back(std::move(f.info));
  *out = std::move(lib);
  return true;
}

void FunctionEngine::Refresh() {
  const uint64_t g = registry_.generation();
  if (g == generation_) return;
  generation_ = g;
  known_.clear();
  bool dropped = false;
  for (auto it = compiled_.begin(); it != compiled_.end();) {
    if (registry_.Live(it->first)) {
      ++it;
      continue;
    }
    for (const LuaEngine::RegisteredFunction& f : it->second.functions) lua_.Unref(f.ref);
    compiled_.erase(it++);
    dropped = true;
  }
  if (dropped) lua_.CollectGarbage();
}

FunctionEngine::Compiled* FunctionEngine::CompiledOf(const Library& lib, std::string* error) {
  if (auto it = compiled_.find(lib.id); it != compiled_.end()) return &it->second;
  Compiled c;
  if (!lua_.LoadLibrary(lib.body(), /*replay=*/true, &c.functions, error)) return nullptr;
  if (c.functions.size() != lib.functions.size()) {
    // The same code registers the same functions on every thread; never seen otherwise.
    for (const LuaEngine::RegisteredFunction& f : c.functions) lua_.Unref(f.ref);
    *error = "ERR Library registered other functions on this thread";
    return nullptr;
  }
  return &compiled_.emplace(lib.id, std::move(c)).first->second;
}

bool FunctionEngine::Find(std::string_view name, Function* out, std::string* error) {
  Refresh();
  const std::string lowered = ToLower(name);
  if (auto it = known_.find(lowered); it != known_.end()) {
    *out = Function{it->second.script, it->second.name};
    return true;
  }
  FunctionRegistry::Found found;
  if (!registry_.Find(lowered, &found)) {
    *error = script_err::kFunctionNotFound;
    return false;
  }
  Compiled* c = CompiledOf(*found.lib, error);
  if (c == nullptr) return false;
  const LuaEngine::RegisteredFunction& f = c->functions[found.index];
  const Known known{LuaEngine::Script{f.ref, f.info.flags}, f.info.name};
  known_.emplace(lowered, known);
  *out = Function{known.script, known.name};
  return true;
}

}  // namespace rc
