#pragma once
// Redis settings for features ringcache lacks, taken only at the value that describes
// ringcache as it is (Redis's default), so that a redis.conf naming them loads and no
// other value is accepted and ignored. The rows are generated from redis-server
// (scripts/gen_default_only_settings.py); config_params.cc turns each into a setting.

#include <string_view>
#include <vector>

namespace rc {

struct DefaultOnlySetting {
  std::string_view name;
  std::string_view value;  // as Redis's CONFIG GET shows its default
  bool runtime;            // Redis's CONFIG SET may change it (to this value, here)
  std::string_view why;    // what ringcache lacks, for the error
};

const std::vector<DefaultOnlySetting>& DefaultOnlySettings();
// Every setting Redis 7.0 has (CONFIG GET *), aliases included, in lower case.
const std::vector<std::string_view>& RedisSettingNames();

// Whether `value` says the same as `setting.value`: word by word, yes/no and enumerations
// in any case, numbers and memory sizes by what they amount to ("1mb" is 1048576).
bool MeansDefault(const DefaultOnlySetting& setting, std::string_view value);

}  // namespace rc
