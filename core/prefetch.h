#pragma once
// A hint to bring the cache line at `p` in, for a load coming soon; `p` may be anything,
// null included (a prefetch never faults).
//
// An asm statement rather than __builtin_prefetch: GCC 12's IPA pure-const analysis takes
// a function whose only effect is __builtin_prefetch for one without effects and deletes
// calls to it once inlined elsewhere (every IntrusiveTable::Prefetch* call vanished).

namespace rc {

inline void PrefetchLine(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetcht0 (%0)" : : "r"(p));
#elif defined(__aarch64__)
  asm volatile("prfm pldl1keep, [%0]" : : "r"(p));
#else
  __builtin_prefetch(p);
#endif
}

}  // namespace rc
