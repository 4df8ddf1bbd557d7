// View arithmetic with NumPy's rules, for both frontends: slices, axes, permutations, reshape.
//
// Each function reports a condition (false, nullopt); the frontend words the error: Python
// with NumPy's exact messages, the C++ API with its own.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>

#include "bridge/common/broadcast.h"
#include "core/view.h"

namespace hassium::frontend {

// A slice resolved on an axis: the first index and the number of elements.
struct SliceRange {
  int64_t first = 0; // 0 when count is 0
  int64_t count = 0;
};
// Python's slice on an axis of n elements (PySlice_AdjustIndices): negative bounds count from
// the end, bounds past either end are clamped. step != 0. An omitted bound is the one below.
SliceRange resolve_slice(int64_t start, int64_t stop, int64_t step, int64_t n);
inline constexpr int64_t omitted_start(int64_t step) {
  return step > 0 ? 0 : std::numeric_limits<int64_t>::max();
}
inline constexpr int64_t omitted_stop(int64_t step) {
  return step > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

// An index in [-n, n) on an axis of n elements as a position in [0, n); nullopt when out of
// range.
inline std::optional<int64_t> normalize_index(int64_t i, int64_t n) {
  if (i < -n || i >= n) return std::nullopt;
  return i < 0 ? i + n : i;
}
// An axis in [-ndim, ndim) as a position in [0, ndim); nullopt when out of range.
std::optional<int> normalize_axis(int64_t axis, int ndim);
// axes (each already in [0, ndim)) name every one of the ndim axes once.
bool is_permutation(std::span<const int> axes, int ndim);
// The view with its axes permuted: axis k of the result is axis axes[k] of v.
View permute(const View& v, std::span<const int> axes);

// Row-major strides of a contiguous array of `shape`.
void contiguous_strides(Extents shape, Dims& stride);
// Fills the unknown extent shape[unknown] (unknown = -1: none) so that shape holds `size`
// elements; the other extents are >= 0. False when no extent can (the sizes do not match).
bool fill_unknown_extent(int64_t size, Dims& shape, int unknown);
// The strides a view of `shape` over the same elements as v would have when no copy is needed
// (NumPy's no-copy reshape rule, C order). False when the data must be copied.
bool reshape_strides(const View& v, const Dims& shape, Dims& stride);

} // namespace hassium::frontend
