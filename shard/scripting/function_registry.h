#pragma once
// Every function library the server has (FUNCTION LOAD, DELETE, FLUSH, RESTORE), under one
// mutex, with a generation number that every change bumps. Any thread.
//
//   FUNCTION LOAD on thread t ─▶ t compiles and runs the code to learn its functions
//     (FunctionEngine::Make) ─▶ Add: the library becomes visible to every thread at once
//   FCALL f on thread u ─▶ FunctionEngine u: generation unchanged and f known? run it
//     ─▶ else Find(f) here ─▶ u compiles f's library in its own Lua state, keeps it by id
//   DELETE / FLUSH / REPLACE / RESTORE ─▶ generation + 1 ─▶ each thread's next FCALL looks
//     f up again and drops its compiled copies of libraries that are gone
//
// Library names are case-sensitive, function names are not (FCALL F finds f), as in
// Redis 7.0. Libraries list in name order (Redis's own order is its dict's, which varies
// between runs).

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "shard/scripting/function_library.h"

namespace rc {

enum class RestorePolicy : uint8_t { kAppend, kReplace, kFlush };

class FunctionRegistry {
 public:
  bool Exists(std::string_view library) const;
  // FUNCTION LOAD [REPLACE]: adds `lib`, replacing the library of its name when `replace`.
  // False with Redis's error when the name is taken (without replace) or one of its
  // functions belongs to another library; nothing changes then.
  bool Add(LibraryPtr lib, bool replace, std::string* error);
  bool Delete(std::string_view library);
  void Flush();
  // FUNCTION RESTORE: `libs` (checked among themselves already) join the libraries as
  // `policy` says, all or none. False with Redis's error.
  bool Restore(const std::vector<LibraryPtr>& libs, RestorePolicy policy, std::string* error);

  // The library of function `lowered` (its name in lower case), and its index there.
  struct Found {
    LibraryPtr lib;
    size_t index = 0;
  };
  bool Find(std::string_view lowered, Found* out) const;
  bool Live(uint64_t id) const;
  // Every library, in name order.
  std::vector<LibraryPtr> Libraries() const;
  // Read before a lookup: a lookup made after it is at least this recent.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  // A fresh Library::id.
  uint64_t NextId() { return next_id_.fetch_add(1, std::memory_order_relaxed); }

  // INFO and FUNCTION STATS.
  size_t library_count() const;
  size_t function_count() const;
  size_t memory_bytes() const;

 private:
  using FunctionMap = absl::flat_hash_map<std::string, Found>;
  // Links `lib` into the maps; Unlink takes it out. mu_ held.
  void Link(const LibraryPtr& lib);
  void Unlink(const Library& lib);
  void Changed() { generation_.fetch_add(1, std::memory_order_acq_rel); }

  mutable std::mutex mu_;
  std::map<std::string, LibraryPtr, std::less<>> libraries_;  // guarded by mu_
  FunctionMap functions_;                                     // lowered name; guarded by mu_
  size_t bytes_ = 0;                                          // guarded by mu_
  std::atomic<uint64_t> generation_{0};
  std::atomic<uint64_t> next_id_{1};
};

}  // namespace rc
