// Administration commands: CONFIG, TIME, SHUTDOWN (INFO is in info.cc, COMMAND in
// command.cc).

#include <algorithm>
#include <set>

#include "core/glob.h"
#include "core/log.h"
#include "core/strings.h"
#include "shard/command/busy_refusal.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/dispatcher.h"
#include "shard/command/errors.h"
#include "shard/persist/aof.h"
#include "shard/persist/save.h"
#include "shard/runtime/fanout.h"
#include "shard/state/config_file.h"
#include "shard/state/config_params.h"
#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"
#include "threadpool/thread_pool.h"

namespace rc {

void RegisterCommandCommand(CommandTable& t);
void RegisterInfoCommand(CommandTable& t);
void RegisterDebugCommands(CommandTable& t);

namespace {

// Redis 7.0's matching: a name without glob characters is looked up (name or alias) and
// echoed as the client spelled it; a pattern is matched against every name and every
// alias, each reported as Redis writes it. A name already reported (case-insensitively)
// is not reported again, so a setting can appear under both its names.
void ConfigGet(CoordCmd& cmd) {
  std::lock_guard<std::mutex> lock(cmd.server.config_mu);
  std::vector<std::pair<std::string, const ConfigParam*>> found;
  auto reported = [&](std::string_view name) {
    for (const auto& f : found) {
      if (EqualsIgnoreCase(f.first, name)) return true;
    }
    return false;
  };
  for (size_t i = 2; i < cmd.args.size(); ++i) {
    std::string_view pattern = cmd.args[i];
    if (pattern.find_first_of("[*?") == std::string_view::npos) {
      const ConfigParam* p = FindConfigParam(pattern);
      if (p != nullptr && !reported(pattern)) found.emplace_back(pattern, p);
      continue;
    }
    for (const auto& p : ConfigParams()) {
      for (std::string_view name : {p.name, p.alias}) {
        if (!name.empty() && !reported(name) && GlobMatch(pattern, name, /*nocase=*/true)) {
          found.emplace_back(name, &p);
        }
      }
    }
  }
  cmd.reply.MapLen(found.size());
  for (const auto& [name, p] : found) {
    cmd.reply.Bulk(name);
    cmd.reply.Bulk(p->get(cmd.server.config));
  }
}

// enable-protected-configs, which is immutable: read without config_mu.
bool ProtectedAllowed(const CoordCmd& cmd) {
  return cmd.client.AdmittedBy(cmd.server.config.enable_protected_configs);
}

// Redis 7.0's order of checks: every name first (the first unknown, immutable, protected
// or repeated one fails the command; a name and its alias are two names there, the
// later value wins), then every value, on a copy, so one bad value leaves every setting
// as it was.
void ConfigSet(CoordCmd& cmd) {
  if (cmd.args.size() % 2 != 0) return cmd.reply.Error(err::kSyntax);
  auto failed = [&](std::string_view name, std::string_view why) {
    cmd.reply.Error(
        StrCat("ERR CONFIG SET failed (possibly related to argument '", name, "') - ", why));
  };
  std::vector<const ConfigParam*> params;
  std::vector<std::string_view> names;  // as called: the name or the alias
  for (size_t i = 2; i < cmd.args.size(); i += 2) {
    const std::string_view name = cmd.args[i];
    const ConfigParam* p = FindConfigParam(name);
    if (p == nullptr) {
      return cmd.reply.Error(
          StrCat("ERR Unknown option or number of arguments for CONFIG SET - '", name, "'"));
    }
    if (!p->runtime) return failed(name, "can't set immutable config");
    if (p->is_protected && !ProtectedAllowed(cmd)) {
      return failed(name, "can't set protected config");
    }
    std::string_view called = NameAsCalled(*p, name);
    if (std::find(names.begin(), names.end(), called) != names.end()) {
      return failed(name, "duplicate parameter");
    }
    params.push_back(p);
    names.push_back(called);
  }
  bool appendonly = false;
  {
    std::lock_guard<std::mutex> lock(cmd.server.config_mu);
    Config trial = cmd.server.config;
    for (size_t i = 0; i < params.size(); ++i) {
      std::string why = params[i]->set(trial, cmd.args[3 + 2 * i]);
      if (!why.empty()) return failed(names[i], why);
    }
    for (size_t i = 0; i < params.size(); ++i) {
      params[i]->set(cmd.server.config, cmd.args[3 + 2 * i]);
      appendonly |= params[i]->name == "appendonly";
    }
    LogLevel level;
    if (ParseLogLevel(cmd.server.config.loglevel, &level)) SetLogLevel(level);
  }
  // On: a rewrite writes the log's base and the log starts at its point; off: it stops.
  if (appendonly) AofApplySetting(cmd.self, cmd.shards, cmd.server);
  cmd.reply.Ok();
}

void ConfigResetStat(CoordCmd& cmd) {
  cmd.server.memory.ResetStats(cmd.server.clock->NowUnixMillis());
  if (cmd.server.lazyfree != nullptr) {
    cmd.server.lazyfreed_before_reset.store(cmd.server.lazyfree->Completed());
  }
  DeferredReply out(cmd);
  FanOutThreads<bool>(
      cmd.self, cmd.shards, AllShards(cmd.shards),
      [](ShardThread& thread, size_t) {
        thread.stats().Reset();
        thread.command_stats().Reset();
        thread.shard().stats() = ShardStats();
        return true;
      },
      [out](std::vector<bool>&) { out.Send([](ReplyBuilder& rb) { rb.Ok(); }); });
}

void ConfigRewrite(CoordCmd& cmd) {
  std::lock_guard<std::mutex> lock(cmd.server.config_mu);
  if (cmd.server.config.config_file.empty()) {
    return cmd.reply.Error("ERR The server is running without a config file");
  }
  std::string error;
  if (!RewriteConfigFile(cmd.server.config, &error)) {
    return cmd.reply.Error(StrCat("ERR Rewriting config file: ", error));
  }
  cmd.reply.Ok();
}

void ConfigHelp(CoordCmd& cmd) {
  static const char* const kLines[] = {
      "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET <pattern>",
      "    Return parameters matching the glob-like <pattern> and their values.",
      "SET <directive> <value>",
      "    Set the configuration <directive> to <value>.",
      "RESETSTAT",
      "    Reset statistics reported by the INFO command.",
      "REWRITE",
      "    Rewrite the configuration file.",
      "HELP",
      "    Prints this help.",
  };
  cmd.reply.HelpLines(kLines);
}

void Time(CoordCmd& cmd) {
  int64_t us = cmd.server.clock->NowUnixMicros();
  cmd.reply.ArrayLen(2);
  cmd.reply.Bulk(std::to_string(us / 1'000'000));
  cmd.reply.Bulk(std::to_string(us % 1'000'000));
}

void Shutdown(CoordCmd& cmd) {
  bool abort = false, nosave = false, save = false, force = false;
  for (size_t i = 1; i < cmd.args.size(); ++i) {
    std::string opt = ToLower(cmd.args[i]);
    if (opt == "abort") {
      abort = true;
    } else if (opt == "nosave") {
      nosave = true;
    } else if (opt == "save") {
      save = true;
    } else if (opt == "force") {
      force = true;
    } else if (opt != "now") {
      return cmd.reply.Error(err::kSyntax);
    }
  }
  if (save && nosave) return cmd.reply.Error(err::kSyntax);
  if (abort) {
    if (cmd.args.size() != 2) return cmd.reply.Error(err::kSyntax);
    return cmd.reply.Error("ERR No shutdown in progress.");
  }
  // As Redis, only SHUTDOWN NOSAVE stops a server whose script is busy; the busy script
  // then ends at its next check (shard/scripting/script_watchdog.h).
  if (!nosave) {
    if (const ScriptBusy* busy = FirstBusyThread(cmd.shards))
      return cmd.reply.Error(BusyError(*busy));
  }
  // Like Redis, a successful SHUTDOWN answers nothing: the connection just closes.
  if (nosave || (!save && !SavePointsSet(cmd.server))) {
    cmd.client.close_after_reply = true;
    cmd.server.RequestShutdown();
    return;
  }
  DeferredReply reply(cmd);
  SaveThenShutdown(cmd.self, cmd.shards, cmd.server, force, [reply] {
    reply.Send([](ReplyBuilder& rb) { rb.Error("ERR Errors trying to SHUTDOWN. Check logs."); });
  });
}

}  // namespace

void RegisterAdminCommands(CommandTable& t) {
  const uint32_t kConfig = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale;
  CommandTable::Family f = t.StartFamily();
  f.Add({.name = "config",
         .arity = -2,
         .flags = kConfig,
         .subcommands = {
             {.name = "get", .arity = -3, .flags = kConfig, .on_coord = ConfigGet},
             {.name = "set", .arity = -4, .flags = kConfig, .on_coord = ConfigSet},
             {.name = "resetstat",
              .arity = 2,
              .flags = kConfig | kCmdAllThreads,
              .on_coord = ConfigResetStat},
             {.name = "rewrite", .arity = 2, .flags = kConfig, .on_coord = ConfigRewrite},
             // As Redis: CONFIG HELP is neither admin nor dangerous.
             {.name = "help", .arity = 2, .flags = kHelpFlags, .on_coord = ConfigHelp},
         }});
  f.Add(
      {.name = "time", .arity = 1, .flags = kCmdLoading | kCmdStale | kCmdFast, .on_coord = Time});
  f.Add({.name = "shutdown",
         .arity = -1,
         .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale | kCmdNoMulti | kCmdAllowBusy,
         .on_coord = Shutdown});
  RegisterCommandCommand(t);
  RegisterInfoCommand(t);
  RegisterDebugCommands(t);
}

}  // namespace rc
