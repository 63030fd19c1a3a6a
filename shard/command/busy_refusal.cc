#include "shard/command/busy_refusal.h"

#include <vector>

#include "shard/command/errors.h"
#include "shard/runtime/shard_set.h"
#include "shard/wire/client_state.h"

namespace rc {

namespace {

const ScriptBusy* IfBusy(ShardSet& shards, uint32_t shard) {
  const ScriptBusy& busy = shards.thread(shard).script_busy();
  return busy.busy() ? &busy : nullptr;
}

// The first busy thread among all, or only `node_shard` for a cluster node's connection,
// which sees its own shard's keyspace alone.
const ScriptBusy* AnyBusy(ShardSet& shards, int32_t node_shard) {
  if (node_shard >= 0) return IfBusy(shards, uint32_t(node_shard));
  for (uint32_t s = 0; s < shards.size(); ++s) {
    if (const ScriptBusy* busy = IfBusy(shards, s)) return busy;
  }
  return nullptr;
}

const ScriptBusy* NeededBy(ShardSet& shards, const ClientState& client, const CommandSpec& spec,
                           ArgList args) {
  const uint32_t flags = spec.flags;
  if (flags & kCmdAllowBusy) return nullptr;
  if (spec.keys.none() && spec.numkeys_index == 0) {
    if (flags & kCmdAllThreads) return AnyBusy(shards, -1);
    if (flags & (kCmdWrite | kCmdReadOnly | kCmdMayReplicate)) {
      return AnyBusy(shards, client.node_shard);
    }
    if ((flags & kCmdExec) && client.multi) {
      for (const QueuedCommand& q : client.multi->queued) {
        if (const ScriptBusy* busy = NeededBy(shards, client, *q.spec, q.args->view())) {
          return busy;
        }
      }
      for (const std::string& key : client.watching.keys) {
        if (const ScriptBusy* busy = IfBusy(shards, shards.ShardOf(key))) return busy;
      }
    }
    return nullptr;
  }
  std::vector<size_t> positions;
  spec.AllKeyPositions(args, &positions);
  for (size_t pos : positions) {
    if (const ScriptBusy* busy = IfBusy(shards, shards.ShardOf(args[pos]))) return busy;
  }
  return nullptr;
}

}  // namespace

const ScriptBusy* BusyThreadNeeded(ShardThread& self, ShardSet& shards, const ClientState& client,
                                   const CommandSpec& spec, ArgList args) {
  if (!shards.AnyScriptBusy() || (spec.flags & kCmdAllowBusy)) return nullptr;
  if (self.script_busy().busy()) return &self.script_busy();
  return NeededBy(shards, client, spec, args);
}

const ScriptBusy* FirstBusyThread(ShardSet& shards) {
  return shards.AnyScriptBusy() ? AnyBusy(shards, -1) : nullptr;
}

std::string_view BusyError(const ScriptBusy& busy) {
  return busy.function() ? err::kBusyFunction : err::kBusyScript;
}

}  // namespace rc
