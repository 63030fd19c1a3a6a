#pragma once
// The flags a script declares in its shebang (`#!lua flags=no-writes,allow-oom`) or a
// function in redis.register_function (`flags={'no-writes'}`): Redis's SCRIPT_FLAG_*, their
// names in Redis's order (FUNCTION LIST lists them so), and EVAL's shebang line. Pure
// functions: any thread.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace rc {

enum ScriptFlag : uint32_t {
  kScriptNoWrites = 1 << 0,
  kScriptAllowOom = 1 << 1,
  kScriptAllowStale = 1 << 2,
  kScriptNoCluster = 1 << 3,
  kScriptAllowCrossSlot = 1 << 4,
  // No shebang: Redis 7.0's compatibility mode for scripts written before flags existed.
  kScriptEvalCompat = 1 << 5,
};

// Redis's scripts_flags_def.
inline constexpr std::pair<std::string_view, uint32_t> kScriptFlagNames[] = {
    {"no-writes", kScriptNoWrites},
    {"allow-oom", kScriptAllowOom},
    {"allow-stale", kScriptAllowStale},
    {"no-cluster", kScriptNoCluster},
    {"allow-cross-slot-keys", kScriptAllowCrossSlot}};

// The flag named `name` (case-insensitive, as register_function compares), or 0.
uint32_t ScriptFlagNamed(std::string_view name);

// Parses a shebang line at the start of an EVAL `body`: its flags and the length to skip
// (the line without its newline, so line numbers stay). False with Redis's error text.
bool ParseShebang(std::string_view body, uint32_t* flags, size_t* skip, std::string* error);

}  // namespace rc
