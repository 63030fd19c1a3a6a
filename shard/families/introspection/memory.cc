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
#include "shard/scripting/function_registry.h"
#include "shard/scripting/script_registry.h"
#include "shard/state/client_registry.h"
#include "shard/state/memory_info.h"
#include "shard/state/server_state.h"

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

// What MEMORY STATS and DOCTOR read, gathered from every thread: its shard's keys and
// bytes, its connections and what their buffers hold.
struct ThreadMemory {
  size_t keys = 0, bytes = 0, clients = 0, client_bytes = 0;
};

// Redis's getMemoryOverheadData, on ringcache's figures.
struct MemoryFigures {
  uint64_t used = 0, peak = 0, startup = 0, rss = 0;
  size_t keys = 0, dataset = 0, clients = 0, client_bytes = 0;
  uint64_t eval_caches = 0, functions_caches = 0, cached_scripts = 0;
  uint64_t aof_buffer = 0;  // log records not yet handed to the writer thread
  AllocatorFigures allocator;
};

template <typename Done>
void GatherMemory(CoordCmd& cmd, Done done) {
  const ServerState* server = &cmd.server;
  ShardSet* shards = &cmd.shards;
  FanOutThreads<ThreadMemory>(
      cmd.self, cmd.shards, AllShards(cmd.shards),
      [](ShardThread& t, size_t) {
        ThreadMemory m{t.shard().size(), t.shard().MemoryBytes(), 0, 0};
        for (const auto& [id, h] : t.clients().all()) {
          ++m.clients;
          m.client_bytes += ClientMemory(h->Buffers(), h->client());
        }
        return m;
      },
      [server, shards, done = std::move(done)](std::vector<ThreadMemory>& threads) {
        MemoryFigures f;
        for (const ThreadMemory& t : threads) {
          f.keys += t.keys;
          f.dataset += t.bytes;
          f.clients += t.clients;
          f.client_bytes += t.client_bytes;
        }
        f.used = UsedMemory();
        f.peak = server->memory.NotePeak(f.used);
        f.startup = server->memory.startup.load(std::memory_order_relaxed);
        f.rss = RssBytes();
        f.aof_buffer = shards->journal().pending();
        if (server->scripts != nullptr) {
          f.eval_caches = server->scripts->body_bytes();
          f.cached_scripts = server->scripts->count();
          f.functions_caches = server->scripts->functions().memory_bytes();
        }
        f.allocator = MallocFigures();
        done(f);
      });
}

double Ratio(double x, double y) { return y != 0 ? x / y : 0; }

void Stats(CoordCmd& cmd) {
  DeferredReply out(cmd);
  GatherMemory(cmd, [out](const MemoryFigures& f) {
    const uint64_t overhead = f.used > f.dataset ? f.used - f.dataset : 0;
    const AllocatorFigures& a = f.allocator;
    out.Send([&](ReplyBuilder& rb) {
      // Redis 7.0's fields and order (but its per-database hash table overheads);
      // integers, and ratios as doubles (bulks in RESP2).
      auto num = [&](std::string_view k, int64_t v) {
        rb.Bulk(k);
        rb.Integer(v);
      };
      auto ratio = [&](std::string_view k, double v) {
        rb.Bulk(k);
        rb.Double(v);
      };
      rb.MapLen(27);
      num("peak.allocated", int64_t(f.peak));
      num("total.allocated", int64_t(f.used));
      num("startup.allocated", int64_t(f.startup));
      num("replication.backlog", 0);  // no replication
      num("clients.slaves", 0);
      num("clients.normal", int64_t(f.client_bytes));
      num("cluster.links", 0);  // the cluster map is static: no bus links
      num("aof.buffer", int64_t(f.aof_buffer));
      num("lua.caches", int64_t(f.eval_caches));
      num("functions.caches", int64_t(f.functions_caches));
      num("overhead.total", int64_t(overhead));
      num("keys.count", int64_t(f.keys));
      num("keys.bytes-per-key", f.keys ? int64_t(f.used / f.keys) : 0);
      num("dataset.bytes", int64_t(f.dataset));
      ratio("dataset.percentage", 100 * Ratio(double(f.dataset), double(f.used)));
      ratio("peak.percentage", 100 * Ratio(double(f.used), double(f.peak)));
      num("allocator.allocated", a.allocated);
      num("allocator.active", a.active);
      num("allocator.resident", a.resident);
      ratio("allocator-fragmentation.ratio", Ratio(double(a.active), double(a.allocated)));
      num("allocator-fragmentation.bytes", a.active - a.allocated);
      ratio("allocator-rss.ratio", Ratio(double(a.resident), double(a.active)));
      num("allocator-rss.bytes", a.resident - a.active);
      ratio("rss-overhead.ratio", Ratio(double(f.rss), double(a.resident)));
      num("rss-overhead.bytes", a.known ? int64_t(f.rss) - a.resident : 0);
      ratio("fragmentation", Ratio(double(f.rss), double(f.used)));
      num("fragmentation.bytes", int64_t(f.rss) - int64_t(f.used));
    });
  });
}

// Redis 7.0's getMemoryDoctorReport: its checks and words, on the same figures (the
// allocator's own ratios only where it tells them).
std::string DoctorReport(const MemoryFigures& f) {
  if (f.used < (5u << 20)) {
    return "Hi Sam, this instance is empty or is using very little memory, my issues detector "
           "can't be used in these conditions. Please, leave for your mission on Earth and fill "
           "it with some data. The new Sam and I will be back to our programming as soon as I "
           "finished rebooting.\n";
  }
  // Redis's test for each overhead: `part` over `whole` above `ratio`, and by over 10 MB.
  auto over = [](int64_t part, int64_t whole, double ratio) {
    return Ratio(double(part), double(whole)) > ratio && part - whole > (10 << 20);
  };
  const AllocatorFigures& a = f.allocator;
  std::string s;
  if (double(f.peak) > double(f.used) * 1.5) {
    s += " * Peak memory: In the past this instance used more than 150% the memory that is "
         "currently using. The allocator is normally not able to release memory after a peak, "
         "so you can expect to see a big fragmentation ratio, however this is actually harmless "
         "and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) "
         "is currently bigger than expected, the memory will be used as soon as you fill the "
         "Redis instance with more data. If the memory peak was only occasional and you want to "
         "try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other "
         "option is to shutdown and restart the instance.\n\n";
  }
  if (over(int64_t(f.rss), int64_t(f.used), 1.4)) {
    s += StrCat(
        " * High total RSS: This instance has a memory fragmentation and RSS overhead greater "
        "than 1.4 (this means that the Resident Set Size of the Redis process is much larger "
        "than the sum of the logical allocations Redis performed). This problem is usually due "
        "either to a large peak memory (check if there is a peak memory entry above in the "
        "report) or may result from a workload that causes the allocator to fragment memory a "
        "lot. If the problem is a large peak memory, then there is no issue. Otherwise, make "
        "sure you are using the Jemalloc allocator and not the default libc malloc. Note: The "
        "currently used allocator is \"",
        MallocName(), "\".\n\n");
  }
  if (a.known && over(a.active, a.allocated, 1.1)) {
    s += " * High allocator fragmentation: This instance has an allocator external "
         "fragmentation greater than 1.1. This problem is usually due either to a large peak "
         "memory (check if there is a peak memory entry above in the report) or may result from "
         "a workload that causes the allocator to fragment memory a lot. You can try enabling "
         "'activedefrag' config option.\n\n";
  }
  if (a.known && over(a.resident, a.active, 1.1)) {
    s += " * High allocator RSS overhead: This instance has an RSS memory overhead is greater "
         "than 1.1 (this means that the Resident Set Size of the allocator is much larger than "
         "the sum what the allocator actually holds). This problem is usually due to a large "
         "peak memory (check if there is a peak memory entry above in the report), you can try "
         "the MEMORY PURGE command to reclaim it.\n\n";
  }
  if (a.known && over(int64_t(f.rss), a.resident, 1.1)) {
    s += " * High process RSS overhead: This instance has non-allocator RSS memory overhead is "
         "greater than 1.1 (this means that the Resident Set Size of the Redis process is much "
         "larger than the RSS the allocator holds). This problem may be due to Lua scripts or "
         "Modules.\n\n";
  }
  if (f.clients > 0 && f.client_bytes / f.clients > 200 * 1024) {
    s += " * Big client buffers: The clients output buffers in this instance are greater than "
         "200K per client (on average). This may result from different causes, like Pub/Sub "
         "clients subscribed to channels bot not receiving data fast enough, so that data piles "
         "on the Redis instance output buffer, or clients sending commands with large replies "
         "or very large sequences of commands in the same pipeline. Please use the CLIENT LIST "
         "command in order to investigate the issue if it causes problems in your instance, or "
         "to understand better why certain clients are using a big amount of memory.\n\n";
  }
  if (f.cached_scripts > 1000) {
    s += " * Many scripts: There seem to be many cached scripts in this instance (more than "
         "1000). This may be because scripts are generated and `EVAL`ed, instead of being "
         "parameterized (with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless `SCRIPT "
         "FLUSH` is called periodically, the scripts' caches may end up consuming most of your "
         "memory.\n\n";
  }
  if (s.empty()) {
    return "Hi Sam, I can't find any memory issue in your instance. I can only account for what "
           "occurs on this base.\n";
  }
  return StrCat("Sam, I detected a few issues in this Redis instance memory implants:\n\n", s,
                "I'm here to keep you safe, Sam. I want to help you.\n");
}

void MemoryDoctor(CoordCmd& cmd) {
  DeferredReply out(cmd);
  GatherMemory(cmd, [out](const MemoryFigures& f) {
    const std::string report = DoctorReport(f);
    out.Send([&](ReplyBuilder& rb) { rb.Verbatim(report); });
  });
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
           {.name = "doctor", .arity = 2, .flags = kCmdAllThreads, .on_coord = MemoryDoctor},
           {.name = "malloc-stats", .arity = 2, .on_coord = MallocStats},
           {.name = "purge", .arity = 2, .on_coord = Purge},
           {.name = "help", .arity = 2, .flags = kHelpFlags, .on_coord = MemoryHelp},
       }});
}

}  // namespace rc
