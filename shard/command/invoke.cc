#include "shard/command/invoke.h"

#include <string_view>

#include "shard/command/aof_hooks.h"
#include "shard/runtime/blocking.h"
#include "shard/wire/command_stats.h"
#include "timers/cycle_clock.h"

namespace rc {

namespace {

// Counts a run of `spec` on the thread whose stats these are; its reply is out[from...].
void Count(CommandStats& stats, ServerState& server, const CommandSpec& spec, uint64_t ns,
           const std::string& out, size_t from) {
  CountCommand(stats, spec.stat_id, ns, out, from, server.config.latency_tracking.get() != 0);
  const int64_t threshold_ms = server.config.latency_monitor_threshold;
  if (threshold_ms > 0 && int64_t(ns / 1'000'000) >= threshold_ms) {
    server.introspect.latency.Add((spec.flags & kCmdFast) ? "fast-command" : "command",
                                  ns / 1'000'000, server.clock->NowUnixMillis() / 1000);
  }
}

// The slow log for a run that took `ns`: logged now where the path knows the peer, else
// left to the caller (Ran::slow).
bool SlowLogOrDefer(ServerState& server, const CommandSpec& spec, ArgList args, uint64_t ns,
             const InvokeAs& as) {
  if (!server.SlowEnough(ns) || (spec.flags & kCmdSkipSlowlog)) return false;
  switch (as.path) {
    case InvokePath::kClient:
      LogSlowRun(server, *as.client, args, ns);
      return false;
    case InvokePath::kScript: {
      // Redis's script client has no connection: its peer id is "?:0".
      static const std::string kScriptAddr = "?:0";
      static const std::string kNoName;
      server.LogIfSlow(args, ns, kScriptAddr, kNoName);
      return false;
    }
    case InvokePath::kForwarded:
    case InvokePath::kExec:
      return true;
    case InvokePath::kInternal:
      return false;
  }
  return false;
}

}  // namespace

Ran InvokeOnShard(ShardThread& thread, ServerState& server, const CommandSpec& spec, ArgList args,
                  ReplyBuilder& reply, const InvokeAs& as) {
  Shard& shard = thread.shard();
  std::string& out = *reply.out();
  const size_t from = out.size();
  std::string* previous = as.records != nullptr ? shard.aof().Redirect(as.records) : nullptr;
  const int64_t mark = AofMark(shard);
  ShardCmd cmd{shard, args, reply, server};
  const uint64_t start = CycleClock::Now();
  spec.on_shard(cmd);
  const uint64_t ns = CycleClock::ToNanos(CycleClock::Now() - start);
  if (mark >= 0) AofAfterOnShard(shard, spec, args, mark, std::string_view(out).substr(from));
  if (as.records != nullptr) shard.aof().Restore(previous);
  if (as.path == InvokePath::kInternal) return {ns, false};
  Count(thread.command_stats(), server, spec, ns, out, from);
  const bool slow = SlowLogOrDefer(server, spec, args, ns, as);
  if (as.path == InvokePath::kForwarded && shard.waiting().HasReady()) ServeReady(thread);
  return {ns, slow};
}

Ran InvokeOnCoord(CoordCmd& cmd, const CommandSpec& spec, const InvokeAs& as) {
  const std::string& out = *cmd.reply.out();
  const size_t from = out.size();
  const uint64_t start = CycleClock::Now();
  spec.on_coord(cmd);
  const uint64_t ns = CycleClock::ToNanos(CycleClock::Now() - start);
  if (as.path == InvokePath::kInternal) return {ns, false};
  Count(cmd.self.command_stats(), cmd.server, spec, ns, out, from);
  return {ns, SlowLogOrDefer(cmd.server, spec, cmd.args, ns, as)};
}

void LogSlowRun(ServerState& server, const ClientState& client, ArgList args, uint64_t ns) {
  server.LogIfSlow(args, ns, client.addr, client.name);
}

}  // namespace rc
