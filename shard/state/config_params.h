#pragma once
// One row per setting: how CONFIG GET prints it and how a file line, a flag or CONFIG SET
// sets it, with Redis's names and error texts.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "shard/state/config.h"

namespace rc {

struct ConfigParam {
  std::string_view name;
  std::function<std::string(const Config&)> get;
  // Returns an empty string on success, else Redis's reason the value is bad.
  std::function<std::string(Config&, std::string_view)> set;
  // CONFIG SET may change it while the server runs.
  bool runtime = true;
  // Redis's second name for it (slaveof, zset-max-ziplist-entries): found, matched and
  // shown under either; "" when none.
  std::string_view alias = {};
  // Redis refuses CONFIG SET of it while enable-protected-configs is off (its default).
  bool is_protected = false;
};
const std::vector<ConfigParam>& ConfigParams();
// The row for `name` or its alias (case-insensitive), or nullptr.
const ConfigParam* FindConfigParam(std::string_view name);
// Why `name`, which FindConfigParam does not know, is refused: a Redis setting ringcache
// does not implement, or no setting at all (Redis's words for that).
std::string UnknownSettingError(std::string_view name);
// Which of `p`'s names `spelled` is, as Redis writes it (lower case): the alias when it
// names that, else the name.
std::string_view NameAsCalled(const ConfigParam& p, std::string_view spelled);

}  // namespace rc
