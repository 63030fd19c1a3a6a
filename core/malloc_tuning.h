#pragma once
// The allocator settings the server runs with (main.cc), in the linked back end
// (core/malloc/); benchmarks that measure the keyspace's allocation behaviour call it too,
// so they see what the server sees.

namespace rc {

// Call once at start-up, before any thread exists.
void TuneMalloc();

// Call first in main(): settings the allocator reads only from the environment when the
// process starts. The glibc back end re-executes the binary once with them set (its
// tunables cannot be changed later); it returns only when there is nothing to do or the
// exec failed, and the server then runs untuned.
void ExecWithMallocTunables(char** argv);

}  // namespace rc
