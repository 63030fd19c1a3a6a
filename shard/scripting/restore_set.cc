#include "shard/scripting/restore_set.h"

#include "core/strings.h"

namespace rc {

bool AddToRestoreSet(FunctionEngine& engine, std::string_view code, std::vector<LibraryPtr>* libs,
                     std::string* error) {
  auto in_set = [libs](std::string_view name) {
    for (const LibraryPtr& lib : *libs) {
      if (lib->name == name) return true;
    }
    return false;
  };
  LibraryPtr lib;
  if (!engine.Make(code, in_set, &lib, error)) return false;
  for (const FunctionInfo& f : lib->functions) {
    for (const LibraryPtr& other : *libs) {
      for (const FunctionInfo& g : other->functions) {
        if (EqualsIgnoreCase(f.name, g.name)) {
          *error = StrCat("ERR Function ", f.name, " already exists");
          return false;
        }
      }
    }
  }
  libs->push_back(std::move(lib));
  return true;
}

}  // namespace rc
