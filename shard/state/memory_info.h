#pragma once
// Process-wide memory figures for INFO memory and MEMORY STATS / DOCTOR.

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/strings/str_format.h"
#include "core/malloc_counter.h"
#include "core/strings.h"

namespace rc {

inline uint64_t RssBytes();

// What the process holds from malloc, any thread: the counted bytes (core/malloc_counter.h,
// a sum of a few counters), or in builds that do not count, glibc's own accounting across
// every arena, which walks every free chunk (sanitizer builds: their allocator reports
// nothing there, so 0).
inline uint64_t MallocBytes() {
  if (MallocCounted()) return uint64_t(std::max<int64_t>(0, MallocCountedBytes()));
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

// The same, or RSS when the allocator reports nothing.
inline uint64_t UsedMemory() {
  const uint64_t used = MallocBytes();
  return used > 0 ? used : RssBytes();
}

inline uint64_t RssBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long pages_total = 0, pages_rss = 0;
  int n = std::fscanf(f, "%lu %lu", &pages_total, &pages_rss);
  std::fclose(f);
  return n == 2 ? uint64_t(pages_rss) * uint64_t(sysconf(_SC_PAGESIZE)) : 0;
}

// Redis's bytesToHuman.
inline std::string HumanBytes(uint64_t n) {
  double d = double(n);
  if (n < 1024) return StrCat(n, "B");
  if (n < (1ULL << 20)) return absl::StrFormat("%.2fK", d / 1024);
  if (n < (1ULL << 30)) return absl::StrFormat("%.2fM", d / (1 << 20));
  if (n < (1ULL << 40)) return absl::StrFormat("%.2fG", d / (1ULL << 30));
  return absl::StrFormat("%.2fT", d / (1ULL << 40));
}

}  // namespace rc
