// Reductions and scans of hassium::array: over every axis (a 0-d array; .item() reads it) or
// over one axis (negative counts from the end). Accumulator types are NumPy's: sum, prod and
// cumsum of bools and signed integers are int64, of unsigned ones uint64; mean is float64 for
// integers. min/max of an empty array is a hassium::error (NumPy: no identity).
#pragma once

#include <optional>

#include "hassium/operators.h"

namespace hassium {

#define HS_REDUCTION(NAME, OPCODE, DTYPE_RULE)                                                     \
  template <element T> auto NAME(const array<T>& a, std::optional<int> axis = std::nullopt) {      \
    constexpr DType t = DTYPE_RULE(dtype_of<T>);                                                   \
    static_assert(dtype_in(t, op_types(Opcode::OPCODE)),                                           \
                  "hassium: this reduction is not defined for this element type");                 \
    return array<ctype_of<t>>(detail::reduce(Opcode::OPCODE, a.node(), axis, t));                  \
  }
namespace detail {
constexpr DType same_dtype(DType t) {
  return t;
}
} // namespace detail
HS_REDUCTION(sum, ADD_REDUCE, sum_dtype)
HS_REDUCTION(prod, MULTIPLY_REDUCE, sum_dtype)
HS_REDUCTION(min, MINIMUM_REDUCE, detail::same_dtype)
HS_REDUCTION(max, MAXIMUM_REDUCE, detail::same_dtype)
HS_REDUCTION(amin, MINIMUM_REDUCE, detail::same_dtype)
HS_REDUCTION(amax, MAXIMUM_REDUCE, detail::same_dtype)
#undef HS_REDUCTION

template <element T> auto mean(const array<T>& a, std::optional<int> axis = std::nullopt) {
  constexpr DType t = mean_dtype(dtype_of<T>);
  return array<ctype_of<t>>(detail::mean(a.node(), axis, t));
}
template <element T> array<bool> any(const array<T>& a, std::optional<int> axis = std::nullopt) {
  return array<bool>(detail::any_all(false, a.node(), axis));
}
template <element T> array<bool> all(const array<T>& a, std::optional<int> axis = std::nullopt) {
  return array<bool>(detail::any_all(true, a.node(), axis));
}
// Running sums/products along an axis; without one, over the flattened array (1-D result).
template <element T> auto cumsum(const array<T>& a, std::optional<int> axis = std::nullopt) {
  constexpr DType t = sum_dtype(dtype_of<T>);
  return array<ctype_of<t>>(detail::accumulate(Opcode::ADD_ACCUMULATE, a.node(), axis, t));
}
template <element T> auto cumprod(const array<T>& a, std::optional<int> axis = std::nullopt) {
  constexpr DType t = sum_dtype(dtype_of<T>);
  return array<ctype_of<t>>(detail::accumulate(Opcode::MULTIPLY_ACCUMULATE, a.node(), axis, t));
}

// Same shape and equal elements (NumPy's array_equal). Runs what is pending.
template <element A, element B> bool array_equal(const array<A>& a, const array<B>& b) {
  return a.shape() == b.shape() && all(a == b).item();
}

} // namespace hassium
