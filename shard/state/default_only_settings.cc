#include "shard/state/default_only_settings.h"

#include "core/numbers.h"
#include "core/split_args.h"
#include "core/strings.h"

namespace rc {

bool MeansDefault(const DefaultOnlySetting& setting, std::string_view value) {
  auto given = SplitArgs(value);
  auto wanted = SplitArgs(setting.value);
  if (!given || !wanted || given->size() != wanted->size()) return false;
  for (size_t i = 0; i < given->size(); ++i) {
    const std::string& g = (*given)[i];
    const std::string& w = (*wanted)[i];
    if (EqualsIgnoreCase(g, w)) continue;
    int64_t a = 0, b = 0;
    if (!ParseMemory(g, &a) || !ParseMemory(w, &b) || a != b) return false;
  }
  return true;
}

}  // namespace rc
