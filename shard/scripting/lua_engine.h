#pragma once
// One of a worker thread's two Lua interpreters (EVAL's, or the functions'): the sandbox
// Redis 7.0 gives scripts, the scripts compiled on this thread, and the run of one script
// or function. Owner thread only.
//
//   EVAL / EVALSHA on thread t ─▶ LuaEngine t: Load (compile once per thread, by SHA-1)
//   (FCALL: FunctionEngine t, function_engine.h, finds the function in its own LuaEngine)
//     ─▶ Run: KEYS and ARGV set (a function: passed), called under the error handler
//        ├─ redis.call / redis.pcall ─▶ ScriptCall (script_call.h): the command runs
//        │   here, on this thread's shard, and its RESP reply becomes a Lua value
//        └─ the returned value becomes the reply (lua_convert.h)
//
// The sandbox (as Redis 7.0's): the globals and the library tables are read-only
// ("Attempt to modify a readonly table"), reading a global that does not exist is an
// error, and there is no os, io, print, dofile, loadfile, require, getfenv or setfenv.
// math.random is Redis's 48-bit generator, never reseeded between scripts, so a thread
// answers the same sequence every run from start-up (each thread has its own).

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/reply_builder.h"
#include "shard/scripting/function_library.h"
#include "shard/scripting/lua_heap.h"
#include "shard/scripting/script_flags.h"
#include "shard/scripting/script_watchdog.h"
#include "shard/wire/client_state.h"
#include "shard/wire/command.h"
#include "shard/wire/reply_sink.h"

// The Lua API (shard/scripting/lua.h) stays inside shard/scripting: only its .cc files
// see which Lua is built in.
struct lua_State;

namespace rc {

class ScriptRegistry;
class ScriptTask;
class ShardThread;

// One script run: what it may do, what it has done. Lives on the running thread's stack.
struct ScriptRun {
  // What errors name: the script's SHA-1 (EVAL), or the function's name (FCALL).
  std::string_view name;
  ArgList command;         // the EVAL or FCALL that runs it, all its arguments
  ArgList keys;            // KEYS (a function's first argument)
  ArgList argv;            // ARGV (a function's second)
  bool read_only = false;  // EVAL_RO / EVALSHA_RO, or the no-writes flag
  // Over maxmemory when the script began: its first write that may grow memory is refused.
  bool oom_at_start = false;
  bool caller_resp3 = false;
  uint32_t flags = 0;  // the script's shebang flags
  // An FCALL's function rather than an EVAL's script: busy and kill texts name FUNCTION
  // KILL (script_watchdog.h).
  bool function = false;
  // Monotonic time its first step began, for busy-reply-threshold; 0 before.
  int64_t start_ns = 0;
  // Set for a run that may suspend (script_task.h: its KEYS span shards): the task, and
  // the coroutine it runs in. Null for a run that ends in one step on its thread.
  ScriptTask* task = nullptr;
  lua_State* coroutine = nullptr;
  // Changed by the script.
  int resp = 2;  // redis.setresp
  bool wrote = false;
  // The command a suspended run waits for: whether it was redis.call (an error reply
  // raises) and the script line of the call.
  bool raise_on_error = false;
  int call_line = -1;
  // Its error reply when it raises: the run raises it where it resumes, naming the line
  // of the call (raise_line), as Redis's error names it.
  std::string raise;
  int raise_line = -1;
};

class LuaEngine {
 public:
  // Each thread has two states, as Redis has two: EVAL's scripts in one, function
  // libraries in the other, so neither sees the other's globals. They differ in how a
  // script gets its keys and arguments (KEYS and ARGV globals, or the callback's two
  // arguments) and in FUNCTION LOAD's environment, which only the functions' state has.
  enum class Kind : uint8_t { kEval, kFunctions };

  // `vm_bytes`: where the state's heap size is kept for INFO (owned by the registry,
  // written by this thread only).
  LuaEngine(ScriptRegistry& registry, uint32_t shard, Kind kind, std::atomic<int64_t>* vm_bytes);
  ~LuaEngine();
  LuaEngine(const LuaEngine&) = delete;
  LuaEngine& operator=(const LuaEngine&) = delete;

  // A script compiled on this thread: its function (in the Lua registry) and its shebang
  // flags (or the function's registered flags).
  struct Script {
    int ref = 0;
    uint32_t flags = 0;
  };
  // EVAL's state: compiles `body` under `sha` unless this thread has it already. False
  // with the error reply's text (no leading '-').
  bool Load(std::string_view sha, std::string_view body, Script* out, std::string* error);
  // EVAL's state: the script `sha` (lowercase hex): compiled here already, or compiled now
  // from the registry's body. False: NOSCRIPT, or the body's compile error.
  bool Find(std::string_view sha, Script* out, std::string* error);
  // Runs `script` (which Load or Find gave for run.name) and writes its reply.
  void Run(const Script& script, ScriptRun& run, ReplyBuilder& reply);

  // The functions' state: runs a library's code (`body`, after its metadata line) in
  // FUNCTION LOAD's environment, where only redis.register_function, redis.log, the log
  // levels and the version exist, for at most 500 ms. Fills `out` with what it registered
  // (their callbacks referenced in the Lua registry), or is false with Redis's error and
  // keeps nothing. `replay`: the library was loaded already (this thread compiles it for
  // an FCALL), so its redis.log lines are not written again.
  struct RegisteredFunction {
    FunctionInfo info;
    int ref = 0;
  };
  bool LoadLibrary(std::string_view body, bool replay, std::vector<RegisteredFunction>* out,
                   std::string* error);
  // The functions registered so far by the library being loaded, or nullptr.
  std::vector<RegisteredFunction>* loading() { return loading_; }
  bool replaying() const { return replaying_; }
  // When the library being loaded must give up (FUNCTION LOAD timeout).
  int64_t load_deadline_ns() const { return load_deadline_ns_; }
  // Frees a function's callback.
  void Unref(int ref);
  // A full collection (after dropping compiled scripts or libraries).
  void CollectGarbage();

  // A run that may suspend at a command another thread must answer (script_task.h): a
  // coroutine of this engine's state with its own KEYS and ARGV.
  struct Coroutine {
    lua_State* co = nullptr;
    int ref = 0;  // anchors co in the Lua registry
    int keys_ref = 0;
    int argv_ref = 0;
    int start_nargs = 0;  // what the first Resume passes: a function's keys and args
  };
  // Creates the coroutine of `script` for `run` (whose coroutine it sets).
  Coroutine Spawn(const Script& script, ScriptRun& run);
  // Runs the coroutine on with `nargs` values pushed on it (the answer of the command it
  // waits for). True when the script ended and `reply` holds its reply; false when it
  // suspended again.
  bool Resume(Coroutine& c, ScriptRun& run, int nargs, ReplyBuilder& reply);
  // Frees the coroutine of a run that ended.
  void Release(Coroutine& c);

  Kind kind() const { return kind_; }
  lua_State* state() { return L_; }
  ScriptRegistry& registry() { return registry_; }
  ShardThread& thread() { return thread_; }
  // The script running now, or nullptr.
  ScriptRun* current() { return current_; }
  // The client that commands called by scripts run as (Redis's lua client).
  ClientState& script_client() { return client_; }
  // Reply bytes of the command a script called, reused between calls.
  std::string& scratch() { return scratch_; }
  // Keeps a sink whose command answers after the script gave up on it, until it has.
  void Abandon(std::unique_ptr<ReplySink> sink);
  // Busy-reply-threshold and SCRIPT KILL for this thread's runs.
  ScriptWatchdog& watchdog() { return watchdog_; }

 private:
  void Open();
  void DropIfFlushed();
  void CollectSometimes();
  // Pushes the function and what it is called with; returns how many arguments.
  int PushCall(lua_State* L, const Script& script, const ScriptRun& run);
  // Makes the globals' reads go to the table referenced by `ref` (the real globals, or
  // FUNCTION LOAD's environment).
  void SetGlobalsIndex(int ref);

  ScriptRegistry& registry_;
  ShardThread& thread_;
  const Kind kind_;
  LuaHeap heap_;  // outlives L_
  lua_State* L_ = nullptr;
  int globals_ref_ = 0;     // the real globals table (scripts see a read-only proxy)
  int proxy_meta_ref_ = 0;  // the proxy's metatable, whose __index is the real globals
  int load_env_ref_ = 0;    // FUNCTION LOAD's globals (functions' state only)
  int handler_ref_ = 0;     // the error handler
  uint64_t generation_ = 0;
  int gc_count_ = 0;
  absl::flat_hash_map<std::string, Script> scripts_;
  ScriptRun* current_ = nullptr;
  std::vector<RegisteredFunction>* loading_ = nullptr;
  bool replaying_ = false;
  int64_t load_deadline_ns_ = 0;
  ClientState client_;
  std::string scratch_;
  std::vector<std::unique_ptr<ReplySink>> abandoned_;
  ScriptWatchdog watchdog_;
};

}  // namespace rc
