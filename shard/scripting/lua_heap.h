#pragma once
// One thread's Lua allocator (lua_newstate's lua_Alloc). Owner thread only.
//
// A script run makes and drops a few small objects (KEYS and ARGV tables, strings,
// replies as Lua values), and Lua's collector frees them in bursts. Through glibc those
// bursts overflow its per-thread cache and every later malloc sorts the freed chunks
// again (a quarter of a short script's CPU). Here blocks up to kMaxSmall bytes are kept
// on free lists by 16-byte size class, up to kMaxFreePerClass each, so a run reuses what
// the last one freed; larger blocks and the overflow go straight to malloc and free.
//
// It also keeps the bytes the state holds (what Lua asked for, as collectgarbage("count")
// reports them) in an atomic the owner thread alone writes, for INFO's used_memory_vm_*
// on whichever thread asks.

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace rc {

class LuaHeap {
 public:
  LuaHeap() = default;
  // `bytes`: where the state's size is kept (outlives the heap); null keeps none.
  explicit LuaHeap(std::atomic<int64_t>* bytes) : bytes_(bytes) {}
  ~LuaHeap();
  LuaHeap(const LuaHeap&) = delete;
  LuaHeap& operator=(const LuaHeap&) = delete;

  // lua_Alloc: `ud` is a LuaHeap.
  static void* Alloc(void* ud, void* ptr, size_t osize, size_t nsize);

 private:
  static constexpr size_t kGranule = 16;
  static constexpr size_t kMaxSmall = 256;
  static constexpr size_t kClasses = kMaxSmall / kGranule;
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer sees every block come and go: none is kept.
  static constexpr size_t kMaxFreePerClass = 0;
#else
  static constexpr size_t kMaxFreePerClass = 1024;
#endif

  struct FreeBlock {
    FreeBlock* next;
  };
  struct FreeList {
    FreeBlock* head = nullptr;
    size_t count = 0;
  };

  // Size class of an allocation of n bytes (1..kMaxSmall): 0 for 1..16 bytes.
  static size_t ClassOf(size_t n) { return (n - 1) / kGranule; }
  void* Resize(void* ptr, size_t osize, size_t nsize);
  void* Take(size_t n);
  void Give(void* p, size_t n);
  // Owner thread: the state grew by `delta` bytes (shrank when negative).
  void Count(int64_t delta) {
    if (bytes_ != nullptr) {
      bytes_->store(bytes_->load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
    }
  }

  FreeList free_[kClasses];
  std::atomic<int64_t>* bytes_ = nullptr;
};

}  // namespace rc
