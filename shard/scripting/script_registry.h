#pragma once
// Every script the server knows, by SHA-1, and each worker thread's Lua engine.
//
//   SCRIPT LOAD / EVAL (any thread) ─▶ Add(sha, body): the body is kept here, under a mutex
//   EVALSHA on thread t ─▶ engine(t): compiled already? run ─▶ else Find(sha) here,
//                           compile on t, cache there
//   SCRIPT FLUSH ─▶ bodies dropped, generation + 1 ─▶ each engine drops its compiled
//                   scripts when it next sees the new generation
//
// So SCRIPT LOAD on one thread reaches every thread without a message: each compiles a
// script the first time it runs it. An EVAL is added on the connection's thread before it
// leaves for its key's shard (CommandSpec::prepare), so the connection's next EVALSHA
// finds it even when that one runs first, on another shard. Function libraries work the
// same way through the FunctionRegistry held here (function_registry.h) and each
// thread's FunctionEngine, a Lua state of its own. Engines are created on their own
// thread at first use and touched by no other; the size of each state's heap is kept
// here, in atomics any thread reads (INFO).

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "shard/scripting/function_registry.h"

namespace rc {

class CommandTable;
class FunctionEngine;
class LuaEngine;
class ShardSet;
struct ServerState;

class ScriptRegistry {
 public:
  ScriptRegistry(ShardSet& shards, ServerState& server, const CommandTable& table);
  ~ScriptRegistry();

  // Any thread.
  void Add(std::string_view sha, std::string_view body);
  bool Find(std::string_view sha, std::string* body) const;
  bool Exists(std::string_view sha) const;
  // SCRIPT FLUSH: forgets every script; engines notice through generation().
  void Flush();
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  // INFO's number_of_cached_scripts and used_memory_scripts_eval.
  size_t count() const;
  size_t body_bytes() const;

  // Owner thread of `shard`: its engine for EVAL's scripts, and its functions' engine,
  // each created on first use.
  LuaEngine& engine(uint32_t shard);
  FunctionEngine& function_engine(uint32_t shard);

  // Any thread.
  FunctionRegistry& functions() { return functions_; }
  const FunctionRegistry& functions() const { return functions_; }
  // Bytes the Lua states of every thread hold (INFO used_memory_vm_eval and _functions).
  int64_t eval_vm_bytes() const;
  int64_t functions_vm_bytes() const;

  ShardSet& shards() const { return shards_; }
  ServerState& server() const { return server_; }
  const CommandTable& table() const { return table_; }

 private:
  ShardSet& shards_;
  ServerState& server_;
  const CommandTable& table_;
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, std::string> bodies_;  // guarded by mu_
  size_t bytes_ = 0;                                      // guarded by mu_
  std::atomic<uint64_t> generation_{0};
  FunctionRegistry functions_;
  // Slot i: written by thread i's Lua heaps, read by any thread. Outlives the engines.
  struct alignas(64) VmBytes {
    std::atomic<int64_t> eval{0};
    std::atomic<int64_t> functions{0};
  };
  std::unique_ptr<VmBytes[]> vm_bytes_;
  // Slot i: thread i's only.
  std::vector<std::unique_ptr<LuaEngine>> engines_;
  std::vector<std::unique_ptr<FunctionEngine>> function_engines_;
};

}  // namespace rc
