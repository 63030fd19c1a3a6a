#include "shard/command/command.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/strings.h"

namespace rc {

void CommandSpec::KeyPositions(size_t argc, std::vector<size_t>* out) const {
  out->clear();
  if (keys.none()) return;
  int last = keys.last < 0 ? int(argc) + keys.last : keys.last;
  if (last >= int(argc)) last = int(argc) - 1;
  for (int i = keys.first; i <= last; i += keys.step) out->push_back(size_t(i));
}

bool CommandSpec::AllKeyPositions(ArgList args, std::vector<size_t>* out) const {
  KeyPositions(args.size(), out);
  if (numkeys_index <= 0 || size_t(numkeys_index) >= args.size()) return !out->empty();
  // Read as Redis reads it here (atoi): leading digits count, anything after is ignored.
  std::string_view s = args[size_t(numkeys_index)];
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  bool negative = i < s.size() && s[i] == '-';
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  int64_t n = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9' && n <= INT32_MAX; ++i) {
    n = n * 10 + (s[i] - '0');
  }
  const size_t first = size_t(numkeys_index) + 1;
  if (negative || n < 1 || n > int64_t(args.size() - first)) {
    out->clear();
    return false;
  }
  for (size_t k = 0; k < size_t(n); ++k) out->push_back(first + k);
  return true;
}

size_t CommandTable::Slot(std::string_view name) {
  // FNV-1a over bytes with the ASCII case bit set: "GET" and "get" land together.
  uint32_t h = 2166136261u;
  for (char c : name) h = (h ^ (uint8_t(c) | 0x20)) * 16777619u;
  return h & (kSlots - 1);
}

std::string CommandSpec::FullName(ArgList args) const {
  if (subcommands.empty() || args.size() < 2) return name;
  return StrCat(name, "|", ToLower(args[1]));
}

std::vector<std::string_view> CommandSpec::KeysOf(ArgList args) const {
  std::vector<size_t> positions;
  KeyPositions(args.size(), &positions);
  std::vector<std::string_view> keys;
  keys.reserve(positions.size());
  for (size_t p : positions) keys.push_back(args[p]);
  return keys;
}

void CommandTable::Family::Add(CommandSpec spec) {
  if (!category_.empty()) spec.categories.insert(spec.categories.begin(), category_);
  table_.Add(std::move(spec));
}

void CommandTable::Add(CommandSpec spec) {
  bool multi_key = !spec.keys.none() && spec.keys.last != spec.keys.first;
  if ((spec.on_shard == nullptr && spec.on_coord == nullptr) ||
      (multi_key && spec.on_coord == nullptr)) {
    std::fprintf(stderr, "command %s has no handler able to route it\n", spec.name.c_str());
    std::abort();
  }
  if (Find(spec.name) != nullptr || specs_.size() * 2 >= kSlots) {
    std::fprintf(stderr, "command %s registered twice, or the table is full\n", spec.name.c_str());
    std::abort();
  }
  specs_.push_back(std::move(spec));
  size_t i = Slot(specs_.back().name);
  while (slots_[i] != nullptr) i = (i + 1) & (kSlots - 1);
  slots_[i] = &specs_.back();
}

const CommandSpec* CommandTable::Find(std::string_view name) const {
  for (size_t i = Slot(name);; i = (i + 1) & (kSlots - 1)) {
    const CommandSpec* s = slots_[i];
    if (s == nullptr) return nullptr;
    if (EqualsIgnoreCase(s->name, name)) return s;
  }
}

int CommandSpec::FindSubcommand(std::string_view sub) const {
  for (size_t i = 0; i < subcommands.size(); ++i) {
    if (EqualsIgnoreCase(subcommands[i].first, sub)) return int(i);
  }
  return -1;
}

void CommandTable::AssignStatIds() {
  stat_names_.clear();
  for (CommandSpec& spec : specs_) {
    spec.stat_id = uint32_t(stat_names_.size());
    stat_names_.push_back(spec.name);
    spec.sub_stat_ids.clear();
    for (const auto& sub : spec.subcommands) {
      spec.sub_stat_ids.push_back(uint32_t(stat_names_.size()));
      stat_names_.push_back(StrCat(spec.name, "|", sub.first));
    }
  }
}

int64_t CommandTable::FindStatId(std::string_view full_name) const {
  for (size_t i = 0; i < stat_names_.size(); ++i) {
    if (EqualsIgnoreCase(stat_names_[i], full_name)) return int64_t(i);
  }
  return -1;
}

}  // namespace rc
