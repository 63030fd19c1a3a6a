#pragma once
// The bytes the process holds from malloc, counted as malloc and free run, as Redis's
// zmalloc keeps used_memory: reading it costs a sum of a few counters. glibc's own
// figure (mallinfo2) walks every free chunk of every arena: after a shard freed a quarter
// of a million small entries (maxmemory lowered), one call took 37 ms, and INFO and the
// memory limit's overhead sample call it.
//
// The executable replaces malloc, free, calloc, realloc and the aligned forms with
// wrappers around glibc's (__libc_malloc, ...) that add or subtract malloc_usable_size
// to a counter of the calling thread. A block freed on another thread than the one that
// allocated it moves bytes between counters; the sum stays right. Sanitizer builds, whose
// runtime replaces malloc itself, count nothing: MallocCounted() is false there.

#include <cstdint>

namespace rc {

// Whether this build counts (any thread).
bool MallocCounted();
// Bytes held from malloc by the whole process, as malloc_usable_size counts them; 0 when
// not counted. Any thread; a relaxed sum, so a figure a few blocks old.
int64_t MallocCountedBytes();

}  // namespace rc
