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
  void* out = heap->Resize(ptr, ptr == nullptr ? 0 : osize, nsize);
  // A failed growth leaves the old block; a shrink never fails.
  if (out != nullptr || nsize == 0)
    heap->Count(int64_t(nsize) - int64_t(ptr == nullptr ? 0 : osize));
  return out;
}

void* LuaHeap::Resize(void* ptr, size_t osize, size_t nsize) {
  if (nsize == 0) {
    if (ptr != nullptr) Give(ptr, osize);
    return nullptr;
  }
  if (ptr == nullptr) return Take(nsize);
  if (osize > kMaxSmall && nsize > kMaxSmall) return std::realloc(ptr, nsize);
  if (osize <= kMaxSmall && nsize <= kMaxSmall && ClassOf(osize) == ClassOf(nsize)) return ptr;
  void* moved = Take(nsize);
  // Lua needs a shrink to succeed: keep the old block if there is no new one.
  if (moved == nullptr) return nsize <= osize ? ptr : nullptr;
  std::memcpy(moved, ptr, osize < nsize ? osize : nsize);
  Give(ptr, osize);
  return moved;
}

}  // namespace rc
