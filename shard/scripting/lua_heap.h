#pragma once
// One thread's Lua allocator (lua_newstate's lua_Alloc). Owner thread only.
//
// A script run makes and drops a few small objects (KEYS and ARGV tables, strings,
// replies as Lua values), and Lua's collector frees them in bursts. Through glibc those
// bursts overflow its per-thread cache and every later malloc sorts the freed chunks
// again (a quarter of a short script's CPU). Here blocks up to kMaxSmall bytes are kept
// on free lists by 16-byte size class, up to kMaxFreePerClass each, so a run reuses what
// the last one freed; larger blocks and the overflow go straight to malloc and free.

#include <cstddef>

namespace rc {

class LuaHeap {
 public:
  LuaHeap() = default;
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
  void* Take(size_t n);
  void Give(void* p, size_t n);

  FreeList free_[kClasses];
};

}  // namespace rc
