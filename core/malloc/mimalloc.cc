// mimalloc (Debian's libmimalloc), counted: malloc and the rest call its mi_ API, whose
// standard names the executable takes over to count (core/malloc_counter.h).
// RINGCACHE_MALLOC=mimalloc.

#include <mimalloc.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/malloc/thread_counter.h"
#include "core/malloc_counter.h"
#include "core/malloc_tuning.h"

namespace rc {
namespace {

inline void* Counted(void* p) {
  if (p != nullptr) malloc_count::Count(int64_t(mi_usable_size(p)));
  return p;
}

}  // namespace

void TuneMalloc() {}
void ExecWithMallocTunables(char**) {}

bool MallocCounted() { return true; }
int64_t MallocCountedBytes() { return malloc_count::Sum(); }
int64_t MallocHeaderBytes() { return 0; }  // size classes, no header
// The library's own version (mi_version: major * 100 + minor * 10 + patch, 209 = 2.0.9).
const char* MallocName() {
  static const std::string name = [] {
    const int v = mi_version();
    return "mimalloc-" + std::to_string(v / 100) + "." + std::to_string(v / 10 % 10) + "." +
           std::to_string(v % 10);
  }();
  return name.c_str();
}

// mi_process_info's commit counts reserved segments never touched; it has no figure for
// the resident part.
AllocatorFigures MallocFigures() { return {}; }

std::string MallocStatsText() {
  std::string text;
  mi_stats_print_out([](const char* s, void* out) { static_cast<std::string*>(out)->append(s); },
                     &text);
  return text;
}

void MallocPurge() { mi_collect(true); }

}  // namespace rc

extern "C" {

void* malloc(size_t size) { return rc::Counted(mi_malloc(size)); }

void free(void* p) {
  if (p == nullptr) return;
  rc::malloc_count::Count(-int64_t(mi_usable_size(p)));
  mi_free(p);
}

size_t malloc_usable_size(void* p) { return mi_usable_size(p); }

void* calloc(size_t n, size_t size) { return rc::Counted(mi_calloc(n, size)); }

void* realloc(void* p, size_t size) {
  if (p == nullptr) return malloc(size);
  if (size == 0) {  // as glibc: frees and answers null
    free(p);
    return nullptr;
  }
  const int64_t before = int64_t(mi_usable_size(p));
  void* q = mi_realloc(p, size);
  if (q != nullptr) rc::malloc_count::Count(int64_t(mi_usable_size(q)) - before);
  return q;
}

void* memalign(size_t alignment, size_t size) {
  return rc::Counted(mi_malloc_aligned(size, alignment));
}

}  // extern "C"

#include "core/malloc/derived_forms.h"
