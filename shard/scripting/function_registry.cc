#include "shard/scripting/function_registry.h"

#include "core/strings.h"

namespace rc {

bool FunctionRegistry::Exists(std::string_view library) const {
  std::lock_guard<std::mutex> lock(mu_);
  return libraries_.find(library) != libraries_.end();
}

void FunctionRegistry::Link(const LibraryPtr& lib) {
  for (size_t i = 0; i < lib->functions.size(); ++i) {
    // A library may register f and F; FCALL finds the first, as Redis's dict keeps it.
    functions_.try_emplace(ToLower(lib->functions[i].name), Found{lib, i});
  }
  bytes_ += lib->MemoryBytes();
  libraries_[lib->name] = lib;
}

void FunctionRegistry::Unlink(const Library& lib) {
  for (const FunctionInfo& f : lib.functions) {
    auto it = functions_.find(ToLower(f.name));
    if (it != functions_.end() && it->second.lib.get() == &lib) functions_.erase(it);
  }
  bytes_ -= lib.MemoryBytes();
  libraries_.erase(lib.name);
}

bool FunctionRegistry::Add(LibraryPtr lib, bool replace, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  auto old = libraries_.find(lib->name);
  if (old != libraries_.end() && !replace) {
    *error = StrCat("ERR Library '", lib->name, "' already exists");
    return false;
  }
  const Library* replaced = old != libraries_.end() ? old->second.get() : nullptr;
  for (const FunctionInfo& f : lib->functions) {
    auto it = functions_.find(ToLower(f.name));
    if (it != functions_.end() && it->second.lib.get() != replaced) {
      *error = StrCat("ERR Function ", f.name, " already exists");
      return false;
    }
  }
  if (replaced != nullptr) Unlink(*LibraryPtr(old->second));
  Link(lib);
  Changed();
  return true;
}

bool FunctionRegistry::Delete(std::string_view library) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = libraries_.find(library);
  if (it == libraries_.end()) return false;
  Unlink(*LibraryPtr(it->second));
  Changed();
  return true;
}

void FunctionRegistry::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  libraries_.clear();
  functions_.clear();
  bytes_ = 0;
  Changed();
}

bool FunctionRegistry::Restore(const std::vector<LibraryPtr>& libs, RestorePolicy policy,
                               std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  if (policy == RestorePolicy::kFlush) {
    libraries_.clear();
    functions_.clear();
    bytes_ = 0;
  } else {
    // Redis's libraryJoin: every name clash is an error unless replacing, then no function
    // of the payload may belong to a library that stays.
    std::vector<const Library*> replaced;
    for (const LibraryPtr& lib : libs) {
      auto it = libraries_.find(lib->name);
      if (it == libraries_.end()) continue;
      if (policy != RestorePolicy::kReplace) {
        *error = StrCat("ERR Library ", lib->name, " already exists");
        return false;
      }
      replaced.push_back(it->second.get());
    }
    for (const LibraryPtr& lib : libs) {
      for (const FunctionInfo& f : lib->functions) {
        auto it = functions_.find(ToLower(f.name));
        if (it == functions_.end()) continue;
        bool goes = false;
        for (const Library* r : replaced) goes |= it->second.lib.get() == r;
        if (!goes) {
          *error = StrCat("ERR Function ", f.name, " already exists");
          return false;
        }
      }
    }
    for (const LibraryPtr& lib : libs) {
      auto it = libraries_.find(lib->name);
      if (it != libraries_.end()) Unlink(*LibraryPtr(it->second));
    }
  }
  for (const LibraryPtr& lib : libs) Link(lib);
  Changed();
  return true;
}

bool FunctionRegistry::Find(std::string_view lowered, Found* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = functions_.find(AbslView(lowered));
  if (it == functions_.end()) return false;
  *out = it->second;
  return true;
}

bool FunctionRegistry::Live(uint64_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [name, lib] : libraries_) {
    if (lib->id == id) return true;
  }
  return false;
}

std::vector<LibraryPtr> FunctionRegistry::Libraries() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<LibraryPtr> out;
  out.reserve(libraries_.size());
  for (const auto& [name, lib] : libraries_) out.push_back(lib);
  return out;
}

size_t FunctionRegistry::library_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return libraries_.size();
}

size_t FunctionRegistry::function_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return functions_.size();
}

size_t FunctionRegistry::memory_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

}  // namespace rc
