#include "shard/scripting/script_task.h"

#include <algorithm>
#include <utility>

#include "core/aof_propagate.h"
#include "core/entry_table.h"
#include "core/strings.h"
#include "shard/command/dispatcher.h"
#include "shard/command/invoke.h"
#include "shard/command/key_groups.h"
#include "shard/runtime/shard_set.h"
#include "shard/scripting/lua.h"
#include "shard/scripting/lua_convert.h"
#include "shard/scripting/script_errors.h"
#include "shard/scripting/script_registry.h"
#include "shard/state/server_state.h"
#include "shard/wire/client_state.h"
#include "shard/wire/reply_sink.h"

namespace rc {

// Collects the reply of a coordinator command the script called; once it is complete
// and the command's handler has returned, the script resumes with it from a fresh task
// (whoever fulfilled may still use the sink). Home thread.
class ScriptTask::Sink final : public ReplySink {
 public:
  explicit Sink(std::shared_ptr<ScriptTask> task) : task_(std::move(task)) {}
  uint64_t Defer() override { return deferred_++; }
  void Fulfill(uint64_t, std::string resp) override {
    reply_ += resp;
    ++fulfilled_;
    if (started_ && fulfilled_ == deferred_) Resumes();
  }
  void Resume() override {}
  void Push(std::string) override {}
  // The handler returned: true when the reply is complete already.
  bool Started() {
    started_ = true;
    return fulfilled_ == deferred_;
  }
  std::string& reply() { return reply_; }

 private:
  void Resumes() {
    ShardThread& home = task_->home_;
    home.Post(home.id(), [task = task_, reply = std::move(reply_)]() mutable {
      task->Answered(std::move(reply));
    });
  }

  std::shared_ptr<ScriptTask> task_;
  std::string reply_;
  uint64_t deferred_ = 0;
  uint64_t fulfilled_ = 0;
  bool started_ = false;
};

void ScriptTask::Launch(CoordCmd& cmd, LuaEngine& engine, const LuaEngine::Script& script,
                        const ScriptRun& run) {
  auto task = std::make_shared<ScriptTask>(cmd, engine, script, run);
  // The coroutine holds the script's function from now on, so a SCRIPT FLUSH while the
  // locks are being taken does not take it away.
  task->co_ = engine.Spawn(script, task->run_);
  ++task->client_->scripts_running;
  auto groups =
      std::make_shared<const KeyGroups>(cmd.shards, task->run_.keys, /*first=*/0, /*width=*/1);
  task->locks_ = LockKeys(std::move(groups));
  task->logging_ = cmd.shards.journal().recording();
  task->exec_records_ = cmd.client.exec_nested ? cmd.client.exec_records : nullptr;
  AcquireThen(cmd, task->locks_, [task] { task->Begin(); });
}

ScriptTask::ScriptTask(CoordCmd& cmd, LuaEngine& engine, const LuaEngine::Script& script,
                       const ScriptRun& run)
    : engine_(engine),
      home_(cmd.self),
      shards_(cmd.shards),
      server_(cmd.server),
      args_(cmd.args),
      script_(script),
      run_(run),
      client_(&cmd.client),
      sink_(&cmd.sink),
      slot_(cmd.sink.Defer()),
      resp3_(cmd.client.resp3),
      undeclared_(cmd.shards.size()),
      called_(cmd.shards.size(), 0) {
  // KEYS and ARGV view the task's own copy of the arguments.
  const ArgList args = args_.view();
  run_.command = args;
  run_.keys = args.subspan(3, run.keys.size());
  run_.argv = args.subspan(3 + run.keys.size());
  name_ = std::string(run.name);
  run_.name = name_;
  run_.task = this;
}

ScriptTask::~ScriptTask() = default;

void ScriptTask::Begin() { Step(co_.start_nargs); }

void ScriptTask::Step(int nargs) {
  std::string reply;
  ReplyBuilder rb(&reply, resp3_);
  if (!engine_.Resume(co_, run_, nargs, rb)) return;  // waits for a command's reply
  Finish(std::move(reply));
}

void ScriptTask::Answered(std::string reply) {
  sink_in_use_.reset();
  if (pending_spec_ != nullptr) {
    if (logging_) AofPropagate(pending_args_->view(), reply, home_.shard().NowMs(), &records_);
    pending_spec_ = nullptr;
    pending_args_.reset();
  }
  lua_State* co = co_.co;
  if (run_.raise_on_error && !reply.empty() && reply[0] == '-') {
    // redis.call raises the error where the script resumes.
    run_.raise = std::move(reply);
    run_.raise_line = run_.call_line;
    lua_pushnil(co);
  } else {
    PushRespAsLua(co, reply);
  }
  Step(1);
}

void ScriptTask::Finish(std::string reply) {
  engine_.Release(co_);
  if (exec_records_ != nullptr) {
    // EXEC (waiting for this reply) wraps them with its own.
    exec_records_->append(records_);
  } else if (!records_.empty() && shards_.journal().recording()) {
    std::string unit;
    AppendUnit(records_, &unit);
    home_.note_aof_position(shards_.journal().Append(unit));
  }
  // Every shard that holds a lock of the script gives it back: the declared keys' groups,
  // and the shards where a command may have locked an undeclared key.
  const std::vector<uint32_t>& grouped = locks_->groups->shards();
  std::vector<uint8_t> release(shards_.size(), 0);
  for (uint32_t s : grouped) release[s] = 1;
  for (uint32_t s = 0; s < shards_.size(); ++s) release[s] |= called_[s];
  release[home_.id()] = 1;
  for (uint32_t s = 0; s < shards_.size(); ++s) {
    if (!release[s]) continue;
    auto unlock = [task = shared_from_this(), s] {
      Shard& shard = task->shards_.thread(s).shard();
      const std::vector<uint32_t>& grouped = task->locks_->groups->shards();
      auto at = std::lower_bound(grouped.begin(), grouped.end(), s);
      if (at != grouped.end() && *at == s) {
        ReleaseOn(shard, *task->locks_, size_t(at - grouped.begin()));
      }
      std::vector<uint64_t>& mine = task->undeclared_[s];
      if (!mine.empty()) shard.locks().Unlock(mine, false);
      mine.clear();
    };
    if (s == home_.id()) {
      unlock();
    } else {
      home_.Post(s, std::move(unlock));
    }
  }
  // The connection's later commands, held while the script ran, go after the unlocks
  // (posted first) on every shard. The reply slot is still owed, so the client is alive.
  --client_->scripts_running;
  ReplySink* sink = sink_;
  sink->Fulfill(slot_, std::move(reply));
  sink->Resume();
}

bool ScriptTask::Declared(std::string_view key) const {
  return std::find(run_.keys.begin(), run_.keys.end(), key) != run_.keys.end();
}

bool ScriptTask::RunOn(ShardThread& there, const CommandSpec& spec, ArgList args,
                       std::string* records, std::string* out) {
  KeyLocks& locks = there.shard().locks();
  std::vector<uint64_t>& mine = undeclared_[there.id()];
  const KeySpan keys = spec.KeysFor(args);
  for (size_t i = keys.first; i <= keys.last; i += keys.step) {
    if (Declared(args[i])) continue;
    const uint64_t h = HashKey(args[i]);
    if (std::find(mine.begin(), mine.end(), h) != mine.end()) continue;
    const KeyLocks::Keys one(&h, 1);
    if (!locks.Idle() && !locks.MayRun(one, false)) {
      *out = StrCat(script_err::kLockedKey, "'", args[i].substr(0, 128), "'");
      return false;
    }
    locks.Lock(one, false);
    mine.push_back(h);
  }
  RunCalledOnShard(there, server_, spec, args, run_.resp, records, out);
  return true;
}

CallStatus ScriptTask::Call(const CommandSpec& spec, ArgList args, bool may_suspend,
                            std::string* out) {
  const KeySpan keys = spec.KeysFor(args);
  const uint32_t owner = spec.on_shard != nullptr ? OwnerOf(shards_, args, keys) : kNoShard;
  if (owner == kNoShard) return CallCoordinator(spec, args, may_suspend, out);
  if (owner == home_.id()) {
    if (!RunOn(home_, spec, args, logging_ ? &records_ : nullptr, out)) {
      return CallStatus::kRefused;
    }
    FeedCalled(home_, shards_, server_, spec, args);
    return CallStatus::kReplied;
  }
  if (!may_suspend) {
    *out = StrCat(script_err::kCannotWait, spec.full_name, "'");
    return CallStatus::kRefused;
  }
  FeedCalled(home_, shards_, server_, spec, args);
  called_[owner] = 1;
  auto work = [task = shared_from_this(), spec = &spec, owned = std::make_shared<OwnedArgs>(args),
               owner]() mutable {
    ShardThread& there = task->shards_.thread(owner);
    std::string reply;
    // What the call changes travels home with its reply, to the script's records.
    std::string records;
    if (!task->RunOn(there, *spec, owned->view(), task->logging_ ? &records : nullptr, &reply)) {
      reply = StrCat("-", reply, "\r\n");
    }
    const uint32_t home = task->home_.id();
    there.Post(home, [task = std::move(task), reply = std::move(reply),
                      records = std::move(records)]() mutable {
      task->Recorded(records);
      task->Answered(std::move(reply));
    });
  };
  home_.Post(owner, std::move(work));
  return CallStatus::kPending;
}

CallStatus ScriptTask::CallCoordinator(const CommandSpec& spec, ArgList args, bool may_suspend,
                                       std::string* out) {
  // Its own locks nest inside the script's, so every key must be one the script holds.
  std::vector<size_t> positions;
  spec.AllKeyPositions(args, &positions);
  for (size_t pos : positions) {
    if (!Declared(args[pos])) {
      *out = StrCat(script_err::kUndeclaredAcross, "'", args[pos].substr(0, 128), "'");
      return CallStatus::kRefused;
    }
  }
  if (!may_suspend) {
    *out = StrCat(script_err::kCannotWait, spec.full_name, "'");
    return CallStatus::kRefused;
  }
  FeedCalled(home_, shards_, server_, spec, args);
  sink_in_use_ = std::make_unique<Sink>(shared_from_this());
  ClientState& client = engine_.script_client();
  client.resp3 = run_.resp == 3;
  client.exec_nested = true;
  ReplyBuilder rb(out, run_.resp == 3);
  CoordCmd cmd{home_, shards_, server_, client, *sink_in_use_, engine_.registry().table(),
               args,  rb};
  InvokeOnCoord(cmd, spec, InvokeAs{InvokePath::kScript});
  client.exec_nested = false;
  if (sink_in_use_->Started()) {
    *out += sink_in_use_->reply();
    sink_in_use_.reset();
    if (logging_ && (spec.flags & kCmdWrite)) {
      AofPropagate(args, *out, home_.shard().NowMs(), &records_);
    }
    return CallStatus::kReplied;
  }
  if (logging_ && (spec.flags & kCmdWrite)) {
    pending_spec_ = &spec;
    pending_args_ = std::make_unique<OwnedArgs>(args);
  }
  // The rest of the reply comes later; what the handler wrote inline goes first.
  sink_in_use_->reply().insert(0, *out);
  out->clear();
  return CallStatus::kPending;
}

}  // namespace rc
