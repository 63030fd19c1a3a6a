#include "shard/scripting/script_flags.h"

#include <cctype>
#include <vector>

#include "core/strings.h"

namespace rc {

uint32_t ScriptFlagNamed(std::string_view name) {
  for (const auto& [n, bit] : kScriptFlagNames) {
    if (EqualsIgnoreCase(n, name)) return bit;
  }
  return 0;
}

bool ParseShebang(std::string_view body, uint32_t* flags, size_t* skip, std::string* error) {
  *flags = kScriptEvalCompat;
  *skip = 0;
  if (body.substr(0, 2) != "#!") return true;
  const size_t end = body.find('\n');
  if (end == std::string_view::npos) {
    *error = "ERR Invalid script shebang";
    return false;
  }
  *skip = end;
  std::vector<std::string_view> parts;
  std::string_view line = body.substr(0, end);
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) parts.push_back(line.substr(start, i - start));
  }
  if (parts.empty() || parts[0] != "#!lua") {
    *error = StrCat("ERR Unexpected engine in script shebang: ",
                    parts.empty() ? std::string_view() : parts[0]);
    return false;
  }
  *flags = 0;
  for (size_t p = 1; p < parts.size(); ++p) {
    if (parts[p].substr(0, 6) != "flags=") {
      *error = StrCat("ERR Unknown lua shebang option: ", parts[p]);
      return false;
    }
    std::string_view list = parts[p].substr(6);
    size_t from = 0;
    while (true) {
      const size_t comma = list.find(',', from);
      std::string_view name = list.substr(
          from, comma == std::string_view::npos ? std::string_view::npos : comma - from);
      bool known = false;
      for (const auto& [n, bit] : kScriptFlagNames) {
        if (n == name) {
          *flags |= bit;
          known = true;
        }
      }
      if (!known && !(name.empty() && list.empty())) {
        *error = StrCat("ERR Unexpected flag in script shebang: ", name);
        return false;
      }
      if (comma == std::string_view::npos) break;
      from = comma + 1;
    }
  }
  return true;
}

}  // namespace rc
