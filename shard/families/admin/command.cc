// COMMAND: what the command table says about itself, in Redis 7's reply shape, so
// cluster-aware clients find key positions and tools find arity and flags.

#include "shard/wire/command.h"

#include <algorithm>

#include "core/glob.h"
#include "core/strings.h"
#include "shard/command/command_meta.h"
#include "shard/command/dispatcher.h"
#include "shard/command/errors.h"
#include "shard/command/key_specs.h"

namespace rc {

namespace {

std::vector<std::string_view> FlagNames(uint32_t flags) {
  static const std::pair<CmdFlag, std::string_view> kNames[] = {
      {kCmdWrite, "write"},
      {kCmdReadOnly, "readonly"},
      {kCmdDenyOom, "denyoom"},
      {kCmdAdmin, "admin"},
      {kCmdPubSub, "pubsub"},
      {kCmdNoScript, "noscript"},
      {kCmdBlocking, "blocking"},
      {kCmdLoading, "loading"},
      {kCmdStale, "stale"},
      {kCmdSkipMonitor, "skip_monitor"},
      {kCmdSkipSlowlog, "skip_slowlog"},
      {kCmdAsking, "asking"},
      {kCmdFast, "fast"},
      {kCmdNoAuth, "no_auth"},
      {kCmdNoMandatoryKeys, "no_mandatory_keys"},
      {kCmdNoAsyncLoading, "no_async_loading"},
      {kCmdNoMulti, "no_multi"},
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
  // As Redis's setImplicitACLCategories: read-only scripts (EVAL_RO) are not @read.
  const bool scripting = std::find(spec.categories.begin(), spec.categories.end(), "@scripting") !=
                         spec.categories.end();
  if ((spec.flags & kCmdReadOnly) && !scripting) out.push_back("@read");
  if (spec.flags & kCmdAdmin) {
    out.push_back("@admin");
    out.push_back("@dangerous");
  }
  if (spec.flags & kCmdPubSub) out.push_back("@pubsub");
  for (const auto& c : spec.categories) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
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

// A container reports only @slow, as Redis does, unless it runs without a subcommand
// too (COMMAND).
std::vector<std::string> ShownCategories(const CommandSpec& spec) {
  const bool bare = !spec.subcommands.empty() && spec.arity != -1;
  return bare ? std::vector<std::string>{"@slow"} : AclCategories(spec);
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

// One entry of COMMAND INFO: a command's or a subcommand's ("config|get"). A container
// (CONFIG, CLIENT, ...) reports no flags of its own and only @slow, as Redis does, unless
// it runs without a subcommand too (COMMAND), and then its subcommands' entries.
void SpecEntry(const CommandSpec& spec, ReplyBuilder& rb) {
  const bool container = !spec.subcommands.empty();
  rb.ArrayLen(10);
  rb.Bulk(spec.full_name);
  rb.Integer(spec.arity);
  const bool bare = container && spec.arity != -1;
  auto flags = FlagNames(bare ? 0 : spec.flags);
  if (spec.numkeys_index > 0 || (spec.flags & kCmdMovableKeys)) flags.push_back("movablekeys");
  rb.SetLen(flags.size());
  for (auto f : flags) rb.SimpleString(f);
  rb.Integer(spec.keys.first);
  rb.Integer(spec.keys.last);
  rb.Integer(spec.keys.step);
  auto cats = ShownCategories(spec);
  rb.SetLen(cats.size());
  for (const auto& c : cats) rb.SimpleString(c);
  // Tips and key specs as Redis documents them; a row without (a command added before
  // rerunning scripts/gen_command_meta.py) gets none and one range spec from its triple.
  const CommandMeta* meta = FindCommandMeta(spec.full_name);
  if (meta != nullptr) {
    WriteResp3(meta->tips, rb);
    WriteResp3(meta->key_specs, rb);
  } else if (!spec.keys.none()) {
    rb.SetLen(0);
    rb.SetLen(1);
    KeySpec(spec, rb);
  } else {
    rb.SetLen(0);
    rb.SetLen(0);
  }
  // As Redis types it: an empty set for a command, an array of a container's entries.
  if (!container) return rb.SetLen(0);
  rb.ArrayLen(spec.subcommands.size());
  for (const CommandSpec& sub : spec.subcommands) SpecEntry(sub, rb);
}

std::vector<const CommandSpec*> Sorted(const CommandTable& table) {
  std::vector<const CommandSpec*> all;
  table.ForEach([&](const CommandSpec& s) { all.push_back(&s); });
  std::sort(all.begin(), all.end(),
            [](const CommandSpec* a, const CommandSpec* b) { return a->name < b->name; });
  return all;
}

void CommandHelp(CoordCmd& cmd) {
  static const char* kLines[] = {
      "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "(no subcommand)",
      "    Return details about all Redis commands.",
      "COUNT",
      "    Return the total number of commands in this Redis server.",
      "LIST",
      "    Return a list of all commands in this Redis server.",
      "INFO [<command-name> ...]",
      "    Return details about multiple Redis commands.",
      "    If no command names are given, documentation details for all",
      "    commands are returned.",
      "DOCS [<command-name> ...]",
      "    Return documentation details about multiple Redis commands.",
      "    If no command names are given, documentation details for all",
      "    commands are returned.",
      "GETKEYS <full-command>",
      "    Return the keys from a full Redis command.",
      "GETKEYSANDFLAGS <full-command>",
      "    Return the keys and the access flags from a full Redis command.",
      "HELP",
      "    Prints this help.",
  };
  cmd.reply.HelpLines(kLines);
}

// Every command and subcommand ("config|get"), as Redis 7.0 lists them; FILTERBY
// matches the full name (PATTERN) or the row's own categories (ACLCAT).
void ListCommands(CoordCmd& cmd) {
  ReplyBuilder& rb = cmd.reply;
  std::vector<const CommandSpec*> all;
  for (const CommandSpec* s : Sorted(cmd.table)) {
    all.push_back(s);
    for (const CommandSpec& sub : s->subcommands) all.push_back(&sub);
  }
  std::vector<const CommandSpec*> keep;
  if (cmd.args.size() == 2) {
    keep = all;
  } else if (cmd.args.size() == 5 && EqualsIgnoreCase(cmd.args[2], "filterby")) {
    std::string_view kind = cmd.args[3], value = cmd.args[4];
    for (const auto* s : all) {
      if (EqualsIgnoreCase(kind, "pattern")) {
        if (GlobMatch(value, s->full_name, /*nocase=*/true)) keep.push_back(s);
      } else if (EqualsIgnoreCase(kind, "aclcat")) {
        for (const auto& c : ShownCategories(*s)) {
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
  for (const auto* s : keep) rb.Bulk(s->full_name);
}

// Redis's checks, in its order: the command (a container's subcommand), whether it has
// keys at all, its arity, then the keys of this invocation. Null once it has answered:
// an error, or no keys for a command that may name none.
const CommandSpec* FindKeys(CoordCmd& cmd, std::vector<size_t>* keys) {
  ReplyBuilder& rb = cmd.reply;
  ArgList full = cmd.args.subspan(2);
  const CommandSpec* spec = cmd.table.Find(full[0]);
  if (spec == nullptr) return rb.Error("ERR Invalid command specified"), nullptr;
  if (!spec->subcommands.empty()) {
    if (full.size() == 1) return rb.Error("ERR The command has no key arguments"), nullptr;
    spec = spec->FindSubcommand(full[1]);
    if (spec == nullptr) return rb.Error("ERR Invalid command specified"), nullptr;
  }
  if (spec->keys.none() && spec->numkeys_index <= 0) {
    return rb.Error("ERR The command has no key arguments"), nullptr;
  }
  if (!spec->ArityOk(full.size())) {
    return rb.Error("ERR Invalid number of arguments specified for command"), nullptr;
  }
  if (!spec->AllKeyPositions(full, keys)) {
    // EVAL and FCALL may name no key (Redis's no_mandatory_keys): none is their answer.
    if (spec->flags & kCmdNoMandatoryKeys) return rb.ArrayLen(0), nullptr;
    return rb.Error("ERR Invalid arguments specified for command"), nullptr;
  }
  return spec;
}

void GetKeys(CoordCmd& cmd) {
  std::vector<size_t> keys;
  if (FindKeys(cmd, &keys) == nullptr) return;
  ArgList full = cmd.args.subspan(2);
  cmd.reply.ArrayLen(keys.size());
  for (size_t k : keys) cmd.reply.Bulk(full[k]);
}

// Each key with what the command does to it: the flags of the key spec that finds it.
// SET's spec has variable flags (its GET option reads the old value): Redis's own
// rule, as its setGetKeys.
void GetKeysAndFlags(CoordCmd& cmd) {
  std::vector<size_t> keys;
  const CommandSpec* spec = FindKeys(cmd, &keys);
  if (spec == nullptr) return;
  ArgList full = cmd.args.subspan(2);
  const CommandMeta* meta = FindCommandMeta(spec->full_name);
  const std::vector<KeySpecView> specs =
      meta != nullptr ? ParseKeySpecs(meta->key_specs) : std::vector<KeySpecView>();
  std::vector<std::vector<std::string_view>> flags(full.size());
  for (const KeySpecView& ks : specs) {
    std::vector<size_t> found;
    if (!KeySpecPositions(ks, full, &found)) continue;
    for (size_t pos : found) {
      if (flags[pos].empty()) flags[pos] = ks.flags;
    }
  }
  if (spec->full_name == "set") {
    bool get = false;
    for (size_t i = 3; i < full.size(); ++i) get |= EqualsIgnoreCase(full[i], "get");
    flags[1] = get ? std::vector<std::string_view>{"RW", "access", "update"}
                   : std::vector<std::string_view>{"OW", "update"};
  }
  cmd.reply.ArrayLen(keys.size());
  for (size_t k : keys) {
    cmd.reply.ArrayLen(2);
    cmd.reply.Bulk(full[k]);
    cmd.reply.SetLen(flags[k].size());
    for (std::string_view f : flags[k]) cmd.reply.SimpleString(f);
  }
}

std::string_view DocsOf(std::string_view full_name) {
  const CommandMeta* meta = FindCommandMeta(full_name);
  return meta ? meta->docs : std::string_view();
}

// One COMMAND DOCS entry, as Redis writes it: the full name, then the doc map; a
// container's gains "subcommands" (last, as in Redis) with the subcommands ringcache has.
void DocEntry(const CommandSpec& spec, std::string_view doc, ReplyBuilder& rb) {
  rb.Bulk(spec.full_name);
  if (spec.subcommands.empty()) {
    WriteResp3(doc, rb);
    return;
  }
  std::vector<std::pair<std::string_view, std::string_view>> subs;
  for (const CommandSpec& sub : spec.subcommands) {
    std::string_view sub_doc = DocsOf(sub.full_name);
    if (!sub_doc.empty()) subs.emplace_back(sub.full_name, sub_doc);
  }
  WriteResp3(doc, rb, /*extra_pairs=*/1);
  rb.Bulk("subcommands");
  rb.MapLen(subs.size());
  for (const auto& [name, sub_doc] : subs) {
    rb.Bulk(name);
    WriteResp3(sub_doc, rb);
  }
}

// Redis's lookup (COMMAND INFO, DOCS): a command's row for its name, a subcommand's for
// "container|subcommand"; nullptr for unknown ones.
const CommandSpec* LookupSpec(const CommandTable& table, std::string_view full_name) {
  const size_t bar = full_name.find('|');
  const CommandSpec* spec = table.Find(full_name.substr(0, bar));
  if (spec == nullptr || bar == std::string_view::npos) return spec;
  return spec->FindSubcommand(full_name.substr(bar + 1));
}

void Docs(CoordCmd& cmd) {
  ReplyBuilder& rb = cmd.reply;
  std::vector<const CommandSpec*> found;
  if (cmd.args.size() == 2) {
    found = Sorted(cmd.table);
  } else {
    for (size_t i = 2; i < cmd.args.size(); ++i) {
      const CommandSpec* s = LookupSpec(cmd.table, cmd.args[i]);
      if (s != nullptr) found.push_back(s);
    }
  }
  // A command Redis does not document (none today) is left out, as an unknown one.
  std::erase_if(found, [](const CommandSpec* s) { return DocsOf(s->full_name).empty(); });
  rb.MapLen(found.size());
  for (const CommandSpec* s : found) DocEntry(*s, DocsOf(s->full_name), rb);
}

// COMMAND alone, and COMMAND INFO without names: every command.
void All(CoordCmd& cmd) {
  auto all = Sorted(cmd.table);
  cmd.reply.ArrayLen(all.size());
  for (const auto* s : all) SpecEntry(*s, cmd.reply);
}

void CommandInfo(CoordCmd& cmd) {
  if (cmd.args.size() == 2) return All(cmd);
  cmd.reply.ArrayLen(cmd.args.size() - 2);
  for (size_t i = 2; i < cmd.args.size(); ++i) {
    const CommandSpec* s = LookupSpec(cmd.table, cmd.args[i]);
    if (s == nullptr) {
      cmd.reply.NullBulk();
    } else {
      SpecEntry(*s, cmd.reply);
    }
  }
}

void Count(CoordCmd& cmd) { cmd.reply.Integer(int64_t(cmd.table.size())); }

}  // namespace

void RegisterCommandCommand(CommandTable& t) {
  const uint32_t kFlags = kCmdLoading | kCmdStale;
  t.StartFamily("@connection")
      .Add({.name = "command",
            .arity = -1,
            .flags = kFlags,
            .on_coord = All,
            .subcommands = {{.name = "count", .arity = 2, .flags = kFlags, .on_coord = Count},
                            {.name = "info", .arity = -2, .flags = kFlags, .on_coord = CommandInfo},
                            {.name = "list", .arity = -2, .flags = kFlags, .on_coord = ListCommands},
                            {.name = "docs", .arity = -2, .flags = kFlags, .on_coord = Docs},
                            {.name = "getkeys", .arity = -4, .flags = kFlags, .on_coord = GetKeys},
                            {.name = "getkeysandflags",
                             .arity = -4,
                             .flags = kFlags,
                             .on_coord = GetKeysAndFlags},
                            {.name = "help", .arity = 2, .flags = kFlags, .on_coord = CommandHelp}}});
}

}  // namespace rc
