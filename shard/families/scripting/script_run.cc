#include "shard/families/scripting/script_run.h"

#include "core/numbers.h"
#include "shard/command/errors.h"
#include "shard/runtime/memory_limit.h"
#include "shard/runtime/shard_set.h"
#include "shard/scripting/script_errors.h"
#include "shard/scripting/script_registry.h"
#include "shard/scripting/script_task.h"
#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"

namespace rc {

namespace {

// Redis's scriptPrepareForRun, then `run` filled for `inv` (KEYS and ARGV view `args`).
// False when it answered with an error instead.
bool PrepareRun(const Invocation& inv, ArgList args, bool resp3, ScriptRun* run,
                ReplyBuilder& reply) {
  const uint32_t flags = inv.script.flags;
  const bool compat = flags & kScriptEvalCompat;
  ScriptRegistry& scripts = inv.engine->registry();
  const ServerState& server = scripts.server();
  if (!compat && (flags & kScriptNoCluster) && server.config.cluster_enabled) {
    reply.Error(script_err::kNoCluster);
    return false;
  }
  if (inv.ro_command && !compat && !(flags & kScriptNoWrites)) {
    reply.Error(script_err::kWriteFromRo);
    return false;
  }
  run->name = inv.name;
  run->command = args;
  run->keys = args.subspan(3, inv.numkeys);
  run->argv = args.subspan(3 + inv.numkeys);
  run->read_only = inv.ro_command || (flags & kScriptNoWrites);
  run->caller_resp3 = resp3;
  run->flags = flags;
  run->function = inv.engine->kind() == LuaEngine::Kind::kFunctions;
  if (server.config.maxmemory.get() > 0 && !(flags & kScriptAllowOom) && !run->read_only &&
      OutOfMemory(scripts.shards(), inv.engine->thread().id(), server)) {
    // A script declaring its flags is refused whole; an old one only at its first write.
    if (!compat) {
      reply.Error(err::kOom);
      return false;
    }
    run->oom_at_start = true;
  }
  return true;
}

}  // namespace

bool ParseNumKeys(ArgList args, std::string_view not_integer, size_t* numkeys,
                  ReplyBuilder& reply) {
  int64_t n = 0;
  if (!ParseInt64(args[2], &n)) {
    reply.Error(not_integer);
    return false;
  }
  if (n > int64_t(args.size()) - 3) {
    reply.Error(script_err::kTooManyKeys);
    return false;
  }
  if (n < 0) {
    reply.Error(script_err::kNegativeKeys);
    return false;
  }
  *numkeys = size_t(n);
  return true;
}

// Runs a script on `shard`'s thread. With the log on, its effects (the records of the
// commands it called) go to the shard's records whole, inside MULTI ... EXEC, in their
// place: while it runs nothing else writes on this shard.
template <typename Run>
void RunRecorded(Shard& shard, Run run) {
  // Inside EXEC, EXEC's unit holds them already.
  if (!shard.aof().on() || shard.aof().redirected()) return run();
  std::string effects;
  std::string* previous = shard.aof().Redirect(&effects);
  run();
  shard.aof().Restore(previous);
  AppendUnit(effects, previous);
}

void RunScriptOnShard(ShardCmd& cmd, FindScript find) {
  if (cmd.server.scripts == nullptr) return cmd.reply.Error(script_err::kNotReady);
  Invocation inv;
  ScriptRun run;
  if (!find(*cmd.server.scripts, cmd.shard.id(), cmd.args, &inv, cmd.reply) ||
      !PrepareRun(inv, cmd.args, cmd.reply.resp3(), &run, cmd.reply)) {
    return;
  }
  RunRecorded(cmd.shard, [&] { inv.engine->Run(inv.script, run, cmd.reply); });
}

void RunScriptOnCoord(CoordCmd& cmd, FindScript find) {
  if (cmd.server.scripts == nullptr) return cmd.reply.Error(script_err::kNotReady);
  Invocation inv;
  ScriptRun run;
  if (!find(*cmd.server.scripts, cmd.self.id(), cmd.args, &inv, cmd.reply) ||
      !PrepareRun(inv, cmd.args, cmd.client.resp3, &run, cmd.reply)) {
    return;
  }
  // No keys: it runs here, on this thread's shard. Keys on several shards: under their
  // locks, as a task that suspends while other shards run its commands.
  if (run.keys.empty()) {
    return RunRecorded(cmd.self.shard(), [&] { inv.engine->Run(inv.script, run, cmd.reply); });
  }
  ScriptTask::Launch(cmd, *inv.engine, inv.script, run);
}

}  // namespace rc
