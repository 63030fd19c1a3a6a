#include "shard/scripting/script_call.h"

#include <memory>
#include <vector>

#include "core/aof_propagate.h"
#include "core/entry_table.h"
#include "core/strings.h"
#include "shard/command/dispatcher.h"
#include "shard/command/errors.h"
#include "shard/command/invoke.h"
#include "shard/runtime/memory_limit.h"
#include "shard/runtime/shard_set.h"
#include "shard/scripting/lua_engine.h"
#include "shard/scripting/script_errors.h"
#include "shard/scripting/script_registry.h"
#include "shard/scripting/script_task.h"
#include "shard/wire/reply_sink.h"

namespace rc {

namespace {

// Collects the reply of a command a script runs on its own thread. A command that must
// hear from other threads (a fan-out) Defers: the script cannot wait for that, so the
// sink stays alive until the late reply arrives and drops it.
class ScriptSink final : public ReplySink {
 public:
  uint64_t Defer() override {
    ++deferred_;
    return deferred_ - 1;
  }
  void Fulfill(uint64_t slot, std::string resp) override {
    ++fulfilled_;
    reply_ += resp;
  }
  void Resume() override {}
  void Push(std::string resp) override {}
  bool waiting() const { return fulfilled_ < deferred_; }
  bool deferred() const { return deferred_ > 0; }
  std::string& reply() { return reply_; }

 private:
  uint64_t deferred_ = 0;
  uint64_t fulfilled_ = 0;
  std::string reply_;
};

bool Declared(const ScriptRun& run, std::string_view key) {
  for (std::string_view k : run.keys) {
    if (k == key) return true;
  }
  return false;
}

// Whether a script running on `self`'s shard may touch `key` there; false with the error.
bool KeyAllowed(ShardThread& self, const ShardSet& shards, const ScriptRun& run,
                std::string_view key, std::string* out) {
  if (shards.ShardOf(key) != self.id()) {
    *out = StrCat(script_err::kOtherShardKey, "'", key.substr(0, 128), "'");
    return false;
  }
  const KeyLocks& locks = self.shard().locks();
  if (!locks.Idle() && !Declared(run, key)) {
    const uint64_t h = HashKey(key);
    if (!locks.MayRun(KeyLocks::Keys(&h, 1), false)) {
      *out = StrCat(script_err::kLockedKey, "'", key.substr(0, 128), "'");
      return false;
    }
  }
  return true;
}

// Redis marks a script dirty once it calls a write command (SCRIPT KILL then answers
// UNKILLABLE); false with the error when SCRIPT KILL won the race to a busy script.
bool MayWrite(LuaEngine& engine, ScriptRun& run, std::string* out) {
  if (engine.watchdog().MayWrite(run)) return true;
  *out = script_err::kKilled;
  return false;
}

}  // namespace

void RecordCoordinatorCall(ShardThread& self, const CommandSpec& spec, ArgList args,
                           std::string_view reply) {
  Shard& shard = self.shard();
  if (!shard.aof().on() || !(spec.flags & kCmdWrite) || (spec.flags & kCmdBlocking)) return;
  AofPropagate(args, reply, shard.NowMs(), shard.aof().target());
}

void FeedCalled(ShardThread& self, ShardSet& shards, const ServerState& server,
                const CommandSpec& spec, ArgList args) {
  if (server.introspect.monitors.load(std::memory_order_relaxed) > 0 && !(spec.flags & kCmdAdmin)) {
    FeedMonitors(self, shards, server, "lua", args);
  }
}

void RunCalledOnShard(ShardThread& thread, ServerState& server, const CommandSpec& spec,
                      ArgList args, int resp, std::string* records, std::string* out) {
  ReplyBuilder rb(out, resp == 3);
  // Redis logs a script's effects, the commands it called, not the script.
  InvokeOnShard(thread, server, spec, args, rb, InvokeAs{InvokePath::kScript, nullptr, records});
}

CallStatus ScriptCall(LuaEngine& engine, ScriptRun& run, ArgList args, bool may_suspend,
                      std::string* out) {
  ScriptRegistry& reg = engine.registry();
  ServerState& server = reg.server();
  ShardSet& shards = reg.shards();
  ShardThread& self = engine.thread();
  out->clear();
  const CommandSpec* spec = reg.table().Resolve(args);
  if (spec == nullptr) {
    *out = script_err::kUnknownCommand;
    return CallStatus::kRefused;
  }
  if (!spec->ArityOk(args.size())) {
    *out = script_err::kWrongArity;
    return CallStatus::kRefused;
  }
  const uint32_t flags = spec->flags;
  if (flags & kCmdNoScript) {
    *out = script_err::kNotAllowed;
    return CallStatus::kRefused;
  }
  if ((flags & kCmdWrite) && run.read_only) {
    *out = script_err::kWriteInReadOnly;
    return CallStatus::kRefused;
  }
  if ((flags & kCmdDenyOom) && run.oom_at_start && !run.wrote) {
    *out = err::kOom;
    return CallStatus::kRefused;
  }
  const KeySpan keys = spec->KeysFor(args);
  // Keys that follow a numkeys argument in a row only a coordinator runs (SINTERCARD,
  // ZUNION, LMPOP, ZUNIONSTORE's sources, ...) are keys like the triple's: such a command
  // is checked and routed by all of them. A numkeys that counts no keys present leaves
  // none to check, and the command answers its own error before it reaches any.
  const bool movable =
      (spec->numkeys_index > 0 && !spec->CountedKeys()) || spec->find_keys != nullptr;
  const bool keyless = keys.empty() && !movable;
  if (keyless && shards.size() > 1 && (flags & (kCmdWrite | kCmdReadOnly | kCmdMayReplicate))) {
    // KEYS, DBSIZE, FLUSHALL, PUBLISH, ... see every shard: they answer later than a
    // script can wait on its thread.
    *out = StrCat(script_err::kAllShards, spec->full_name, "'");
    return CallStatus::kRefused;
  }
  if (run.task != nullptr && !keyless) {
    if ((flags & kCmdWrite) && !MayWrite(engine, run, out)) return CallStatus::kRefused;
    return run.task->Call(*spec, args, may_suspend, out);
  }
  if (movable) {
    std::vector<size_t> positions;
    spec->AllKeyPositions(args, &positions);
    for (size_t i : positions) {
      if (!KeyAllowed(self, shards, run, args[i], out)) return CallStatus::kRefused;
    }
  } else {
    for (size_t i = keys.first; i <= keys.last; i += keys.step) {
      if (!KeyAllowed(self, shards, run, args[i], out)) return CallStatus::kRefused;
    }
  }
  if ((flags & kCmdWrite) && !MayWrite(engine, run, out)) return CallStatus::kRefused;
  if (!keyless && spec->on_shard != nullptr) {
    RunCalledOnShard(self, server, *spec, args, run.resp, nullptr, out);
    FeedCalled(self, shards, server, *spec, args);
    return CallStatus::kReplied;
  }
  ReplyBuilder rb(out, run.resp == 3);
  auto sink = std::make_unique<ScriptSink>();
  ClientState& client = engine.script_client();
  client.resp3 = run.resp == 3;
  CoordCmd cmd{self, shards, server, client, *sink, reg.table(), args, rb};
  // Its keys are this shard's and the script's to touch (checked above), but may be held
  // by the EXEC the script runs in: its own locks nest, as a command inside EXEC takes
  // them, so it runs to its end here rather than wait for a release after the script.
  client.exec_nested = !keyless;
  InvokeOnCoord(cmd, *spec, InvokeAs{InvokePath::kScript});
  client.exec_nested = false;
  if (sink->deferred()) {
    if (sink->waiting()) {
      engine.Abandon(std::move(sink));
      out->clear();
      *out = StrCat(script_err::kAllShards, spec->full_name, "'");
      return CallStatus::kRefused;
    }
    *out += sink->reply();
  }
  RecordCoordinatorCall(self, *spec, args, *out);
  FeedCalled(self, shards, server, *spec, args);
  return CallStatus::kReplied;
}

}  // namespace rc
