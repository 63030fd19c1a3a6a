#pragma once
// What a heap block really costs: the values' memory accounting counts chunks, not the
// bytes asked for, so MEMORY USAGE and maxmemory see what the allocator holds.

#include <malloc.h>

#include <cstddef>

namespace rc {

// The block's usable size and its size word; 0 for none.
inline size_t ChunkBytes(const void* p) {
  return p == nullptr ? 0 : malloc_usable_size(const_cast<void*>(p)) + sizeof(size_t);
}

}  // namespace rc
