// How much of a long randomized or corpus-wide test runs in this build: all of it, or a quarter
// under AddressSanitizer or ThreadSanitizer (about 10x slower there). The sanitizer leg of CI
// looks for memory and undefined-behaviour errors on the same code paths; the plain build covers
// every program.
#pragma once

#include <cstddef>

namespace hassium::test {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr int kSanitizerShare = 4; // one in kSanitizerShare
#else
inline constexpr int kSanitizerShare = 1;
#endif

// How many random programs a property test draws for `n` asked (at least one).
constexpr int random_rounds(int n) {
  return n / kSanitizerShare > 0 ? n / kSanitizerShare : 1;
}

// Whether the i-th item of a corpus runs in this build (every item, or one in kSanitizerShare).
constexpr bool in_share(size_t i) {
  return i % kSanitizerShare == 0;
}

} // namespace hassium::test
