// jemalloc (Debian's libjemalloc, unprefixed), counted: malloc and the rest call its
// non-standard API (mallocx, sallocx, ...), whose standard names the executable takes over
// to count (core/malloc_counter.h). RINGCACHE_MALLOC=jemalloc.

#include <strings.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/malloc/thread_counter.h"
#include "core/malloc_counter.h"
#include "core/malloc_tuning.h"

extern "C" {
void* mallocx(size_t size, int flags);
void* rallocx(void* p, size_t size, int flags);
size_t sallocx(const void* p, int flags);
void dallocx(void* p, int flags);
int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen);
void malloc_stats_print(void (*write)(void*, const char*), void* arg, const char* opts);

// Read by jemalloc at its first allocation; the MALLOC_CONF environment variable still
// overrides it. Freed pages go back to the kernel after dirty_decay_ms, purged with
// MADV_DONTNEED straight away (muzzy_decay_ms:0: MADV_FREE pages would stay in RSS until
// the kernel is short of memory).
const char* malloc_conf = "dirty_decay_ms:1000,muzzy_decay_ms:0";
}

namespace rc {
namespace {

constexpr int kZero = 0x40;  // MALLOCX_ZERO

// jemalloc leaves a size of 0 undefined; malloc(0) must still give a unique pointer.
inline size_t NonZero(size_t size) { return size == 0 ? 1 : size; }

inline void* Counted(void* p) {
  if (p != nullptr) malloc_count::Count(int64_t(sallocx(p, 0)));
  return p;
}

inline int AlignFlag(size_t alignment) { return ffsl(long(alignment)) - 1; }

int64_t Stat(const char* name) {
  size_t value = 0, len = sizeof(value);
  return mallctl(name, &value, &len, nullptr, 0) == 0 ? int64_t(value) : 0;
}

}  // namespace

void TuneMalloc() {}
void ExecWithMallocTunables(char**) {}

bool MallocCounted() { return true; }
int64_t MallocCountedBytes() { return malloc_count::Sum(); }
int64_t MallocHeaderBytes() { return 0; }  // size classes, no header
// The library's own version ("5.3.0-0-g54eaed1..."), not the headers': Debian may upgrade it.
const char* MallocName() {
  static const std::string name = [] {
    const char* version = nullptr;
    size_t len = sizeof(version);
    if (mallctl("version", &version, &len, nullptr, 0) != 0 || version == nullptr) {
      return std::string("jemalloc");
    }
    const std::string v(version);
    return "jemalloc-" + v.substr(0, v.find('-'));
  }();
  return name.c_str();
}

AllocatorFigures MallocFigures() {
  uint64_t epoch = 1;
  size_t len = sizeof(epoch);
  mallctl("epoch", &epoch, &len, &epoch, len);
  return {true, Stat("stats.allocated"), Stat("stats.active"), Stat("stats.resident")};
}

std::string MallocStatsText() {
  std::string text;
  malloc_stats_print([](void* out, const char* s) { static_cast<std::string*>(out)->append(s); },
                     &text, nullptr);
  return text;
}

void MallocPurge() { mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0); }

}  // namespace rc

extern "C" {

void* malloc(size_t size) { return rc::Counted(mallocx(rc::NonZero(size), 0)); }

void free(void* p) {
  if (p == nullptr) return;
  rc::malloc_count::Count(-int64_t(sallocx(p, 0)));
  dallocx(p, 0);
}

size_t malloc_usable_size(void* p) { return p == nullptr ? 0 : sallocx(p, 0); }

void* calloc(size_t n, size_t size) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(n, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return rc::Counted(mallocx(rc::NonZero(bytes), rc::kZero));
}

void* realloc(void* p, size_t size) {
  if (p == nullptr) return malloc(size);
  if (size == 0) {  // as glibc: frees and answers null
    free(p);
    return nullptr;
  }
  const int64_t before = int64_t(sallocx(p, 0));
  void* q = rallocx(p, size, 0);
  if (q == nullptr) {
    errno = ENOMEM;
    return nullptr;
  }
  rc::malloc_count::Count(int64_t(sallocx(q, 0)) - before);
  return q;
}

void* memalign(size_t alignment, size_t size) {
  return rc::Counted(mallocx(rc::NonZero(size), rc::AlignFlag(alignment)));
}

}  // extern "C"

#include "core/malloc/derived_forms.h"
