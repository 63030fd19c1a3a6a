#pragma once
// A script whose KEYS live on several shards, run on its connection's thread ("home") as
// a coroutine, atomic under the multi-shard locks (multi_shard.h) of every key it
// declares. Home thread only, except RunOn, which runs on the shard it is given.
//
//   EVAL's or FCALL's coordinator ─▶ Launch: reply slot reserved; every declared key
//     locked (one parallel try, else shard by shard in ascending order)
//   ─▶ Begin: the coroutine runs here
//        ├─ redis.call on keys of this thread's shard ─▶ runs inline
//        ├─ on keys of shard S ─▶ the coroutine suspends; S runs the command (RunOn) and
//        │                        sends the reply home ─▶ the coroutine resumes with it
//        └─ on keys of several shards (MGET a b) ─▶ the command's coordinator, here,
//           inside these locks (as EXEC runs one: nested); the coroutine waits for it
//   ─▶ the script returns ─▶ its reply; every shard it locked releases
//
// Other commands reach no declared key before the end: each waits in its shard's
// KeyLocks. A key the script did not declare is locked at its first use if nothing holds
// or awaits it, and kept to the end; otherwise the call fails. The script never waits for
// a lock once it runs, so two scripts (or a script and MSET) cannot wait for each other.
// Its thread serves other clients while it waits for a shard; its own connection's later
// commands that name keys wait until it ends (ClientState::scripts_running), since it
// may touch keys it did not declare.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shard/command/multi_shard.h"
#include "shard/scripting/lua_engine.h"
#include "shard/scripting/script_call.h"
#include "shard/wire/command.h"
#include "shard/wire/owned_args.h"

namespace rc {

class ScriptTask : public std::enable_shared_from_this<ScriptTask> {
 public:
  // Connection's thread, from EVAL's or FCALL's coordinator once the script is found and
  // checked: runs `run` (its keys and argv view cmd.args; keys already counted) and
  // answers through cmd.sink.
  static void Launch(CoordCmd& cmd, LuaEngine& engine, const LuaEngine::Script& script,
                     const ScriptRun& run);

  ScriptTask(CoordCmd& cmd, LuaEngine& engine, const LuaEngine::Script& script,
             const ScriptRun& run);
  ~ScriptTask();

  // Home thread, from a redis.call of the running script whose keys passed Redis's
  // checks: runs it here or sends it to its keys' shard (kPending).
  CallStatus Call(const CommandSpec& spec, ArgList args, bool may_suspend, std::string* out);

 private:
  class Sink;

  void Begin();
  // The command the coroutine waits for answered (RESP bytes): it resumes.
  void Answered(std::string reply);
  // Home thread: a call's records (from its shard) join the script's.
  void Recorded(std::string_view records) { records_.append(records); }
  void Step(int nargs);
  void Finish(std::string reply);
  bool Declared(std::string_view key) const;
  // On the thread of shard `there`, owner of every key of `args`: locks the keys the
  // script did not declare (or refuses), then runs the command, its records into
  // `records` when given. False with the error text in *out.
  bool RunOn(ShardThread& there, const CommandSpec& spec, ArgList args, std::string* records,
             std::string* out);
  // Runs a command whose keys span shards (or that only a coordinator runs) here, inside
  // the script's locks.
  CallStatus CallCoordinator(const CommandSpec& spec, ArgList args, bool may_suspend,
                             std::string* out);

  LuaEngine& engine_;
  ShardThread& home_;
  ShardSet& shards_;
  ServerState& server_;
  OwnedArgs args_;
  std::string name_;  // what run_.name views
  LuaEngine::Script script_;
  ScriptRun run_;
  LuaEngine::Coroutine co_;
  ClientState* client_;
  ReplySink* sink_;
  uint64_t slot_;
  bool resp3_;
  std::shared_ptr<const LockSet> locks_;
  // Keys used without being declared and locked at first use, per shard: slot s is
  // touched only on shard s's thread.
  std::vector<std::vector<uint64_t>> undeclared_;
  // Home: the shards commands went to (they may hold such locks).
  std::vector<uint8_t> called_;
  std::unique_ptr<Sink> sink_in_use_;
  // With the log on: the records of what the script's calls changed, in call order. They
  // reach the journal whole, inside MULTI ... EXEC, before the locks come off (Finish).
  bool logging_ = false;
  std::string records_;
  std::string* exec_records_ = nullptr;  // inside EXEC: where the records go instead
  // A coordinator call whose reply comes later: recorded then.
  const CommandSpec* pending_spec_ = nullptr;
  std::unique_ptr<OwnedArgs> pending_args_;
};

}  // namespace rc
