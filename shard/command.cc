#include "shard/command.h"

#include <cstdio>
#include <cstdlib>

#include "core/strings.h"

namespace rc {

void CommandSpec::KeyPositions(size_t argc, std::vector<size_t>* out) const {
  out->clear();
  if (first_key <= 0) return;
  int last = last_key < 0 ? int(argc) + last_key : last_key;
  if (last >= int(argc)) last = int(argc) - 1;
  for (int i = first_key; i <= last; i += step) out->push_back(size_t(i));
}

void CommandTable::Add(CommandSpec spec) {
  bool multi_key = spec.first_key > 0 && spec.last_key != spec.first_key;
  if ((spec.on_shard == nullptr && spec.on_coord == nullptr) ||
      (multi_key && spec.on_coord == nullptr) ||
      (spec.first_key > 0 && spec.on_shard == nullptr && spec.on_coord == nullptr)) {
    std::fprintf(stderr, "command %s has no handler able to route it\n", spec.name.c_str());
    std::abort();
  }
  std::string name = spec.name;
  if (!by_name_.emplace(name, std::move(spec)).second) {
    std::fprintf(stderr, "command %s registered twice\n", name.c_str());
    std::abort();
  }
}

const CommandSpec* CommandTable::Find(std::string_view name) const {
  char buf[32];
  if (name.size() >= sizeof(buf)) return nullptr;
  for (size_t i = 0; i < name.size(); ++i) buf[i] = AsciiLower(name[i]);
  auto it = by_name_.find(absl::string_view(buf, name.size()));
  return it == by_name_.end() ? nullptr : &it->second;
}

CommandTable BuildCommandTable() {
  CommandTable table;
  RegisterStringCommands(table);
  RegisterKeyspaceCommands(table);
  RegisterConnectionCommands(table);
  RegisterServerCommands(table);
  return table;
}

}  // namespace rc
