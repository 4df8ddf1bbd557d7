// How much of a long randomized or corpus-wide test runs in this build: all of it, or a quarter
// under AddressSanitizer or ThreadSanitizer (about 10x slower there). The sanitizer leg of CI
// looks for memory and undefined-behaviour errors on the same code paths; the plain build covers
// every program.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

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

// The items of a corpus that run in this build: every item, or one in kSanitizerShare.
template <class T> std::vector<T> share_of(std::vector<T> items) {
  if constexpr (kSanitizerShare == 1) {
    return items;
  } else {
    std::vector<T> kept;
    for (size_t i = 0; i < items.size(); i += kSanitizerShare) kept.push_back(std::move(items[i]));
    return kept;
  }
}

} // namespace hassium::test
