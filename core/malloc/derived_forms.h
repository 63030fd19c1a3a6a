#pragma once
// The malloc entry points every back end derives the same way from its realloc and
// memalign. Defines them: include from the one back end an executable links, after it
// has declared (or defined) realloc and memalign.

#include <cerrno>
#include <cstddef>

extern "C" {

void* reallocarray(void* p, size_t n, size_t size) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(n, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, bytes);
}

void* aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) {
    return EINVAL;
  }
  void* p = memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}

void* valloc(size_t size) { return memalign(4096, size); }

void* pvalloc(size_t size) { return memalign(4096, (size + 4095) & ~size_t(4095)); }

}  // extern "C"
