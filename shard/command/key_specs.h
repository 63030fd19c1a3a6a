#pragma once
// Redis 7.0's key specs of a command, read from the generated metadata (command_meta.h):
// where each group of keys starts (an index, or after a keyword), how far it goes (a
// range, or a count argument) and what the command does to those keys (flags). COMMAND
// GETKEYSANDFLAGS reports a key's flags from the spec that finds it. Immutable: any
// thread.

#include <cstddef>
#include <string_view>
#include <vector>

#include "shard/wire/command.h"

namespace rc {

struct KeySpecView {
  std::vector<std::string_view> flags;  // "RW", "access", ... in Redis's order
  // begin_search: a fixed index, or the argument after `keyword`, searched from
  // `startfrom` (negative: from the end, backwards).
  int index = 0;
  std::string_view keyword;
  int startfrom = 0;
  // find_keys: a range (lastkey relative to the first key, -1: the last argument;
  // keystep; limit) or a count at keynumidx (relative to the first key) with the keys
  // from firstkey every keystep.
  bool keynum = false;
  int lastkey = 0;
  int keystep = 1;
  int limit = 0;
  int keynumidx = 0;
  int firstkey = 0;
};

// The specs in `resp3` (a set of maps, as CommandMeta::key_specs holds them).
std::vector<KeySpecView> ParseKeySpecs(std::string_view resp3);

// The key positions `spec` finds in `args` (args[0] is the command's name), as Redis's
// getKeysUsingKeySpecs; false when the spec does not apply to them (its keyword is
// absent, its count is not a number).
bool KeySpecPositions(const KeySpecView& spec, ArgList args, std::vector<size_t>* out);

}  // namespace rc
