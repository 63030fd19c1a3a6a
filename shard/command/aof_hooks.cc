#include "shard/command/aof_hooks.h"

#include "core/aof_propagate.h"
#include "core/aof_reader.h"
#include "shard/runtime/shard_set.h"

namespace rc {

void AofAfterOnShard(Shard& shard, const CommandSpec& spec, ArgList args, int64_t mark,
                     std::string_view reply) {
  // Blocking commands record their pops themselves; reads that expired a key raised
  // the count but changed nothing of their own (the expiry recorded its DEL).
  if (mark < 0 || shard.Dirty() == mark) return;
  if (!(spec.flags & kCmdWrite) || (spec.flags & kCmdBlocking)) return;
  if (!shard.aof().on()) return;
  AofPropagate(args, reply, shard.NowMs(), shard.aof().target());
}

void AofLogCoordinator(CoordCmd& cmd) {
  AofJournal& journal = cmd.shards.journal();
  if (!journal.on() || cmd.client.exec_nested) return;
  std::string record;
  AofAppendCommand(cmd.args, &record);
  cmd.self.note_aof_position(journal.Append(record));
}

}  // namespace rc
