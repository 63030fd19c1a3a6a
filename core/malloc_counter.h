#pragma once
// The bytes the process holds from malloc, counted as malloc and free run, as Redis's
// zmalloc keeps used_memory: reading it costs a sum of a few counters. glibc's own
// figure (mallinfo2) walks every free chunk of every arena: after a shard freed a quarter
// of a million small entries (maxmemory lowered), one call took 37 ms, and INFO and the
// memory limit's overhead sample call it.
//
// The executable defines malloc, free, calloc, realloc, malloc_usable_size and the aligned
// forms itself, in the one allocator back end it links (core/malloc/, chosen by the CMake
// option RINGCACHE_MALLOC): each calls its allocator and adds or subtracts the block's
// usable size to a counter of the calling thread. A block freed on another thread than the
// one that allocated it moves bytes between counters; the sum stays right. Sanitizer
// builds, whose runtime replaces malloc itself, count nothing: MallocCounted() is false.

#include <cstdint>
#include <string>

namespace rc {

// Whether this build counts (any thread).
bool MallocCounted();
// Bytes held from malloc by the whole process, as malloc_usable_size counts them; 0 when
// not counted. Any thread; a relaxed sum, so a figure a few blocks old.
int64_t MallocCountedBytes();

// What the allocator spends on live blocks beyond their usable size, and RSS pays:
// glibc's chunk header, 8 bytes a block (0 for allocators whose size classes carry no
// header). The memory limit counts it (docs/EVICTION.md); used_memory does not, as Redis's.
int64_t MallocHeaderBytes();

// INFO's mem_allocator: "libc", "jemalloc-5.3.0", "mimalloc-2.0.9".
const char* MallocName();

// What the allocator itself holds, for INFO's allocator_* fields (Redis's names): bytes in
// pages that hold at least one live block (active) and resident pages of its own (resident).
// known is false where asking costs a walk of the heap (glibc).
struct AllocatorFigures {
  bool known = false;
  int64_t allocated = 0, active = 0, resident = 0;
};
AllocatorFigures MallocFigures();

// MEMORY MALLOC-STATS: the allocator's own report.
std::string MallocStatsText();
// MEMORY PURGE: returns free pages to the kernel now, in every arena.
void MallocPurge();

}  // namespace rc
