#include "shard/scripting/script_registry.h"

#include "core/strings.h"
#include "shard/runtime/shard_set.h"
#include "shard/scripting/function_engine.h"
#include "shard/scripting/lua_engine.h"

namespace rc {

ScriptRegistry::ScriptRegistry(ShardSet& shards, ServerState& server, const CommandTable& table)
    : shards_(shards),
      server_(server),
      table_(table),
      vm_bytes_(new VmBytes[shards.size()]),
      engines_(shards.size()),
      function_engines_(shards.size()) {}

ScriptRegistry::~ScriptRegistry() = default;

void ScriptRegistry::Add(std::string_view sha, std::string_view body) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, added] = bodies_.try_emplace(std::string(sha), body);
  if (added) bytes_ += body.size() + sha.size();
}

bool ScriptRegistry::Find(std::string_view sha, std::string* body) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = bodies_.find(AbslView(sha));
  if (it == bodies_.end()) return false;
  *body = it->second;
  return true;
}

bool ScriptRegistry::Exists(std::string_view sha) const {
  std::lock_guard<std::mutex> lock(mu_);
  return bodies_.contains(AbslView(sha));
}

void ScriptRegistry::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  bodies_.clear();
  bytes_ = 0;
  generation_.fetch_add(1, std::memory_order_acq_rel);
}

size_t ScriptRegistry::count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bodies_.size();
}

size_t ScriptRegistry::body_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

LuaEngine& ScriptRegistry::engine(uint32_t shard) {
  std::unique_ptr<LuaEngine>& e = engines_[shard];
  if (e == nullptr) {
    e = std::make_unique<LuaEngine>(*this, shard, LuaEngine::Kind::kEval, &vm_bytes_[shard].eval);
  }
  return *e;
}

FunctionEngine& ScriptRegistry::function_engine(uint32_t shard) {
  std::unique_ptr<FunctionEngine>& e = function_engines_[shard];
  if (e == nullptr) e = std::make_unique<FunctionEngine>(*this, shard, &vm_bytes_[shard].functions);
  return *e;
}

int64_t ScriptRegistry::eval_vm_bytes() const {
  int64_t sum = 0;
  for (size_t i = 0; i < engines_.size(); ++i)
    sum += vm_bytes_[i].eval.load(std::memory_order_relaxed);
  return sum;
}

int64_t ScriptRegistry::functions_vm_bytes() const {
  int64_t sum = 0;
  for (size_t i = 0; i < engines_.size(); ++i) {
    sum += vm_bytes_[i].functions.load(std::memory_order_relaxed);
  }
  return sum;
}

}  // namespace rc
