#pragma once
// One row per setting: how CONFIG GET prints it and how a file line, a flag or CONFIG SET
// sets it, with Redis's names and error texts.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "shard/server/config.h"

namespace rc {

struct ConfigParam {
  std::string_view name;
  std::function<std::string(const Config&)> get;
  // Returns an empty string on success, else Redis's reason the value is bad.
  std::function<std::string(Config&, std::string_view)> set;
  // CONFIG SET may change it while the server runs.
  bool runtime = true;
};
const std::vector<ConfigParam>& ConfigParams();
// The row for `name` (case-insensitive), or nullptr.
const ConfigParam* FindConfigParam(std::string_view name);

}  // namespace rc
