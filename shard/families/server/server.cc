// Server commands: CONFIG, TIME, SHUTDOWN (INFO is in info.cc, COMMAND in
// command.cc).

#include <set>

#include "core/glob.h"
#include "core/log.h"
#include "core/strings.h"
#include "shard/command/client_state.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/dispatcher.h"
#include "shard/command/errors.h"
#include "shard/runtime/fanout.h"
#include "shard/server/config_file.h"
#include "shard/server/config_params.h"
#include "shard/server/server_state.h"

namespace rc {

void RegisterCommandCommand(CommandTable& t);
void RegisterInfoCommand(CommandTable& t);
void RegisterDebugCommands(CommandTable& t);

namespace {

void ConfigGet(CoordCmd& cmd) {
  std::lock_guard<std::mutex> lock(cmd.server.config_mu);
  // Redis echoes a name without glob characters as the client spelled it; patterns
  // report the canonical name. A setting is reported once, however many patterns match it.
  std::vector<std::pair<std::string, std::string>> found;
  std::set<std::string_view> seen;
  for (size_t i = 2; i < cmd.args.size(); ++i) {
    std::string_view pattern = cmd.args[i];
    bool glob = pattern.find_first_of("[*?") != std::string_view::npos;
    for (const auto& p : ConfigParams()) {
      bool match =
          glob ? GlobMatch(pattern, p.name, /*nocase=*/true) : EqualsIgnoreCase(pattern, p.name);
      if (match && seen.insert(p.name).second) {
        found.emplace_back(glob ? std::string(p.name) : std::string(pattern),
                           p.get(cmd.server.config));
      }
    }
  }
  cmd.reply.MapLen(found.size());
  for (const auto& [name, value] : found) {
    cmd.reply.Bulk(name);
    cmd.reply.Bulk(value);
  }
}

void ConfigSet(CoordCmd& cmd) {
  if (cmd.args.size() < 4 || cmd.args.size() % 2 != 0) {
    return cmd.reply.Error(WrongArityError("config|set"));
  }
  std::vector<const ConfigParam*> params;
  for (size_t i = 2; i < cmd.args.size(); i += 2) {
    const ConfigParam* p = FindConfigParam(cmd.args[i]);
    if (p == nullptr) {
      return cmd.reply.Error(
          StrCat("ERR Unknown option or number of arguments for CONFIG SET - '", cmd.args[i], "'"));
    }
    for (const ConfigParam* seen : params) {
      if (seen == p) return cmd.reply.Error(err::kSyntax);  // the same setting twice
    }
    params.push_back(p);
  }
  auto failed = [&](size_t i, std::string_view why) {
    cmd.reply.Error(StrCat("ERR CONFIG SET failed (possibly related to argument '",
                           cmd.args[2 + 2 * i], "') - ", why));
  };
  std::lock_guard<std::mutex> lock(cmd.server.config_mu);
  // All or nothing, as Redis: every value is tried on a copy before any is applied.
  Config trial = cmd.server.config;
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i]->runtime) return failed(i, "can't set immutable config");
    std::string why = params[i]->set(trial, cmd.args[3 + 2 * i]);
    if (!why.empty()) return failed(i, why);
  }
  for (size_t i = 0; i < params.size(); ++i) {
    params[i]->set(cmd.server.config, cmd.args[3 + 2 * i]);
  }
  LogLevel level;
  if (ParseLogLevel(cmd.server.config.loglevel, &level)) SetLogLevel(level);
  cmd.reply.Ok();
}

void ConfigResetStat(CoordCmd& cmd) {
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
  bool abort = false;
  for (size_t i = 1; i < cmd.args.size(); ++i) {
    std::string opt = ToLower(cmd.args[i]);
    if (opt == "abort") {
      abort = true;
    } else if (opt != "nosave" && opt != "save" && opt != "now" && opt != "force") {
      return cmd.reply.Error(err::kSyntax);
    }
  }
  if (abort) {
    if (cmd.args.size() != 2) return cmd.reply.Error(err::kSyntax);
    return cmd.reply.Error("ERR No shutdown in progress.");
  }
  // Like Redis, a successful SHUTDOWN answers nothing: the connection just closes.
  cmd.client.close_after_reply = true;
  cmd.server.RequestShutdown();
}

}  // namespace

void RegisterServerCommands(CommandTable& t) {
  const uint32_t kConfig = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale;
  CommandTable::Family f = t.StartFamily();
  f.Add({.name = "config",
         .arity = -2,
         .flags = kConfig,
         .subcommands = {
             {.name = "get", .arity = -3, .flags = kConfig, .on_coord = ConfigGet},
             {.name = "set", .arity = -4, .flags = kConfig, .on_coord = ConfigSet},
             {.name = "resetstat", .arity = 2, .flags = kConfig, .on_coord = ConfigResetStat},
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
