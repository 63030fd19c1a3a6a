#pragma once
// The fuzz targets' contract checks: a failed one names itself and aborts, which libFuzzer
// reports as a crash with the input (assert is compiled out of RelWithDebInfo).

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                     \
  do {                                                                       \
    if (!(cond)) {                                                           \
      std::fprintf(stderr, "check failed: %s (line %d)\n", #cond, __LINE__); \
      std::abort();                                                          \
    }                                                                        \
  } while (0)
