#pragma once
// glibc malloc settings the server runs with (main.cc); benchmarks that measure the
// keyspace's allocation behaviour call it too, so they see what the server sees.

namespace rc {

// Call once at start-up, before any thread exists.
void TuneMalloc();

}  // namespace rc
