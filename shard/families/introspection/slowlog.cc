// SLOWLOG GET / LEN / RESET / HELP over the server-wide SlowLog (shard/introspection.h),
// which the dispatcher feeds with commands slower than slowlog-log-slower-than.

#include "core/numbers.h"
#include "core/strings.h"
#include "shard/command/dispatcher.h"
#include "shard/state/server_state.h"

namespace rc {

namespace {

void Get(CoordCmd& cmd) {
  int64_t count = 10;
  if (cmd.args.size() == 3 && (!ParseInt64(cmd.args[2], &count) || count < -1)) {
    return cmd.reply.Error("ERR count should be greater than or equal to -1");
  }
  if (cmd.args.size() > 3) return cmd.reply.Error(WrongArityError("slowlog|get"));
  auto entries = cmd.server.introspect.slowlog.Get(count);
  ReplyBuilder& rb = cmd.reply;
  rb.ArrayLen(entries.size());
  for (const SlowLogEntry& e : entries) {
    rb.ArrayLen(6);
    rb.Integer(int64_t(e.id));
    rb.Integer(e.unix_seconds);
    rb.Integer(int64_t(e.micros));
    rb.ArrayLen(e.args.size());
    for (const auto& a : e.args) rb.Bulk(a);
    rb.Bulk(e.addr);
    rb.Bulk(e.name);
  }
}

void SlowlogHelp(CoordCmd& cmd) {
  static const char* kLines[] = {
      "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET [<count>]",
      "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
      "    Entries are made of:",
      "    id, timestamp, time in microseconds, arguments array, client IP and port,",
      "    client name",
      "LEN",
      "    Return the length of the slowlog.",
      "RESET",
      "    Reset the slowlog.",
      "HELP",
      "    Prints this help.",
  };
  cmd.reply.HelpLines(kLines);
}

void Len(CoordCmd& cmd) { cmd.reply.Integer(int64_t(cmd.server.introspect.slowlog.Len())); }

void SlowlogReset(CoordCmd& cmd) {
  cmd.server.introspect.slowlog.Reset();
  cmd.reply.Ok();
}

}  // namespace

void RegisterSlowlogCommands(CommandTable& t) {
  const uint32_t admin = kCmdAdmin | kCmdLoading | kCmdStale;
  t.StartFamily().Add({.name = "slowlog",
                       .arity = -2,
                       .flags = admin,
                       .subcommands = {
                           {.name = "get", .arity = -2, .flags = admin, .on_coord = Get},
                           {.name = "len", .arity = 2, .flags = admin, .on_coord = Len},
                           {.name = "reset", .arity = 2, .flags = admin, .on_coord = SlowlogReset},
                           // The one subcommand Redis does not mark admin.
                           {.name = "help", .arity = 2, .flags = kHelpFlags, .on_coord = SlowlogHelp},
                       }});
}

}  // namespace rc
