#pragma once
// The allocator settings the server runs with (main.cc), in the linked back end
// (core/malloc/); benchmarks that measure the keyspace's allocation behaviour call it too,
// so they see what the server sees.

namespace rc {

// Call once at start-up, before any thread exists.
void TuneMalloc();

}  // namespace rc
