#include "core/malloc_counter.h"

#include <malloc.h>

#include <cstdlib>
#include <string_view>
#include <thread>

#include "gtest/gtest.h"

namespace rc {
namespace {

// Other threads (gtest's, none here) could move the sum meanwhile; this binary runs one
// test at a time and allocates nothing in the background, so deltas are exact.
class MallocCounterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!MallocCounted()) GTEST_SKIP() << "sanitizer build: its allocator is not counted";
  }
};

TEST_F(MallocCounterTest, MallocFreeCallocReallocAndAlignedForms) {
  const int64_t base = MallocCountedBytes();
  void* a = std::malloc(1 << 20);
  const int64_t a_size = int64_t(malloc_usable_size(a));
  EXPECT_GE(a_size, 1 << 20);
  EXPECT_EQ(MallocCountedBytes() - base, a_size);
  void* b = std::calloc(100, 10);
  const int64_t b_size = int64_t(malloc_usable_size(b));
  EXPECT_EQ(MallocCountedBytes() - base, a_size + b_size);
  b = std::realloc(b, 5000);
  const int64_t b2_size = int64_t(malloc_usable_size(b));
  EXPECT_EQ(MallocCountedBytes() - base, a_size + b2_size);
  void* c = std::aligned_alloc(4096, 8192);
  void* d = nullptr;
  ASSERT_EQ(posix_memalign(&d, 64, 100), 0);
  EXPECT_EQ(MallocCountedBytes() - base,
            a_size + b2_size + int64_t(malloc_usable_size(c)) + int64_t(malloc_usable_size(d)));
  EXPECT_EQ(posix_memalign(&d, 3, 100), EINVAL);  // refused: nothing counted, d kept
  std::free(d);
  std::free(c);
  std::free(nullptr);
  EXPECT_EQ(std::realloc(b, 0), nullptr);  // glibc frees b
  std::free(a);
  EXPECT_EQ(MallocCountedBytes(), base);
}

TEST_F(MallocCounterTest, FreedOnAnotherThread) {
  const int64_t base = MallocCountedBytes();
  void* p = std::malloc(300000);
  std::thread([p] { std::free(p); }).join();
  // glibc may keep a little of the thread's own bookkeeping (its TLS vector) cached.
  EXPECT_NEAR(double(MallocCountedBytes()), double(base), 4096);
}

TEST_F(MallocCounterTest, NewAndDeleteGoThroughMalloc) {
  const int64_t base = MallocCountedBytes();
  // Through a volatile pointer: the compiler may otherwise elide a new/delete pair.
  static char* volatile big;
  big = new char[200000];
  const int64_t with = MallocCountedBytes();
  delete[] big;
  const int64_t after = MallocCountedBytes();
  EXPECT_GE(with - base, 200000);
  EXPECT_EQ(after, base);
}

// The memory limit counts glibc's chunk headers (memory_limit.cc): 8 bytes a live block,
// whatever its size; size-class allocators count none.
TEST_F(MallocCounterTest, HeaderBytesFollowLiveBlocks) {
  const int64_t per_block = std::string_view(MallocName()) == "libc" ? 8 : 0;
  const int64_t base = MallocHeaderBytes();
  void* blocks[10];
  for (void*& b : blocks) b = std::malloc(40);
  void* big = std::malloc(1 << 20);
  EXPECT_EQ(MallocHeaderBytes() - base, 11 * per_block);
  big = std::realloc(big, 2 << 20);  // the same block, moved
  EXPECT_EQ(MallocHeaderBytes() - base, 11 * per_block);
  for (void* b : blocks) std::free(b);
  std::free(big);
  EXPECT_EQ(MallocHeaderBytes(), base);
}

}  // namespace
}  // namespace rc
