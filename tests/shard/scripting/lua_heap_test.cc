// LuaHeap (shard/scripting/lua_heap.h) through the lua_Alloc calls Lua makes: contents
// survive every resize, freed small blocks come back to the next allocation of their
// class, and a real Lua state runs on it.
#include "shard/scripting/lua_heap.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "shard/scripting/lua.h"

namespace rc {
namespace {

void* Alloc(LuaHeap& heap, void* p, size_t osize, size_t nsize) {
  return LuaHeap::Alloc(&heap, p, osize, nsize);
}

TEST(LuaHeapTest, ResizeKeepsContentsAcrossClassesAndLargeBlocks) {
  LuaHeap heap;
  size_t size = 3;
  auto* p = static_cast<char*>(Alloc(heap, nullptr, 0, size));
  std::memcpy(p, "abc", 3);
  std::string want = "abc";
  // Up through every class into malloc's blocks, then down again.
  for (size_t next : {8, 16, 17, 100, 256, 257, 4000, 300, 256, 40, 16, 2}) {
    p = static_cast<char*>(Alloc(heap, p, size, next));
    ASSERT_NE(p, nullptr);
    want.resize(next, 'x');
    if (next > size) std::memset(p + size, 'x', next - size);
    ASSERT_EQ(std::string(p, next), want) << "after resizing " << size << " -> " << next;
    size = next;
  }
  EXPECT_EQ(Alloc(heap, p, size, 0), nullptr);
}

TEST(LuaHeapTest, SameClassResizeStaysInPlace) {
  LuaHeap heap;
  void* p = Alloc(heap, nullptr, 0, 33);
  EXPECT_EQ(Alloc(heap, p, 33, 48), p);
  EXPECT_EQ(Alloc(heap, p, 48, 40), p);
  Alloc(heap, p, 40, 0);
}

#if !defined(__SANITIZE_ADDRESS__)
TEST(LuaHeapTest, FreedSmallBlocksAreReusedByTheirClass) {
  LuaHeap heap;
  std::vector<void*> blocks;
  for (int i = 0; i < 100; ++i) blocks.push_back(Alloc(heap, nullptr, 0, 56));
  for (void* b : blocks) Alloc(heap, b, 56, 0);
  // Last freed, first reused; any size of the class (49..64 bytes) takes it.
  EXPECT_EQ(Alloc(heap, nullptr, 0, 64), blocks.back());
  EXPECT_EQ(Alloc(heap, nullptr, 0, 49), blocks[blocks.size() - 2]);
  void* other = Alloc(heap, nullptr, 0, 24);
  EXPECT_NE(other, blocks[blocks.size() - 3]);
  Alloc(heap, other, 24, 0);
  // The rest stay on the list until the heap goes.
}
#endif

TEST(LuaHeapTest, RunsALuaState) {
  LuaHeap heap;
  lua_State* L = lua_newstate(LuaHeap::Alloc, &heap);
  ASSERT_NE(L, nullptr);
  luaL_openlibs(L);
  const char* kScript =
      "local t = {} for i = 1, 20000 do t[i] = tostring(i) .. 'x' end "
      "local n = 0 for k, v in pairs(t) do n = n + #v end "
      "t = nil collectgarbage() return n";
  ASSERT_EQ(luaL_dostring(L, kScript), 0) << lua_tostring(L, -1);
  EXPECT_EQ(lua_tointeger(L, -1), 108894);
  lua_close(L);
}

}  // namespace
}  // namespace rc
