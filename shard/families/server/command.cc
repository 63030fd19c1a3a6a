// COMMAND: what the command table says about itself, in Redis 7's reply shape, so
// cluster-aware clients find key positions and tools find arity and flags.

#include "shard/command/command.h"

#include <algorithm>

#include "core/glob.h"
#include "core/strings.h"
#include "shard/command/command_meta.h"
#include "shard/command/dispatcher.h"
#include "shard/command/errors.h"

namespace rc {

namespace {

std::vector<std::string_view> FlagNames(uint32_t flags) {
  static const std::pair<CmdFlag, std::string_view> kNames[] = {
      {kCmdWrite, "write"},         {kCmdReadOnly, "readonly"}, {kCmdDenyOom, "denyoom"},
      {kCmdAdmin, "admin"},         {kCmdPubSub, "pubsub"},     {kCmdNoScript, "noscript"},
      {kCmdLoading, "loading"},     {kCmdStale, "stale"},       {kCmdSkipSlowlog, "skip_slowlog"},
      {kCmdFast, "fast"},           {kCmdNoAuth, "no_auth"},    {kCmdNoMulti, "no_multi"},
      {kCmdAllowBusy, "allow_busy"}};
  std::vector<std::string_view> out;
  for (const auto& [f, name] : kNames) {
    if (flags & f) out.push_back(name);
  }
  return out;
}

std::vector<std::string> AclCategories(const CommandSpec& spec) {
  std::vector<std::string> out;
  if (spec.flags & kCmdWrite) out.push_back("@write");
  if (spec.flags & kCmdReadOnly) out.push_back("@read");
  if (spec.flags & kCmdAdmin) {
    out.push_back("@admin");
    out.push_back("@dangerous");
  }
  for (const auto& c : spec.categories) out.push_back(c);
  out.push_back((spec.flags & kCmdFast) ? "@fast" : "@slow");
  // Redis lists them in the order of its category table, whatever the command's order.
  static constexpr std::string_view kOrder[] = {
      "@keyspace",   "@read",        "@write",    "@set",         "@sortedset", "@list",
      "@hash",       "@string",      "@bitmap",   "@hyperloglog", "@geo",       "@stream",
      "@pubsub",     "@admin",       "@fast",     "@slow",        "@blocking",  "@dangerous",
      "@connection", "@transaction", "@scripting"};
  auto rank = [](const std::string& c) {
    return size_t(std::find(std::begin(kOrder), std::end(kOrder), c) - std::begin(kOrder));
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  return out;
}

// Maps and sets as Redis 7.0 types them in RESP3 (RESP2 sees flat arrays).
void KeySpec(const CommandSpec& spec, ReplyBuilder& rb) {
  rb.MapLen(3);
  rb.Bulk("flags");
  rb.SetLen(2);
  if (spec.flags & kCmdWrite) {
    rb.SimpleString("RW");
    rb.SimpleString("update");
  } else {
    rb.SimpleString("RO");
    rb.SimpleString("access");
  }
  rb.Bulk("begin_search");
  rb.MapLen(2);
  rb.Bulk("type");
  rb.Bulk("index");
  rb.Bulk("spec");
  rb.MapLen(1);
  rb.Bulk("index");
  rb.Integer(spec.keys.first);
  rb.Bulk("find_keys");
  rb.MapLen(2);
  rb.Bulk("type");
  rb.Bulk("range");
  rb.Bulk("spec");
  rb.MapLen(3);
  rb.Bulk("lastkey");
  // Relative to the first key, as Redis's range spec counts it.
  rb.Integer(spec.keys.last < 0 ? spec.keys.last : spec.keys.last - spec.keys.first);
  rb.Bulk("keystep");
  rb.Integer(spec.keys.step);
  rb.Bulk("limit");
  rb.Integer(0);
}

// One entry of COMMAND INFO. A container (CONFIG, CLIENT, ...) reports no flags of its own
// and only @slow, as Redis does, unless it runs without a subcommand too (COMMAND); its
// subcommands carry their own flags and categories (CommandSpec::sub_info) or the row's.
void SubEntry(const CommandSpec& spec, size_t i, ReplyBuilder& rb);

void Entry(const CommandSpec& spec, std::string_view name, int arity, bool container,
           ReplyBuilder& rb) {
  rb.ArrayLen(10);
  rb.Bulk(name);
  rb.Integer(arity);
  const bool bare = container && spec.arity != -1;
  auto flags = FlagNames(bare ? 0 : spec.flags);
  if (!container && spec.numkeys_index > 0) flags.push_back("movablekeys");
  rb.SetLen(flags.size());
  for (auto f : flags) rb.SimpleString(f);
  // A container names no keys itself (MEMORY's key is MEMORY USAGE's).
  rb.Integer(container ? 0 : spec.keys.first);
  rb.Integer(container ? 0 : spec.keys.last);
  rb.Integer(container ? 0 : spec.keys.step);
  auto cats = bare ? std::vector<std::string>{"@slow"} : AclCategories(spec);
  rb.SetLen(cats.size());
  for (const auto& c : cats) rb.SimpleString(c);
  // Tips and key specs as Redis documents them; a row without (a command added before
  // rerunning scripts/gen_command_meta.py) gets none and one range spec from its triple.
  const CommandMeta* meta = FindCommandMeta(name);
  if (meta != nullptr) {
    WriteResp3(meta->tips, rb);
    WriteResp3(meta->key_specs, rb);
  } else if (!spec.keys.none() && !container) {
    rb.SetLen(0);
    rb.SetLen(1);
    KeySpec(spec, rb);
  } else {
    rb.SetLen(0);
    rb.SetLen(0);
  }
  if (!container) {
    rb.SetLen(0);
    return;
  }
  rb.ArrayLen(spec.subcommands.size());
  for (size_t i = 0; i < spec.subcommands.size(); ++i) SubEntry(spec, i, rb);
}

// The entry of a container's i-th subcommand, "config|get".
void SubEntry(const CommandSpec& spec, size_t i, ReplyBuilder& rb) {
  const auto& [sub, sub_arity] = spec.subcommands[i];
  if (i >= spec.sub_info.size()) {
    return Entry(spec, StrCat(spec.name, "|", sub), sub_arity, false, rb);
  }
  // A copy with this subcommand's own flags, keys and categories (COMMAND is not hot).
  CommandSpec own = spec;
  own.flags = spec.sub_info[i].flags;
  own.categories = spec.sub_info[i].categories;
  if (spec.sub_info[i].keyless) own.keys = {};
  Entry(own, StrCat(spec.name, "|", sub), sub_arity, false, rb);
}

void CommandInfo(const CommandSpec& spec, ReplyBuilder& rb) {
  Entry(spec, spec.name, spec.arity, !spec.subcommands.empty(), rb);
}

std::vector<const CommandSpec*> Sorted(const CommandTable& table) {
  std::vector<const CommandSpec*> all;
  table.ForEach([&](const CommandSpec& s) { all.push_back(&s); });
  std::sort(all.begin(), all.end(),
            [](const CommandSpec* a, const CommandSpec* b) { return a->name < b->name; });
  return all;
}

void CommandHelp(ReplyBuilder& rb) {
  static const char* kLines[] = {
      "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "(no subcommand)",
      "    Return details about all Redis commands.",
      "COUNT",
      "    Return the total number of commands in this Redis server.",
      "LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN <pattern>)]",
      "    Return a list of all commands in this Redis server.",
      "INFO [<command-name> ...]",
      "    Return details about multiple Redis commands.",
      "DOCS [<command-name> ...]",
      "    Return documentation details about multiple Redis commands.",
      "GETKEYS <full-command>",
      "    Return the keys from a full Redis command.",
      "HELP",
      "    Print this help.",
  };
  rb.ArrayLen(std::size(kLines));
  for (const char* l : kLines) rb.SimpleString(l);
}

void CommandList(CoordCmd& cmd) {
  ReplyBuilder& rb = cmd.reply;
  auto all = Sorted(cmd.table);
  std::vector<const CommandSpec*> keep;
  if (cmd.args.size() == 2) {
    keep = all;
  } else if (cmd.args.size() == 5 && EqualsIgnoreCase(cmd.args[2], "filterby")) {
    std::string_view kind = cmd.args[3], value = cmd.args[4];
    for (const auto* s : all) {
      if (EqualsIgnoreCase(kind, "pattern")) {
        if (GlobMatch(value, s->name, /*nocase=*/true)) keep.push_back(s);
      } else if (EqualsIgnoreCase(kind, "aclcat")) {
        for (const auto& c : AclCategories(*s)) {
          if (EqualsIgnoreCase(std::string_view(c).substr(1), value)) keep.push_back(s);
        }
      } else if (!EqualsIgnoreCase(kind, "module")) {
        return rb.Error(err::kSyntax);
      }
      // No modules: FILTERBY MODULE matches nothing.
    }
  } else {
    return rb.Error(err::kSyntax);
  }
  rb.ArrayLen(keep.size());
  for (const auto* s : keep) rb.Bulk(s->name);
}

// Redis's checks, in its order: the command (a container's subcommand), whether it has
// keys at all, its arity, then the keys of this invocation.
void CommandGetKeys(CoordCmd& cmd) {
  ReplyBuilder& rb = cmd.reply;
  ArgList full = cmd.args.subspan(2);
  const CommandSpec* spec = cmd.table.Find(full[0]);
  if (spec == nullptr) return rb.Error("ERR Invalid command specified");
  int arity = spec->arity;
  bool keyless = spec->keys.none() && spec->numkeys_index <= 0;
  if (!spec->subcommands.empty()) {
    if (full.size() == 1) return rb.Error("ERR The command has no key arguments");
    const int sub = spec->FindSubcommand(full[1]);
    if (sub < 0) return rb.Error("ERR Invalid command specified");
    arity = spec->subcommands[size_t(sub)].second;
    if (size_t(sub) < spec->sub_info.size() && spec->sub_info[size_t(sub)].keyless) {
      keyless = true;
    }
  }
  if (keyless) return rb.Error("ERR The command has no key arguments");
  if (arity >= 0 ? full.size() != size_t(arity) : full.size() < size_t(-arity)) {
    return rb.Error("ERR Invalid number of arguments specified for command");
  }
  std::vector<size_t> keys;
  if (!spec->AllKeyPositions(full, &keys)) {
    return rb.Error("ERR Invalid arguments specified for command");
  }
  rb.ArrayLen(keys.size());
  for (size_t k : keys) rb.Bulk(full[k]);
}

std::string_view DocsOf(std::string_view full_name) {
  const CommandMeta* meta = FindCommandMeta(full_name);
  return meta ? meta->docs : std::string_view();
}

// One COMMAND DOCS entry, as Redis writes it: the full name, then the doc map; a
// container's gains "subcommands" (last, as in Redis) with the subcommands ringcache has.
void DocEntry(const CommandSpec& spec, std::string_view full_name, std::string_view doc,
              ReplyBuilder& rb) {
  rb.Bulk(full_name);
  if (full_name.find('|') != std::string_view::npos || spec.subcommands.empty()) {
    WriteResp3(doc, rb);
    return;
  }
  std::vector<std::pair<std::string, std::string_view>> subs;
  for (const auto& [name, arity] : spec.subcommands) {
    std::string full = StrCat(spec.name, "|", name);
    std::string_view sub_doc = DocsOf(full);
    if (!sub_doc.empty()) subs.emplace_back(std::move(full), sub_doc);
  }
  WriteResp3(doc, rb, /*extra_pairs=*/1);
  rb.Bulk("subcommands");
  rb.MapLen(subs.size());
  for (const auto& [name, sub_doc] : subs) {
    rb.Bulk(name);
    WriteResp3(sub_doc, rb);
  }
}

// Redis's lookup (COMMAND INFO, DOCS): a name, or "container|subcommand"; nullptr for
// unknown ones.
const CommandSpec* LookupSpec(const CommandTable& table, const std::string& full_name) {
  const size_t bar = full_name.find('|');
  const CommandSpec* spec = table.Find(full_name.substr(0, bar));
  if (spec == nullptr || bar == std::string::npos) return spec;
  const std::string_view sub = std::string_view(full_name).substr(bar + 1);
  return sub.find('|') == std::string_view::npos && spec->FindSubcommand(sub) >= 0 ? spec : nullptr;
}

void CommandDocs(CoordCmd& cmd) {
  ReplyBuilder& rb = cmd.reply;
  std::vector<std::pair<const CommandSpec*, std::string>> found;
  if (cmd.args.size() == 2) {
    for (const CommandSpec* s : Sorted(cmd.table)) found.emplace_back(s, s->name);
  } else {
    for (size_t i = 2; i < cmd.args.size(); ++i) {
      std::string name = ToLower(cmd.args[i]);
      const CommandSpec* s = LookupSpec(cmd.table, name);
      if (s != nullptr) found.emplace_back(s, std::move(name));
    }
  }
  // A command Redis does not document (none today) is left out, as an unknown one.
  std::erase_if(found, [](const auto& f) { return DocsOf(f.second).empty(); });
  rb.MapLen(found.size());
  for (const auto& [spec, name] : found) DocEntry(*spec, name, DocsOf(name), rb);
}

void Command(CoordCmd& cmd) {
  ReplyBuilder& rb = cmd.reply;
  if (cmd.args.size() == 1) {
    auto all = Sorted(cmd.table);
    rb.ArrayLen(all.size());
    for (const auto* s : all) CommandInfo(*s, rb);
    return;
  }
  std::string sub = ToLower(cmd.args[1]);
  size_t argc = cmd.args.size();
  if (sub == "count") {
    if (argc != 2) return rb.Error(WrongArityError("command|count"));
    rb.Integer(int64_t(cmd.table.size()));
  } else if (sub == "info") {
    if (argc == 2) {
      auto all = Sorted(cmd.table);
      rb.ArrayLen(all.size());
      for (const auto* s : all) CommandInfo(*s, rb);
      return;
    }
    rb.ArrayLen(argc - 2);
    for (size_t i = 2; i < argc; ++i) {
      // A name, or "container|subcommand" as Redis looks them up.
      const std::string name = ToLower(cmd.args[i]);
      const CommandSpec* s = LookupSpec(cmd.table, name);
      const size_t bar = name.find('|');
      if (s == nullptr) {
        rb.NullBulk();
      } else if (bar == std::string::npos) {
        CommandInfo(*s, rb);
      } else {
        SubEntry(*s, size_t(s->FindSubcommand(std::string_view(name).substr(bar + 1))), rb);
      }
    }
  } else if (sub == "list") {
    CommandList(cmd);
  } else if (sub == "docs") {
    CommandDocs(cmd);
  } else if (sub == "getkeys") {
    if (argc < 4) return rb.Error(WrongArityError("command|getkeys"));
    CommandGetKeys(cmd);
  } else if (sub == "help") {
    if (argc != 2) return rb.Error(WrongArityError("command|help"));
    CommandHelp(rb);
  } else {
    rb.Error(
        StrCat("ERR unknown subcommand '", cmd.args[1].substr(0, 128), "'. Try COMMAND HELP."));
  }
}

}  // namespace

void RegisterCommandCommand(CommandTable& t) {
  t.StartFamily("@connection")
      .Add({.name = "command",
            .arity = -1,
            .flags = kCmdLoading | kCmdStale,
            .on_coord = Command,
            .subcommands = {{"count", 2},
                            {"info", -2},
                            {"list", -2},
                            {"docs", -2},
                            {"getkeys", -4},
                            {"help", 2}}});
}

}  // namespace rc
