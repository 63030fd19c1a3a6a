#pragma once
// One worker thread's Lua interpreter: the sandbox Redis 7.0 gives scripts, the scripts
// compiled on this thread, and the run of one script. Owner thread only.
//
//   EVAL / EVALSHA on thread t ─▶ LuaEngine t: Load (compile once per thread, by SHA-1)
//     ─▶ Run: KEYS and ARGV set, the function called under the error handler
//        ├─ redis.call / redis.pcall ─▶ ScriptCall (script_call.h): the command runs
//        │   here, on this thread's shard, and its RESP reply becomes a Lua value
//        └─ the returned value becomes the reply (lua_convert.h)
//
// The sandbox (as Redis 7.0's): the globals and the library tables are read-only
// ("Attempt to modify a readonly table"), reading a global that does not exist is an
// error, and there is no os, io, print, dofile, loadfile, require, getfenv or setfenv.
// math.random is Redis's 48-bit generator, never reseeded between scripts, so a thread
// answers the same sequence every run from start-up (each thread has its own).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/reply_builder.h"
#include "shard/command/client_state.h"
#include "shard/command/command.h"
#include "shard/command/reply_sink.h"
#include "shard/scripting/lua_heap.h"

// The Lua API (shard/scripting/lua.h) stays inside shard/scripting: only its .cc files
// see which Lua is built in.
struct lua_State;

namespace rc {

class ScriptRegistry;
class ScriptTask;
class ShardThread;

// Shebang flags (`#!lua flags=no-writes,allow-oom`), Redis's SCRIPT_FLAG_*.
enum ScriptFlag : uint32_t {
  kScriptNoWrites = 1 << 0,
  kScriptAllowOom = 1 << 1,
  kScriptAllowStale = 1 << 2,
  kScriptNoCluster = 1 << 3,
  kScriptAllowCrossSlot = 1 << 4,
  // No shebang: Redis 7.0's compatibility mode for scripts written before flags existed.
  kScriptEvalCompat = 1 << 5,
};

// Parses a shebang line at the start of `body`: its flags and the length to skip (the
// line without its newline, so line numbers stay). False with Redis's error text.
bool ParseShebang(std::string_view body, uint32_t* flags, size_t* skip, std::string* error);

// One script run: what it may do, what it has done. Lives on the running thread's stack.
struct ScriptRun {
  std::string_view sha;
  ArgList keys;            // KEYS
  ArgList argv;            // ARGV
  bool read_only = false;  // EVAL_RO / EVALSHA_RO, or the no-writes flag
  // Over maxmemory when the script began: its first write that may grow memory is refused.
  bool oom_at_start = false;
  bool caller_resp3 = false;
  uint32_t flags = 0;  // the script's shebang flags
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
  LuaEngine(ScriptRegistry& registry, uint32_t shard);
  ~LuaEngine();
  LuaEngine(const LuaEngine&) = delete;
  LuaEngine& operator=(const LuaEngine&) = delete;

  // A script compiled on this thread: its function (in the Lua registry) and its shebang
  // flags.
  struct Script {
    int ref = 0;
    uint32_t flags = 0;
  };
  // Compiles `body` under `sha` unless this thread has it already. False with the error
  // reply's text (no leading '-').
  bool Load(std::string_view sha, std::string_view body, Script* out, std::string* error);
  // The script `sha` (lowercase hex): compiled here already, or compiled now from the
  // registry's body. False: NOSCRIPT, or the body's compile error.
  bool Find(std::string_view sha, Script* out, std::string* error);
  // Runs `script` (which Load or Find gave for run.sha) and writes its reply.
  void Run(const Script& script, ScriptRun& run, ReplyBuilder& reply);

  // A run that may suspend at a command another thread must answer (script_task.h): a
  // coroutine of this engine's state with its own KEYS and ARGV.
  struct Coroutine {
    lua_State* co = nullptr;
    int ref = 0;  // anchors co in the Lua registry
    int keys_ref = 0;
    int argv_ref = 0;
  };
  // Creates the coroutine of `script` for `run` (whose coroutine it sets).
  Coroutine Spawn(const Script& script, ScriptRun& run);
  // Runs the coroutine on with `nargs` values pushed on it (the answer of the command it
  // waits for). True when the script ended and `reply` holds its reply; false when it
  // suspended again.
  bool Resume(Coroutine& c, ScriptRun& run, int nargs, ReplyBuilder& reply);
  // Frees the coroutine of a run that ended.
  void Release(Coroutine& c);

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

 private:
  void Open();
  void DropIfFlushed();
  void CollectSometimes();

  ScriptRegistry& registry_;
  ShardThread& thread_;
  LuaHeap heap_;  // outlives L_
  lua_State* L_ = nullptr;
  int globals_ref_ = 0;  // the real globals table (scripts see a read-only proxy)
  int handler_ref_ = 0;  // the error handler
  uint64_t generation_ = 0;
  int gc_count_ = 0;
  absl::flat_hash_map<std::string, Script> scripts_;
  ScriptRun* current_ = nullptr;
  ClientState client_;
  std::string scratch_;
  std::vector<std::unique_ptr<ReplySink>> abandoned_;
};

// Installs redis.*, cmsgpack and struct into the globals table on the top of the stack.
void OpenRedisLib(lua_State* L, LuaEngine* engine);
int OpenCmsgpack(lua_State* L);
int OpenStruct(lua_State* L);

}  // namespace rc
