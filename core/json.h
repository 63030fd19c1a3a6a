#pragma once
// A small JSON reader for configuration files (the cluster slot map): objects, arrays,
// strings, integers, true/false/null. Numbers with a fraction or exponent, and strings
// with \u escapes beyond ASCII, are refused: no setting needs them.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rc {

struct JsonValue {
  enum class Kind { kNull, kBool, kInt, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  int64_t integer = 0;
  std::string string;
  std::vector<JsonValue> array;
  // Keys in file order are not kept: settings never depend on it.
  std::map<std::string, JsonValue, std::less<>> object;

  bool is(Kind k) const { return kind == k; }
  // The member `name` of an object, or nullptr.
  const JsonValue* Find(std::string_view name) const {
    auto it = object.find(name);
    return it == object.end() ? nullptr : &it->second;
  }
};

// Parses `text` (one value, whitespace around it allowed) into *out; on failure returns
// false and sets *error to what was wrong and where ("line 3: expected ','").
bool ParseJson(std::string_view text, JsonValue* out, std::string* error);

}  // namespace rc
