#include "shard/command/dispatcher.h"

#include <algorithm>
#include <cctype>
#include <memory>

#include "absl/container/inlined_vector.h"
#include "core/entry_table.h"
#include "core/strings.h"
#include "shard/command/busy_refusal.h"
#include "shard/command/errors.h"
#include "shard/command/invoke.h"
#include "shard/runtime/memory_limit.h"
#include "shard/runtime/watch.h"
#include "shard/state/auth.h"
#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"
#include "shard/wire/hop_batch.h"
#include "shard/wire/owned_args.h"
#include "shard/wire/reply_sink.h"

namespace rc {

std::string UnknownCommandError(ArgList args) {
  // Same truncation as Redis: the name to 128 bytes, the quoted arguments to ~128 bytes.
  std::string quoted;
  for (size_t i = 1; i < args.size() && quoted.size() < 128; ++i) {
    StrAppend(&quoted, "'", args[i].substr(0, 128 - quoted.size()), "' ");
  }
  return StrCat("ERR unknown command '", args[0].substr(0, 128),
                "', with args beginning with: ", quoted);
}

std::string WrongArityError(std::string_view command_name) {
  return StrCat("ERR wrong number of arguments for '", command_name, "' command");
}

namespace {

using KeyHashes = absl::InlinedVector<uint64_t, 4>;

std::string UnknownSubcommandError(std::string_view container, std::string_view sub) {
  std::string upper(container);
  for (char& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
  return StrCat("ERR unknown subcommand '", sub.substr(0, 128), "'. Try ", upper, " HELP.");
}

}  // namespace

Dispatcher::Admission Dispatcher::Admit(ClientState& client, ArgList args,
                                        bool replies_owed) const {
  Admission a;
  a.command.command = table_.Find(args[0]);
  a.command.row = a.command.command;
  const CommandSpec* container = a.command.command;
  if (container != nullptr && !container->subcommands.empty() && args.size() >= 2) {
    a.command.row = container->FindSubcommand(args[1]);
  }
  const CommandSpec* row = a.command.row;
  // An unknown command or a wrong arity is only an error reply: nothing to wait for.
  if (row != nullptr && row->ArityOk(args.size())) {
    if (client.Locking() && WaitsForLocks(client, *row, args)) {
      a.hold = Hold::kForLocks;
      return a;
    }
    if (replies_owed && WaitsForEarlier(client, *row)) {
      a.hold = Hold::kForEarlier;
      return a;
    }
  }
  if (server_.introspect.pause.Requested() && Paused(client, row)) a.hold = Hold::kForPause;
  return a;
}

bool Dispatcher::WaitsForLocks(const ClientState& client, const CommandSpec& row,
                               ArgList args) const {
  // Between MULTI and EXEC commands are only queued; EXEC is what runs them.
  if (client.multi && !(row.flags & kCmdNotQueued)) return false;
  if (row.flags & kCmdWaitsForLocks) return true;
  if (row.keys.none() && !row.CountedKeys()) {
    // Keyless commands that touch the keyspace as a whole (KEYS, FLUSHALL, ...) wait for
    // everything; connection and server commands wait for nothing.
    return (row.flags & (kCmdWrite | kCmdReadOnly)) != 0;
  }
  // Keys beyond the row's triple (ZUNIONSTORE's follow numkeys) are not known here: such
  // coordinator-only rows wait for everything too.
  if (row.on_shard == nullptr) return true;
  if (client.locking_whole > 0 || client.scripts_running > 0) return true;
  const KeySpan keys = row.KeysFor(args);
  for (size_t i = keys.first; i <= keys.last; i += keys.step) {
    const uint64_t h = HashKey(args[i]);
    for (absl::Span<const uint64_t> locking : client.locking_keys) {
      if (std::find(locking.begin(), locking.end(), h) != locking.end()) return true;
    }
  }
  return false;
}

bool Dispatcher::WaitsForEarlier(const ClientState& client, const CommandSpec& row) const {
  if (!(row.flags & kCmdAfterEarlier)) return false;
  // Queued between MULTI and EXEC, it changes nothing yet.
  return client.multi == nullptr;
}

bool Dispatcher::OomRefuses(const Request& req) const {
  const uint32_t flags = req.spec->flags;
  // As Redis, inside MULTI whatever would be queued (queueing takes memory); EXEC checks
  // what it queued itself (shard/families/transaction/multi.cc).
  const bool deny = req.client.multi ? !(flags & kCmdNotQueued) : (flags & kCmdDenyOom);
  return deny && OutOfMemory(shards_, req.self.id(), server_);
}

bool Dispatcher::MisconfRefuses(const CommandSpec& spec) const {
  if (!(spec.flags & kCmdWrite) && spec.full_name != "ping") return false;
  if (!server_.config.stop_writes_on_bgsave_error.get()) return false;
  std::lock_guard<std::mutex> lock(server_.config_mu);
  return !server_.config.save_points.empty();
}

std::string Dispatcher::ClusterRedirect(Request& req) const {
  const CommandSpec& spec = *req.spec;
  MultiState* multi = req.client.multi.get();
  // Redis checks a transaction's keys as one request at EXEC: one slot, or CROSSSLOT.
  if ((spec.flags & kCmdExec) && multi != nullptr && multi->cross_slot) {
    return std::string(err::kCrossSlot);
  }
  if (spec.keys.none() && spec.numkeys_index == 0) return {};
  const ClusterMap* map = req.self.cluster_map(server_.cluster);
  if (map == nullptr) return {};
  int slot = -1;
  auto visit = [&](size_t pos) {
    const int s = KeySlot(req.args[pos]);
    if (slot >= 0 && s != slot) return false;
    slot = s;
    return true;
  };
  if (spec.numkeys_index > 0 || spec.find_keys != nullptr) {
    std::vector<size_t> all;
    // A numkeys that does not count the keys present is the command's own error to give.
    if (!spec.AllKeyPositions(req.args, &all)) return {};
    for (size_t pos : all) {
      if (!visit(pos)) return std::string(err::kCrossSlot);
    }
  } else {
    const KeySpan keys = spec.KeysIn(req.args.size());
    for (size_t i = keys.first; i <= keys.last; i += keys.step) {
      if (!visit(i)) return std::string(err::kCrossSlot);
    }
  }
  if (slot < 0) return {};
  if (map->ServesHere(uint16_t(slot), req.client.cluster_port)) {
    req.slot = slot;
    if (multi != nullptr && !(spec.flags & kCmdNotQueued)) {
      if (multi->slot >= 0 && multi->slot != slot) multi->cross_slot = true;
      multi->slot = slot;
    }
    return {};
  }
  const int16_t owner = map->OwnerOf(uint16_t(slot));
  if (owner == ClusterMap::kNoNode) return std::string(err::kClusterDown);
  const ClusterNode& node = map->nodes()[size_t(owner)];
  return StrCat("MOVED ", slot, " ", node.ip, ":", node.port);
}

void Dispatcher::Refuse(Request& req, int64_t stat_id, std::string_view error) const {
  if (req.client.multi) req.client.multi->aborted = true;
  CommandStats& stats = req.self.command_stats();
  if (stat_id >= 0) stats.Rejected(uint32_t(stat_id));
  stats.ErrorReply(error);
  req.reply.Error(error);
}

bool Dispatcher::Paused(ClientState& client, const CommandSpec* spec) const {
  ClientPause& pause = server_.introspect.pause;
  int64_t now_ms = server_.clock->NowUnixMillis();
  if (!pause.Active(now_ms)) {
    pause.ClearIfExpired(now_ms);
    return false;
  }
  uint32_t flags = spec != nullptr ? spec->flags : 0;
  // As Redis, EXEC counts as a write when a command it would run writes.
  if ((flags & kCmdExec) && client.multi) flags |= client.multi->flags;
  if (!pause.Holds(flags, now_ms)) return false;
  if (spec != nullptr) client.last_cmd = spec->stat_id;
  return true;
}

void FeedMonitors(ShardThread& self, ShardSet& shards, const ServerState& server,
                  std::string_view addr, ArgList args) {
  auto line =
      std::make_shared<const std::string>(MonitorLine(server.clock->NowUnixMicros(), addr, args));
  for (uint32_t t = 0; t < shards.size(); ++t) {
    auto deliver = [all = &shards, t, line] {
      for (const auto& [id, monitor] : all->thread(t).clients().monitors()) {
        // Monitor lines are replies to Redis, so CLIENT REPLY OFF/SKIP silence them.
        const uint8_t bits = monitor->client().reply_bits;
        if (!(bits & (ClientState::kReplyOff | ClientState::kReplySkip)))
          monitor->PushMonitorLine(*line);
      }
    };
    if (t == self.id()) {
      deliver();
    } else {
      self.Post(t, deliver);
    }
  }
}

void Dispatcher::Dispatch(ShardThread& self, ClientState& client, ReplySink& sink,
                          ReplyBuilder& reply, ArgList args, const Resolved& command) const {
  ++self.stats().commands_processed;
  Request req{self, client, sink, reply, args};
  const CommandSpec* spec = command.command;
  if (spec == nullptr) return Refuse(req, -1, UnknownCommandError(args));
  client.last_cmd = spec->stat_id;
  if (!spec->ArityOk(args.size())) return Refuse(req, spec->stat_id, WrongArityError(spec->name));
  if (!spec->subcommands.empty() && args.size() >= 2) {
    const CommandSpec* sub = command.row;
    if (sub == nullptr) return Refuse(req, -1, UnknownSubcommandError(spec->name, args[1]));
    spec = sub;
    client.last_cmd = spec->stat_id;
    if (!spec->ArityOk(args.size())) {
      return Refuse(req, spec->stat_id, WrongArityError(spec->full_name));
    }
  }
  // From here on only the row that runs counts: its flags, keys, handler, statistics.
  req.spec = spec;
  const uint32_t flags = spec->flags;
  // After the name and arity checks, as Redis: an unknown command is reported as such.
  if (!(flags & kCmdNoAuth) && AuthRequired(server_, client)) {
    return Refuse(req, spec->stat_id, err::kNoAuth);
  }
  // Where Redis checks it: after authentication, before OOM and queueing, so a refused
  // command dooms a transaction.
  if (client.cluster_port != 0) {
    if (std::string moved = ClusterRedirect(req); !moved.empty()) {
      // A refused EXEC discards its transaction (Redis's discardTransaction).
      if ((flags & kCmdExec) && client.multi) {
        client.multi.reset();
        UnwatchAll(req.self, shards_, client);
      }
      return Refuse(req, spec->stat_id, moved);
    }
  }
  // Redis's no-multi commands (SHUTDOWN) are refused, and so doom the transaction.
  if (client.multi && (flags & kCmdNoMulti)) return Refuse(req, spec->stat_id, err::kNoMulti);
  // A command that would need a thread whose script is busy (busy_refusal.h). As Redis,
  // nothing is refused for memory then, and -BUSY comes after the subscribed-context check.
  const ScriptBusy* busy = BusyThreadNeeded(self, shards_, client, *spec, args);
  // As Redis, the log's replay at start is not refused for memory.
  if (server_.config.maxmemory.get() > 0 && busy == nullptr && !client.is_master &&
      OomRefuses(req) && !server_.persist.aof_loading.load(std::memory_order_relaxed)) {
    return Refuse(req, spec->stat_id, err::kOom);
  }
  // Redis's stop-writes-on-bgsave-error: after a failed save, writes (and PING) are refused
  // until one succeeds. One relaxed load while saves succeed.
  if (!server_.persist.last_ok.load(std::memory_order_relaxed) && busy == nullptr &&
      !client.is_master && MisconfRefuses(*spec)) {
    return Refuse(req, spec->stat_id, err::kMisconf);
  }
  // A read-only replica takes writes from its master alone; EXEC as a write when it
  // would run one, as Redis decides.
  if (server_.replication.replica.load(std::memory_order_relaxed) && !client.is_master &&
      server_.config.replica_read_only.get() && busy == nullptr &&
      ((flags & kCmdWrite) || ((flags & kCmdExec) && client.multi &&
                               (client.multi->flags & kCmdWrite)))) {
    if ((flags & kCmdExec) && client.multi) {
      client.multi.reset();
      UnwatchAll(req.self, shards_, client);
      return Refuse(req, spec->stat_id,
                    StrCat("EXECABORT Transaction discarded because of: ", err::kReadOnlyReplica));
    }
    return Refuse(req, spec->stat_id, err::kReadOnlyReplica);
  }
  if (client.Subscriptions() > 0 && !client.resp3 && !(flags & kCmdSubscribeOk)) {
    return Refuse(req, spec->stat_id,
                  StrCat("ERR Can't execute '", spec->full_name,
                         "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
                         "allowed in this context"));
  }
  if (busy != nullptr) {
    if (!(flags & kCmdExec) || !client.multi) return Refuse(req, spec->stat_id, BusyError(*busy));
    // Redis's rejectCommand for EXEC: the transaction goes, the error says why.
    client.multi.reset();
    UnwatchAll(req.self, shards_, client);
    return Refuse(req, spec->stat_id,
                  StrCat("EXECABORT Transaction discarded because of: ", BusyError(*busy)));
  }
  // Redis flags a MONITOR client as a replica, which may not touch the keyspace.
  if (client.monitor && (flags & (kCmdWrite | kCmdReadOnly | kCmdMayReplicate))) {
    return Refuse(req, spec->stat_id, "ERR Replica can't interact with the keyspace");
  }
  if (client.multi && !(flags & kCmdNotQueued)) {
    // As Redis, nothing is kept once EXEC is bound to fail: a refused command doomed
    // it, or a watched key changed (that flag stays set until EXEC, DISCARD or UNWATCH).
    const bool doomed =
        client.multi->aborted ||
        (client.watching.state && client.watching.state->dirty.load(std::memory_order_relaxed));
    if (!doomed) {
      client.multi->queued.push_back(QueuedCommand{spec, std::make_unique<OwnedArgs>(args)});
      client.multi->flags |= flags;
    }
    reply.SimpleString("QUEUED");
    return;
  }
  // As Redis, admin commands are not shown to monitors (they may carry secrets), and a
  // command is shown after it ran: a monitor sees its own command's reply first.
  const bool feed = server_.introspect.monitors.load(std::memory_order_relaxed) > 0 &&
                    !(flags & (kCmdAdmin | kCmdExec));
  // A script is shown before the commands it calls, as Redis shows them.
  if (feed && (flags & kCmdSkipMonitor)) FeedMonitors(self, shards_, server_, client.addr, args);
  Execute(req);
  // Blocked clients waiting on keys this command gave a value are served before the
  // connection's next command runs, as Redis serves them after each command.
  if (self.shard().waiting().HasReady()) ServeReady(self);
  if (feed && !(flags & kCmdSkipMonitor)) FeedMonitors(self, shards_, server_, client.addr, args);
}

namespace {

constexpr size_t kPrefetchMax = 32;

// Owner's thread: the hashes of the keys at `keys` positions of `args`, for
// EntryTable::Prefetch, up to kPrefetchMax in all.
void PrefetchKeys(ArgList args, KeySpan keys, uint64_t* hashes, size_t* n) {
  for (size_t i = keys.first; i <= keys.last && *n < kPrefetchMax; i += keys.step) {
    hashes[(*n)++] = HashKey(args[i]);
  }
}

// Owner's thread: hints the keys of `batch`'s requests from `from` on, up to
// kPrefetchMax keys, so their lookups overlap; returns the first request not hinted. A
// batch holds a turn's forwarded commands from every connection, often hundreds:
// RunBatched hints them a window at a time (hinting the buckets a window ahead of the
// heads measured no better).
size_t PrefetchBatch(Shard& shard, const HopBatch& batch, size_t from) {
  const std::vector<HopRequest>& requests = batch.requests();
  uint64_t hashes[kPrefetchMax];
  size_t n = 0;
  size_t i = from;
  for (; i < requests.size(); ++i) {
    const KeySpan keys = requests[i].keys;
    const size_t count = keys.empty() ? 0 : (keys.last - keys.first) / keys.step + 1;
    if (n > 0 && n + count > kPrefetchMax) break;
    for (uint32_t k = keys.first; k <= keys.last && n < kPrefetchMax; k += keys.step) {
      hashes[n++] = HashKey(batch.Arg(requests[i], k));
    }
  }
  shard.table().Prefetch(hashes, n);
  return std::max(i, from + 1);
}

}  // namespace

void Dispatcher::Prefetch(ShardThread& self, const std::string_view* keys, size_t n) const {
  uint64_t hashes[kPrefetchMax];
  size_t count = 0;
  const bool one = shards_.size() == 1;
  for (size_t i = 0; i < n && count < kPrefetchMax; ++i) {
    if (one || shards_.ShardOf(keys[i]) == self.id()) hashes[count++] = HashKey(keys[i]);
  }
  self.shard().table().Prefetch(hashes, count);
}

void Dispatcher::Execute(Request& req) const {
  const CommandSpec& spec = *req.spec;
  // Rows only a coordinator runs (ZUNIONSTORE's keys follow numkeys) find their own keys;
  // a blocking command's coordinator is what blocks (its on_shard form is EXEC's).
  if (spec.on_shard != nullptr && !(spec.flags & kCmdBlocking)) {
    req.keys = spec.KeysFor(req.args);
    if (req.slot >= 0) {
      req.owner = req.keys.empty() ? kNoShard : shards_.ShardOfSlot(uint16_t(req.slot));
    } else {
      req.owner = OwnerOf(shards_, req.args, req.keys);
    }
    if (spec.prepare != nullptr && req.owner != kNoShard) spec.prepare(req.self, server_, req.args);
  }
  if (req.owner == kNoShard) {
    CoordCmd cmd{req.self, shards_, server_, req.client, req.sink, table_, req.args, req.reply};
    InvokeOnCoord(cmd, spec, InvokeAs{InvokePath::kClient, &req.client});
    return;
  }
  if (req.owner != req.self.id()) return RunRemote(req);
  Shard& shard = req.self.shard();
  if (req.keys.last >= req.keys.first + req.keys.step) {  // MSET, MGET, DEL of several keys
    uint64_t hashes[kPrefetchMax];
    size_t n = 0;
    PrefetchKeys(req.args, req.keys, hashes, &n);
    shard.table().Prefetch(hashes, n);
  }
  if (shard.locks().Idle()) {
    InvokeOnShard(req.self, server_, spec, req.args, req.reply, InvokeAs{InvokePath::kClient, &req.client});
    return;
  }
  // A multi-shard command holds or awaits some keys here: check ours.
  uint64_t slot = req.sink.Defer();
  ReplySink* reply_to = &req.sink;
  ClientState* who = &req.client;
  RunWhenFree(
      req.self, ShardJob{&spec, req.keys, req.client.resp3, std::make_unique<OwnedArgs>(req.args)},
      [this, reply_to, who, slot](std::string out, uint64_t ns, std::unique_ptr<OwnedArgs> slow) {
        if (slow) LogSlowRun(server_, *who, slow->view(), ns);
        reply_to->Fulfill(slot, std::move(out));
      });
}

void Dispatcher::RunWhenFree(ShardThread& thread, ShardJob job, Deliver deliver) const {
  KeyLocks& locks = thread.shard().locks();
  KeyHashes keys;
  if (!locks.Idle()) {
    ArgList args = job.args->view();
    for (size_t i = job.keys.first; i <= job.keys.last; i += job.keys.step) {
      keys.push_back(HashKey(args[i]));
    }
  }
  auto run = [this, &thread, job = std::move(job), deliver = std::move(deliver)]() mutable {
    std::string out;
    ReplyBuilder rb(&out, job.resp3);
    // The slow log wants the client, which only the connection's thread may read, so a
    // slow command's arguments travel back.
    const Ran ran =
        InvokeOnShard(thread, server_, *job.spec, job.args->view(), rb, InvokeAs{InvokePath::kForwarded});
    deliver(std::move(out), ran.ns, ran.slow ? std::move(job.args) : nullptr);
  };
  if (locks.Idle() || locks.MayRun(keys, false)) return run();
  locks.Enqueue(keys, false, std::move(run));
}

void Dispatcher::RunRemote(Request& req) const {
  ++req.self.stats().remote_commands;
  const uint64_t slot = req.sink.Defer();
  HopLanes& lanes = req.self.hops();
  HopBatch* batch = lanes.open(req.owner);
  if (batch == nullptr) {
    std::unique_ptr<HopBatch> fresh = lanes.Take();
    fresh->home = req.self.id();
    fresh->owner = req.owner;
    batch = fresh.get();
    // May run while the owner's script is busy: it then answers -BUSY (AnswerBusy).
    req.self.Post(
        req.owner, [this, b = std::move(fresh)]() mutable { RunBatch(std::move(b)); },
        /*while_busy=*/true);
    lanes.set_open(req.owner, batch);
  }
  batch->Add(HopRequest{.sink = &req.sink,
                        .client = &req.client,
                        .spec = req.spec,
                        .slot = slot,
                        .keys = req.keys,
                        .first_len = 0,
                        .argc = 0,
                        .first_byte = 0,
                        .resp3 = req.client.resp3},
             req.args);
}

void Dispatcher::RunBatch(std::unique_ptr<HopBatch> batch) const {
  ShardThread& there = shards_.thread(batch->owner);
  if (there.script_busy().busy()) {
    AnswerBusy(there, *batch);
  } else {
    RunBatched(there, *batch);
  }
  const uint32_t home = batch->home;
  there.Post(
      home, [this, b = std::move(batch)]() mutable { DeliverBatch(std::move(b)); },
      /*while_busy=*/true);
}

void Dispatcher::AnswerBusy(ShardThread& there, HopBatch& batch) const {
  // From inside the busy script (BusyTurn): nothing runs on the shard, nor reads the
  // arguments, whose scratch the script's own command may be using.
  const std::string_view error = BusyError(there.script_busy());
  std::string& out = batch.replies();
  for (HopRequest& r : batch.requests()) {
    CommandStats& stats = there.command_stats();
    stats.Rejected(r.spec->stat_id);
    stats.ErrorReply(error);
    ReplyBuilder(&out, r.resp3).Error(error);
    r.refused = true;
    r.reply_end = out.size();
  }
}

void Dispatcher::RunBatched(ShardThread& there, HopBatch& batch) const {
  Shard& shard = there.shard();
  std::string& out = batch.replies();
  // A lone request gains nothing: its lookup would wait on the hint at once.
  size_t hinted = batch.requests().size() > 1 ? 0 : batch.requests().size();
  HopLanes::Running& running = there.hops().running();
  for (size_t i = 0; i < batch.requests().size(); ++i) {
    if (i >= hinted) hinted = PrefetchBatch(shard, batch, i);
    HopRequest& r = batch.requests()[i];
    if (r.waiting) continue;  // answered -BUSY while a script before it was busy
    running = {&batch, i};
    ArgList args = batch.Args(r, &there.hops().scratch());
    if (!shard.locks().Idle()) {
      KeyHashes keys;
      for (size_t i = r.keys.first; i <= r.keys.last; i += r.keys.step) {
        keys.push_back(HashKey(args[i]));
      }
      if (!shard.locks().MayRun(keys, false)) {
        r.waiting = true;
        r.reply_end = out.size();
        WaitForKeys(there, batch.home, r, args);
        continue;
      }
    }
    ReplyBuilder rb(&out, r.resp3);
    const Ran ran = InvokeOnShard(there, server_, *r.spec, args, rb, InvokeAs{InvokePath::kForwarded});
    r.ns = ran.ns;
    r.slow = ran.slow;
    r.reply_end = out.size();
  }
  running = {};
}

void Dispatcher::AnswerAroundBusyScript(ShardThread& there) const {
  HopLanes::Running& running = there.hops().running();
  if (running.batch == nullptr) return;
  HopBatch& batch = *running.batch;
  std::vector<HopRequest>& requests = batch.requests();
  const ClientState* caller = requests[running.index].client;
  const std::string_view error = BusyError(there.script_busy());
  auto send_home = [&](const HopRequest& r, std::string reply) {
    there.Post(
        batch.home,
        [sink = r.sink, slot = r.slot, reply = std::move(reply)]() mutable {
          sink->Fulfill(slot, std::move(reply));
        },
        /*while_busy=*/true);
  };
  size_t from = 0;
  for (size_t i = 0; i < running.index; ++i) {
    HopRequest& r = requests[i];
    if (r.waiting) continue;
    if (!r.delivered) send_home(r, batch.replies().substr(from, r.reply_end - from));
    r.delivered = true;
    from = r.reply_end;
  }
  for (size_t i = running.index + 1; i < requests.size(); ++i) {
    HopRequest& r = requests[i];
    if (r.waiting || r.client == caller) continue;
    r.waiting = true;  // leaves the batch, as a command waiting for keys does
    CommandStats& stats = there.command_stats();
    stats.Rejected(r.spec->stat_id);
    stats.ErrorReply(error);
    std::string reply;
    ReplyBuilder(&reply, r.resp3).Error(error);
    send_home(r, std::move(reply));
  }
}

void Dispatcher::DeliverBatch(std::unique_ptr<HopBatch> batch) const {
  ShardThread& self = shards_.thread(batch->home);
  std::string_view replies = batch->replies();
  size_t from = 0;
  for (const HopRequest& r : batch->requests()) {
    if (r.waiting) continue;  // it answered on its own
    const std::string_view reply = replies.substr(from, r.reply_end - from);
    from = r.reply_end;
    if (r.delivered) continue;
    if (r.slow) {
      // Not the thread's scratch: this may run inside a busy script whose own command's
      // arguments are there (RunBatch).
      std::vector<std::string_view> args;
      LogSlowRun(server_, *r.client, batch->Args(r, &args), r.ns);
    }
    r.sink->FulfillFrom(r.slot, reply);
  }
  self.hops().Recycle(std::move(batch));
}

void Dispatcher::WaitForKeys(ShardThread& there, uint32_t home, const HopRequest& r,
                             ArgList args) const {
  ReplySink* reply_to = r.sink;
  ClientState* who = r.client;
  const uint64_t slot = r.slot;
  RunWhenFree(there, ShardJob{r.spec, r.keys, r.resp3, std::make_unique<OwnedArgs>(args)},
              [this, &there, home, reply_to, who, slot](std::string out, uint64_t ns,
                                                        std::unique_ptr<OwnedArgs> slow) {
                // reply_to and who are dereferenced only back on the connection's thread.
                there.Post(home, [this, reply_to, who, slot, ns, slow = std::move(slow),
                                  out = std::move(out)]() mutable {
                  if (slow) LogSlowRun(server_, *who, slow->view(), ns);
                  reply_to->Fulfill(slot, std::move(out));
                });
              });
}

}  // namespace rc
