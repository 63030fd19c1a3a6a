#include "core/malloc_tuning.h"

#include <malloc.h>

namespace rc {

void TuneMalloc() {
  // glibc parks freed small chunks in fastbins and coalesces them all at once the next
  // time a large block is freed: after a million keys expire that is a 10 ms stall in
  // one loop turn. Without fastbins, frees coalesce as they happen (tcache still serves
  // the hot path). Measured in docs/TTL.md.
  mallopt(M_MXFAST, 0);
  // Blocks from 128 KiB up (bucket arrays, big values) always get their own mapping and
  // go back to the kernel when freed. glibc otherwise raises the threshold to the largest
  // block freed so far: the next bucket arrays of a growing table then land in each
  // thread's heap, where calloc must zero them at once and, freed, they leave holes
  // between entries (1M keys loaded through one connection cost 83–95 B/key with two
  // threads against 74 with one; 75 with this). docs/PERFORMANCE.md.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
}

}  // namespace rc
