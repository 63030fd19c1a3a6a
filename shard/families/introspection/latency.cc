// LATENCY LATEST / HISTORY / GRAPH / DOCTOR / RESET / HISTOGRAM / HELP. All but HISTOGRAM
// read the server-wide LatencyMonitor (events above latency-monitor-threshold);
// HISTOGRAM merges every thread's per-command histograms by fan-out, like INFO
// latencystats.

#include <set>

#include "core/strings.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/dispatcher.h"
#include "shard/runtime/fanout.h"
#include "shard/state/latency_report.h"
#include "shard/state/server_state.h"
#include "shard/wire/command_stats.h"

namespace rc {

namespace {

void Latest(CoordCmd& cmd) {
  LatencyEvents events = cmd.server.introspect.latency.Snapshot();
  cmd.reply.ArrayLen(events.size());
  for (const auto& [name, e] : events) {
    cmd.reply.ArrayLen(4);
    cmd.reply.Bulk(name);
    cmd.reply.Integer(e.Latest().unix_seconds);
    cmd.reply.Integer(int64_t(e.Latest().ms));
    cmd.reply.Integer(int64_t(e.max_ms));
  }
}

int64_t NowSeconds(const CoordCmd& cmd) { return cmd.server.clock->NowUnixMillis() / 1000; }

// HISTORY <event>: [unix time, ms] per second with a spike, oldest first; [] if unknown.
void History(CoordCmd& cmd) {
  LatencyEvents events = cmd.server.introspect.latency.Snapshot();
  auto it = events.find(std::string(cmd.args[2]));
  if (it == events.end()) return cmd.reply.ArrayLen(0);
  auto history = it->second.History();
  cmd.reply.ArrayLen(history.size());
  for (const auto& s : history) {
    cmd.reply.ArrayLen(2);
    cmd.reply.Integer(s.unix_seconds);
    cmd.reply.Integer(int64_t(s.ms));
  }
}

void Graph(CoordCmd& cmd) {
  LatencyEvents events = cmd.server.introspect.latency.Snapshot();
  std::string name(cmd.args[2]);
  auto it = events.find(name);
  if (it == events.end()) {
    return cmd.reply.Error(StrCat("ERR No samples available for event '", name, "'"));
  }
  cmd.reply.Verbatim(LatencyGraph(name, it->second, NowSeconds(cmd)));
}

void LatencyDoctor(CoordCmd& cmd) {
  cmd.reply.Verbatim(LatencyDoctor(cmd.server.introspect.latency.Snapshot(),
                                   cmd.server.config.latency_monitor_threshold,
                                   cmd.server.config.slowlog_log_slower_than, NowSeconds(cmd)));
}

void Histogram(CoordCmd& cmd) {
  // Which stat ids to report: the named commands (unknown names are skipped, as Redis),
  // or every command that has calls.
  std::set<int64_t> wanted;
  for (size_t i = 2; i < cmd.args.size(); ++i) {
    int64_t id = cmd.table.FindStatId(ToLower(cmd.args[i]));
    if (id >= 0) wanted.insert(id);
  }
  bool all = cmd.args.size() == 2;
  const std::vector<std::string>* names = &cmd.table.stat_names();
  DeferredReply out(cmd);
  FanOutThreads<CommandStats>(
      cmd.self, cmd.shards, AllShards(cmd.shards),
      [](ShardThread& t, size_t) { return t.command_stats(); },
      [out, wanted, all, names](std::vector<CommandStats>& per_thread) {
        CommandStats merged;
        for (const auto& s : per_thread) merged.Merge(s);
        std::vector<std::pair<std::string, const LatencyHistogram*>> rows;
        const auto& cmds = merged.commands();
        for (size_t i = 0; i < cmds.size() && i < names->size(); ++i) {
          if (!all && !wanted.count(int64_t(i))) continue;
          if (cmds[i].hist && cmds[i].hist->total() > 0) {
            rows.emplace_back((*names)[i], cmds[i].hist.get());
          }
        }
        out.Send([&](ReplyBuilder& rb) {
          // Redis's map: name -> {calls: N, histogram_usec: {bound: cumulative count}}.
          rb.MapLen(rows.size());
          for (const auto& [name, h] : rows) {
            rb.Bulk(name);
            rb.MapLen(2);
            rb.Bulk("calls");
            rb.Integer(int64_t(h->total()));
            rb.Bulk("histogram_usec");
            auto buckets = h->PowerOfTwoBuckets();
            rb.MapLen(buckets.size());
            for (const auto& [bound, n] : buckets) {
              rb.Integer(int64_t(bound));
              rb.Integer(int64_t(n));
            }
          }
        });
      });
}

void LatencyHelp(CoordCmd& cmd) {
  static const char* kLines[] = {
      "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DOCTOR",
      "    Return a human readable latency analysis report.",
      "GRAPH <event>",
      "    Return an ASCII latency graph for the <event> class.",
      "HISTORY <event>",
      "    Return time-latency samples for the <event> class.",
      "LATEST",
      "    Return the latest latency samples for all events.",
      "RESET [<event> ...]",
      "    Reset latency data of one or more <event> classes.",
      "    (default: reset all data for all event classes)",
      "HISTOGRAM [COMMAND ...]",
      ("    Return a cumulative distribution of latencies in the format of a histogram for "
       "the specified command names."),
      "    If no commands are specified then all histograms are replied.",
      "HELP",
      "    Prints this help.",
  };
  cmd.reply.HelpLines(kLines);
}

void LatencyReset(CoordCmd& cmd) {
  std::vector<std::string> events(cmd.args.begin() + 2, cmd.args.end());
  cmd.reply.Integer(int64_t(cmd.server.introspect.latency.Reset(events)));
}

}  // namespace

void RegisterLatencyCommands(CommandTable& t) {
  const uint32_t admin = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale;
  t.StartFamily().Add({.name = "latency",
                       .arity = -2,
                       .flags = admin,
                       .subcommands = {
                           {.name = "latest", .arity = 2, .flags = admin, .on_coord = Latest},
                           {.name = "reset", .arity = -2, .flags = admin, .on_coord = LatencyReset},
                           {.name = "histogram",
                            .arity = -2,
                            .flags = admin | kCmdAllThreads,
                            .on_coord = Histogram},
                           {.name = "history", .arity = 3, .flags = admin, .on_coord = History},
                           {.name = "graph", .arity = 3, .flags = admin, .on_coord = Graph},
                           {.name = "doctor", .arity = 2, .flags = admin, .on_coord = LatencyDoctor},
                           {.name = "help", .arity = 2, .flags = kHelpFlags, .on_coord = LatencyHelp},
                       }});
}

}  // namespace rc
