#include "core/malloc_counter.h"

#include <malloc.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define RC_SANITIZER_MALLOC 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RC_SANITIZER_MALLOC 1
#endif

#if !defined(RC_SANITIZER_MALLOC) && defined(__GLIBC__)

extern "C" {
void* __libc_malloc(size_t size);
void __libc_free(void* p);
void* __libc_calloc(size_t n, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void* __libc_valloc(size_t size);
void* __libc_pvalloc(size_t size);
}

namespace rc {
namespace {

// One counter per thread while there are few threads (each written by its thread alone:
// a plain add, no locked instruction); threads beyond them share the last, atomically.
constexpr int kSlots = 128;
struct alignas(64) Slot {
  std::atomic<int64_t> bytes{0};
};
Slot g_slots[kSlots];
std::atomic<int> g_next_slot{0};
// No constructor, so touching it allocates nothing (malloc may run before main).
__thread int tl_slot __attribute__((tls_model("initial-exec"))) = -1;

inline void Count(int64_t delta) {
  int s = tl_slot;
  if (s < 0) {
    s = g_next_slot.fetch_add(1, std::memory_order_relaxed);
    if (s >= kSlots) s = kSlots;  // shared
    tl_slot = s;
  }
  if (s < kSlots - 1) {
    std::atomic<int64_t>& c = g_slots[s].bytes;
    c.store(c.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  } else {
    g_slots[kSlots - 1].bytes.fetch_add(delta, std::memory_order_relaxed);
  }
}

inline void* Counted(void* p) {
  if (p != nullptr) Count(int64_t(malloc_usable_size(p)));
  return p;
}

}  // namespace

bool MallocCounted() { return true; }

int64_t MallocCountedBytes() {
  int64_t sum = 0;
  for (const Slot& s : g_slots) sum += s.bytes.load(std::memory_order_relaxed);
  return sum;
}

}  // namespace rc

extern "C" {

void* malloc(size_t size) { return rc::Counted(__libc_malloc(size)); }

void free(void* p) {
  if (p == nullptr) return;
  rc::Count(-int64_t(malloc_usable_size(p)));
  __libc_free(p);
}

void* calloc(size_t n, size_t size) { return rc::Counted(__libc_calloc(n, size)); }

void* realloc(void* p, size_t size) {
  const int64_t before = p != nullptr ? int64_t(malloc_usable_size(p)) : 0;
  void* q = __libc_realloc(p, size);
  // glibc frees `p` for a size of 0 and answers null; a failed realloc keeps `p`.
  if (q != nullptr) {
    rc::Count(int64_t(malloc_usable_size(q)) - before);
  } else if (size == 0 && p != nullptr) {
    rc::Count(-before);
  }
  return q;
}

void* reallocarray(void* p, size_t n, size_t size) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(n, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, bytes);
}

void* memalign(size_t alignment, size_t size) {
  return rc::Counted(__libc_memalign(alignment, size));
}

void* aligned_alloc(size_t alignment, size_t size) {
  return rc::Counted(__libc_memalign(alignment, size));
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) {
    return EINVAL;
  }
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  *out = rc::Counted(p);
  return 0;
}

void* valloc(size_t size) { return rc::Counted(__libc_valloc(size)); }

void* pvalloc(size_t size) { return rc::Counted(__libc_pvalloc(size)); }

}  // extern "C"

#else

namespace rc {

bool MallocCounted() { return false; }
int64_t MallocCountedBytes() { return 0; }

}  // namespace rc

#endif
