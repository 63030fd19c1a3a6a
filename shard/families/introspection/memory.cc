// MEMORY USAGE / STATS / DOCTOR / MALLOC-STATS / PURGE / HELP. USAGE runs on the key's
// shard (the row's key is argument 2); the others run on the connection's thread, STATS
// gathering per-shard sizes by fan-out. Bytes are what the allocator holds (malloc_usable_size),
// not estimates.

#include "core/entry.h"
#include "core/strings.h"
#include "shard/command/arg_parser.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/dispatcher.h"
#include "shard/command/errors.h"
#include "shard/runtime/fanout.h"
#include "shard/runtime/shard.h"
#include "shard/server/memory_info.h"

namespace rc {

namespace {

// Owner shard: MEMORY USAGE key [SAMPLES n]. SAMPLES is validated and ignored: a value's
// bytes are counted exactly as its elements come and go (ValueUpdate).
void Usage(ShardCmd& cmd) {
  ArgParser p(cmd.args, 3);
  while (p.HasNext()) {
    if (p.Flag("SAMPLES")) {
      p.Next<int64_t>();
    } else {
      p.Fail(err::kSyntax);
    }
  }
  if (!p.ok()) return cmd.reply.Error(p.error());
  Entry* e = cmd.shard.Find(cmd.args[2]);
  if (e == nullptr) return cmd.reply.NullBulk();
  // The entry's allocation, its bucket slot in the table, and the object it owns.
  size_t bytes = e->AllocatedBytes() + sizeof(Entry*) + ValueBytes(*e);
  cmd.reply.Integer(int64_t(bytes));
}

struct ShardMemory {
  size_t keys = 0;
  size_t bytes = 0;
};

void Stats(CoordCmd& cmd) {
  DeferredReply out(cmd);
  FanOut<ShardMemory>(
      cmd.self, cmd.shards, AllShards(cmd.shards),
      [](Shard& shard, size_t) {
        return ShardMemory{shard.size(), shard.MemoryBytes()};
      },
      [out](std::vector<ShardMemory>& shards) {
        size_t keys = 0, dataset = 0;
        for (const auto& s : shards) {
          keys += s.keys;
          dataset += s.bytes;
        }
        uint64_t used = UsedMemory(), rss = RssBytes();
        uint64_t overhead = used > dataset ? used - dataset : 0;
        out.Send([&](ReplyBuilder& rb) {
          // Redis's field names; integers, and ratios as doubles (bulks in RESP2).
          auto num = [&](std::string_view k, int64_t v) {
            rb.Bulk(k);
            rb.Integer(v);
          };
          auto ratio = [&](std::string_view k, double v) {
            rb.Bulk(k);
            rb.Double(v);
          };
          rb.MapLen(13);
          num("peak.allocated", int64_t(used));
          num("total.allocated", int64_t(used));
          num("startup.allocated", 0);
          num("replication.backlog", 0);
          num("clients.slaves", 0);
          num("clients.normal", 0);
          num("overhead.total", int64_t(overhead));
          num("keys.count", int64_t(keys));
          num("keys.bytes-per-key", keys ? int64_t(used / keys) : 0);
          num("dataset.bytes", int64_t(dataset));
          ratio("dataset.percentage", used ? 100.0 * double(dataset) / double(used) : 0);
          ratio("fragmentation", used ? double(rss) / double(used) : 0);
          num("fragmentation.bytes", int64_t(rss) - int64_t(used));
        });
      });
}

void MemoryDoctor(CoordCmd& cmd) {
  // Redis's two answers for an instance without issues: below 5 MB it declines to judge.
  if (UsedMemory() < (5u << 20)) {
    return cmd.reply.Verbatim(
        "Hi Sam, this instance is empty or is using very little memory, my issues detector "
        "can't be used in these conditions. Please, leave for your mission on Earth and fill "
        "it with some data. The new Sam and I will be back to our programming as soon as I "
        "finished rebooting.");
  }
  cmd.reply.Verbatim(
      "Hi Sam, I can't find any memory issue in your instance. I can only account for what "
      "occurs on this base.");
}

// The allocator's own report (glibc: malloc_info's XML; Redis prints jemalloc's).
void MallocStats(CoordCmd& cmd) { cmd.reply.Verbatim(MallocStatsText()); }

// Hands free pages back to the kernel in every arena, as jemalloc's purge does for Redis.
void Purge(CoordCmd& cmd) {
  MallocPurge();
  cmd.reply.Ok();
}

void MemoryHelp(CoordCmd& cmd) {
  static const char* kLines[] = {
      "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DOCTOR",
      "    Return memory problems reports.",
      "MALLOC-STATS",
      "    Return internal statistics report from the memory allocator.",
      "PURGE",
      "    Attempt to purge dirty pages for reclamation by the allocator.",
      "STATS",
      "    Return information about the memory usage of the server.",
      "USAGE <key> [SAMPLES <count>]",
      "    Return memory in bytes used by <key> and its value. Nested values are",
      "    sampled up to <count> times (default: 5, 0 means sample all).",
      "HELP",
      "    Prints this help.",
  };
  cmd.reply.HelpLines(kLines);
}

}  // namespace

void RegisterMemoryCommands(CommandTable& t) {
  t.StartFamily().Add(
      {.name = "memory",
       .arity = -2,
       .flags = kCmdReadOnly,
       .subcommands = {
           {.name = "usage",
            .arity = -3,
            .flags = kCmdReadOnly,
            .keys = {2, 2, 1},
            .on_shard = Usage},
           {.name = "stats", .arity = 2, .flags = kCmdAllThreads, .on_coord = Stats},
           {.name = "doctor", .arity = 2, .on_coord = MemoryDoctor},
           {.name = "malloc-stats", .arity = 2, .on_coord = MallocStats},
           {.name = "purge", .arity = 2, .on_coord = Purge},
           {.name = "help", .arity = 2, .flags = kHelpFlags, .on_coord = MemoryHelp},
       }});
}

}  // namespace rc
