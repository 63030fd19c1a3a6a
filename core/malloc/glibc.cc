// glibc's malloc, counted: wrappers around __libc_malloc and the rest
// (core/malloc_counter.h). RINGCACHE_MALLOC=glibc.

#include <malloc.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <unistd.h>

#include "core/malloc/thread_counter.h"
#include "core/malloc_counter.h"
#include "core/malloc_tuning.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define RC_SANITIZER_MALLOC 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RC_SANITIZER_MALLOC 1
#endif

namespace rc {

namespace {

// Chunks of one size each thread's cache keeps (glibc's default: 7). A loop turn's burst
// of cross-shard commands is a few hundred blocks of a size per thread.
constexpr int kTcacheCount = 1024;

#if !defined(RC_SANITIZER_MALLOC) && defined(__GLIBC__)
// Whether /proc/self/exe is the file this code was loaded from. Started through another
// program (the dynamic loader: `ld.so ./ringcache --port ...`), it is that program, and
// the loader rewrites the auxiliary vector, so only the mappings tell.
bool ExeIsThisProgram() {
  struct stat exe;
  if (stat("/proc/self/exe", &exe) != 0) return false;
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return false;
  const auto here = reinterpret_cast<uintptr_t>(&ExeIsThisProgram);
  bool same = false;
  char line[4096];
  while (std::fgets(line, sizeof(line), maps) != nullptr) {
    unsigned long start = 0, end = 0, inode = 0;
    unsigned major = 0, minor = 0;
    if (std::sscanf(line, "%lx-%lx %*s %*x %x:%x %lu", &start, &end, &major, &minor, &inode) !=
        5) {
      continue;
    }
    if (here < start || here >= end) continue;
    same = inode == exe.st_ino && makedev(major, minor) == exe.st_dev;
    break;
  }
  std::fclose(maps);
  return same;
}
#endif

}  // namespace

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
  // One arena for every thread. With one per thread, blocks that one thread allocates and
  // another frees (a hop's batch, a reply, a value handed to the lazyfree pool) leave
  // holes that only the first thread's later mallocs can fill: at 64 MB of churned mixed
  // values, 4–9 MiB of free chunks sat resident in the arenas against 0.6–3 MiB with one
  // (docs/EVICTION.md, "RSS under churn"). Each thread's tcache still serves the hot
  // sizes without the arena's lock. A user's MALLOC_ARENA_MAX wins.
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) mallopt(M_ARENA_MAX, 1);
}

void ExecWithMallocTunables(char** argv) {
#if !defined(RC_SANITIZER_MALLOC) && defined(__GLIBC__)
  // The per-thread cache keeps 7 chunks of a size by default. A pipeline of cross-shard
  // commands allocates and frees a few hundred blocks of one size per loop turn on each
  // thread; past the 7th, each malloc and free takes the arena's lock, which with one
  // arena both threads contend for (futex waits in the profile): cross-shard MSET on two
  // threads ran at 0.67x the throughput it has with this depth. Freed chunks a thread
  // keeps stay resident: 0.01-0.03x maxmemory of RSS under eviction churn
  // (docs/PERFORMANCE.md, "Cross-shard commands"). A user's own setting of the count wins.
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.tcache_count") != nullptr) {
    return;
  }
  // Started through another program, re-executing /proc/self/exe would run that one with
  // ringcache's arguments: run without the deeper cache instead.
  if (!ExeIsThisProgram()) return;
  std::string value = tunables != nullptr && *tunables != '\0' ? std::string(tunables) + ":" : "";
  value += "glibc.malloc.tcache_count=" + std::to_string(kTcacheCount);
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
#else
  (void)argv;
#endif
}

const char* MallocName() { return "libc"; }

// mallinfo2 would tell, but walks every free chunk (above).
AllocatorFigures MallocFigures() { return {}; }

std::string MallocStatsText() {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  if (f == nullptr) return "Stats not supported for the current allocator";
  malloc_info(0, f);
  std::fclose(f);
  std::string text(buf, len);
  std::free(buf);
  return text;
}

// Locks each arena in turn: other threads' mallocs wait at most for one arena.
void MallocPurge() { malloc_trim(0); }

}  // namespace rc

#if !defined(RC_SANITIZER_MALLOC) && defined(__GLIBC__)

extern "C" {
void* __libc_malloc(size_t size);
void __libc_free(void* p);
void* __libc_calloc(size_t n, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
}

namespace rc {
namespace {

inline void* Counted(void* p) {
  if (p != nullptr) malloc_count::Count(int64_t(malloc_usable_size(p)), 1);
  return p;
}

}  // namespace

bool MallocCounted() { return true; }
int64_t MallocCountedBytes() { return malloc_count::Sum(); }
// A chunk is its usable bytes and one size word (mmapped ones two, and those are few).
int64_t MallocHeaderBytes() {
  return int64_t(sizeof(size_t)) * malloc_count::Sum(&malloc_count::Slot::blocks);
}

}  // namespace rc

extern "C" {

void* malloc(size_t size) { return rc::Counted(__libc_malloc(size)); }

void free(void* p) {
  if (p == nullptr) return;
  rc::malloc_count::Count(-int64_t(malloc_usable_size(p)), -1);
  __libc_free(p);
}

void* calloc(size_t n, size_t size) { return rc::Counted(__libc_calloc(n, size)); }

void* realloc(void* p, size_t size) {
  const int64_t before = p != nullptr ? int64_t(malloc_usable_size(p)) : 0;
  void* q = __libc_realloc(p, size);
  // glibc frees `p` for a size of 0 and answers null; a failed realloc keeps `p`.
  if (q != nullptr) {
    rc::malloc_count::Count(int64_t(malloc_usable_size(q)) - before, p == nullptr ? 1 : 0);
  } else if (size == 0 && p != nullptr) {
    rc::malloc_count::Count(-before, -1);
  }
  return q;
}

void* memalign(size_t alignment, size_t size) {
  return rc::Counted(__libc_memalign(alignment, size));
}

}  // extern "C"

#include "core/malloc/derived_forms.h"

#else

namespace rc {

bool MallocCounted() { return false; }
int64_t MallocCountedBytes() { return 0; }
int64_t MallocHeaderBytes() { return 0; }

}  // namespace rc

#endif
