#include "shard/scripting/lua_heap.h"

#include <cstdlib>
#include <cstring>

namespace rc {

LuaHeap::~LuaHeap() {
  for (FreeList& list : free_) {
    while (list.head != nullptr) {
      FreeBlock* b = list.head;
      list.head = b->next;
      std::free(b);
    }
  }
}

void* LuaHeap::Take(size_t n) {
  if (n > kMaxSmall) return std::malloc(n);
  FreeList& list = free_[ClassOf(n)];
  if (list.head == nullptr) return std::malloc((ClassOf(n) + 1) * kGranule);
  FreeBlock* b = list.head;
  list.head = b->next;
  --list.count;
  return b;
}

void LuaHeap::Give(void* p, size_t n) {
  if (n > kMaxSmall) return std::free(p);
  FreeList& list = free_[ClassOf(n)];
  if (list.count == kMaxFreePerClass) return std::free(p);
  auto* b = static_cast<FreeBlock*>(p);
  b->next = list.head;
  list.head = b;
  ++list.count;
}

void* LuaHeap::Alloc(void* ud, void* ptr, size_t osize, size_t nsize) {
  auto* heap = static_cast<LuaHeap*>(ud);
  if (nsize == 0) {
    if (ptr != nullptr) heap->Give(ptr, osize);
    return nullptr;
  }
  if (ptr == nullptr) return heap->Take(nsize);
  if (osize > kMaxSmall && nsize > kMaxSmall) return std::realloc(ptr, nsize);
  if (osize <= kMaxSmall && nsize <= kMaxSmall && ClassOf(osize) == ClassOf(nsize)) return ptr;
  void* moved = heap->Take(nsize);
  // Lua needs a shrink to succeed: keep the old block if there is no new one.
  if (moved == nullptr) return nsize <= osize ? ptr : nullptr;
  std::memcpy(moved, ptr, osize < nsize ? osize : nsize);
  heap->Give(ptr, osize);
  return moved;
}

}  // namespace rc
