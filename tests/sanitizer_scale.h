// Iteration counts of the unit tests' randomized and stress loops in the sanitizer builds.
//
// Under AddressSanitizer (+UBSan) and ThreadSanitizer each operation costs 5-20x what it
// costs in Release, and CI runs the unit tests in both. A test whose loop only has to be
// long enough to reach its cases (resizes, splits, scans across a resize, a slot moved
// in steps) takes the smaller count there: the sanitizers check the memory and the
// threads of the same code paths, and the Release build still runs the full counts. Each
// call site keeps every assertion; where one depends on the count it is written in terms
// of it. (The integration tests ask the server instead: ServerProcess::Sanitized().)

#ifndef RINGCACHE_TESTS_SANITIZER_SCALE_H_
#define RINGCACHE_TESTS_SANITIZER_SCALE_H_

namespace rc::test {

// gcc defines __SANITIZE_ADDRESS__ and __SANITIZE_THREAD__; clang has __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif
#else
inline constexpr bool kSanitizerBuild = false;
#endif

// `full` in a build without a sanitizer, `sanitized` in an ASan or TSan build.
template <typename T>
constexpr T SanitizerScaled(T full, T sanitized) {
  return kSanitizerBuild ? sanitized : full;
}

}  // namespace rc::test

#endif  // RINGCACHE_TESTS_SANITIZER_SCALE_H_
