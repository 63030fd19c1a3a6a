#include "shard/wire/command.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/strings.h"

namespace rc {

bool CommandSpec::AllKeyPositions(ArgList args, std::vector<size_t>* out) const {
  out->clear();
  if (find_keys != nullptr) return find_keys(args, out);
  const KeySpan span = KeysIn(args.size());
  for (size_t i = span.first; i <= span.last; i += span.step) out->push_back(i);
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

KeySpan CommandSpec::CountedKeysIn(ArgList args) const {
  const size_t at = size_t(numkeys_index);
  if (at >= args.size()) return {};
  int64_t n = 0;
  std::string_view s = args[at];
  if (s.empty() || s.size() > 10) return {};
  for (char c : s) {
    if (c < '0' || c > '9') return {};
    n = n * 10 + (c - '0');
  }
  if (n < 1 || n > int64_t(args.size() - at - 1)) return {};
  return {uint32_t(at + 1), uint32_t(at + size_t(n)), 1};
}

std::vector<std::string_view> CommandSpec::KeysOf(ArgList args) const {
  std::vector<std::string_view> out;
  const KeySpan span = KeysFor(args);
  for (size_t i = span.first; i <= span.last; i += span.step) {
    out.push_back(args[i]);
  }
  return out;
}

void CommandTable::Family::Add(CommandSpec spec) {
  if (!category_.empty()) spec.categories.insert(spec.categories.begin(), category_);
  table_.Add(std::move(spec));
}

void CommandTable::CheckRoutable(const CommandSpec& spec) {
  const bool multi_key = !spec.keys.none() && spec.keys.last != spec.keys.first;
  // A container without a handler of its own is fine when its arity refuses a bare call.
  const bool runs_bare = spec.subcommands.empty() || spec.ArityOk(1);
  const char* why = nullptr;
  if (runs_bare && spec.on_shard == nullptr && spec.on_coord == nullptr) {
    why = "has no handler";
  } else if (multi_key && spec.on_coord == nullptr) {
    why = "has keys that may span shards but no coordinator handler";
  } else if (!spec.keys.none() && spec.keys.step <= 0) {
    why = "has keys but no step";
  } else if (runs_bare && spec.on_coord == nullptr &&
             (spec.keys.none() || std::abs(spec.arity) <= spec.keys.first)) {
    why = "may be called without a key but has no coordinator handler";
  }
  if (why != nullptr) {
    std::fprintf(stderr, "command %s %s\n", spec.full_name.c_str(), why);
    std::abort();
  }
}

void CommandTable::Add(CommandSpec spec) {
  spec.full_name = spec.name;
  CheckRoutable(spec);
  for (CommandSpec& sub : spec.subcommands) {
    sub.full_name = StrCat(spec.name, "|", sub.name);
    // A subcommand is in its container's categories, and in its own.
    sub.categories.insert(sub.categories.begin(), spec.categories.begin(), spec.categories.end());
    if (!sub.subcommands.empty() || spec.FindSubcommand(sub.name) != &sub) {
      std::fprintf(stderr, "subcommand %s nests or is registered twice\n", sub.full_name.c_str());
      std::abort();
    }
    CheckRoutable(sub);
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

const CommandSpec* CommandSpec::FindSubcommand(std::string_view sub) const {
  for (const CommandSpec& s : subcommands) {
    if (EqualsIgnoreCase(s.name, sub)) return &s;
  }
  return nullptr;
}

void CommandTable::AssignStatIds() {
  stat_names_.clear();
  for (CommandSpec& spec : specs_) {
    spec.stat_id = uint32_t(stat_names_.size());
    stat_names_.push_back(spec.full_name);
    for (CommandSpec& sub : spec.subcommands) {
      sub.stat_id = uint32_t(stat_names_.size());
      stat_names_.push_back(sub.full_name);
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
