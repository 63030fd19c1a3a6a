#include "shard/scripting/function_library.h"

#include "core/split_args.h"
#include "core/strings.h"
#include "shard/scripting/script_errors.h"

namespace rc {

size_t Library::MemoryBytes() const {
  size_t n = sizeof(Library) + name.capacity() + code.capacity();
  for (const FunctionInfo& f : functions) {
    n += sizeof(FunctionInfo) + f.name.capacity() + f.description.capacity();
  }
  return n;
}

bool ValidFunctionName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

bool ParseLibraryMeta(std::string_view code, LibraryMeta* out, std::string* error) {
  if (code.substr(0, 2) != "#!") {
    *error = "ERR Missing library metadata";
    return false;
  }
  const size_t end = code.find('\n');
  if (end == std::string_view::npos) {
    *error = "ERR Invalid library metadata";
    return false;
  }
  std::optional<std::vector<std::string>> parts = SplitArgs(code.substr(0, end));
  if (!parts || parts->empty()) {
    *error = "ERR Invalid library metadata";
    return false;
  }
  out->engine = (*parts)[0].substr(2);
  bool named = false;
  for (size_t i = 1; i < parts->size(); ++i) {
    std::string_view part = (*parts)[i];
    if (!EqualsIgnoreCase(part.substr(0, 5), "name=")) {
      *error = StrCat("ERR Invalid metadata value given: ", part);
      return false;
    }
    if (named) {
      *error = "ERR Invalid metadata value, name argument was given multiple times";
      return false;
    }
    out->name = std::string(part.substr(5));
    named = true;
  }
  if (!named) {
    *error = "ERR Library name was not given";
    return false;
  }
  if (!ValidFunctionName(out->name)) {
    *error = script_err::kBadLibraryName;
    return false;
  }
  if (!EqualsIgnoreCase(out->engine, "lua")) {
    *error = StrCat("ERR Engine '", out->engine, "' not found");
    return false;
  }
  out->body_offset = end;
  return true;
}

}  // namespace rc
