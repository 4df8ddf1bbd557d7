// Element-wise functions of hassium::array: NumPy's ufuncs (with the C++ <cmath> spellings as
// aliases), and where().
//
// Float functions of integer arrays compute in float32 (1- and 2-byte integers) or float64.
// As in NumPy 2: floor/ceil/trunc of integers and bools are copies of the same type; isnan
// and isinf of them are all false, isfinite all true; real and conj of real arrays are copies
// and imag is zeros.
#pragma once

#include "hassium/operators.h"

namespace hassium {

#define HS_UNARY_FUNCTION(NAME, OPCODE)                                                            \
  template <element T> auto NAME(const array<T>& a) {                                              \
    return detail::unary<Opcode::OPCODE>(a);                                                       \
  }
HS_UNARY_FUNCTION(negative, NEGATIVE)
HS_UNARY_FUNCTION(abs, ABSOLUTE)
HS_UNARY_FUNCTION(absolute, ABSOLUTE)
HS_UNARY_FUNCTION(sign, SIGN)
HS_UNARY_FUNCTION(logical_not, LOGICAL_NOT)
HS_UNARY_FUNCTION(invert, INVERT)
HS_UNARY_FUNCTION(bitwise_not, INVERT)
HS_UNARY_FUNCTION(sqrt, SQRT)
HS_UNARY_FUNCTION(exp, EXP)
HS_UNARY_FUNCTION(exp2, EXP2)
HS_UNARY_FUNCTION(expm1, EXPM1)
HS_UNARY_FUNCTION(log, LOG)
HS_UNARY_FUNCTION(log2, LOG2)
HS_UNARY_FUNCTION(log10, LOG10)
HS_UNARY_FUNCTION(log1p, LOG1P)
HS_UNARY_FUNCTION(sin, SIN)
HS_UNARY_FUNCTION(cos, COS)
HS_UNARY_FUNCTION(tan, TAN)
HS_UNARY_FUNCTION(arcsin, ARCSIN)
HS_UNARY_FUNCTION(asin, ARCSIN)
HS_UNARY_FUNCTION(arccos, ARCCOS)
HS_UNARY_FUNCTION(acos, ARCCOS)
HS_UNARY_FUNCTION(arctan, ARCTAN)
HS_UNARY_FUNCTION(atan, ARCTAN)
HS_UNARY_FUNCTION(sinh, SINH)
HS_UNARY_FUNCTION(cosh, COSH)
HS_UNARY_FUNCTION(tanh, TANH)
HS_UNARY_FUNCTION(arcsinh, ARCSINH)
HS_UNARY_FUNCTION(asinh, ARCSINH)
HS_UNARY_FUNCTION(arccosh, ARCCOSH)
HS_UNARY_FUNCTION(acosh, ARCCOSH)
HS_UNARY_FUNCTION(arctanh, ARCTANH)
HS_UNARY_FUNCTION(atanh, ARCTANH)
HS_UNARY_FUNCTION(rint, RINT)
#undef HS_UNARY_FUNCTION

namespace detail {
template <element T> constexpr bool is_inexact_v = is_inexact(dtype_of<T>);
template <element T> constexpr bool is_complex_v = is_complex(dtype_of<T>);
} // namespace detail

// Rounding: a copy for integers and bools.
#define HS_ROUNDING_FUNCTION(NAME, OPCODE)                                                         \
  template <element T> auto NAME(const array<T>& a) {                                              \
    if constexpr (detail::is_inexact_v<T>)                                                         \
      return detail::unary<Opcode::OPCODE>(a);                                                     \
    else                                                                                           \
      return a.copy();                                                                             \
  }
HS_ROUNDING_FUNCTION(floor, FLOOR)
HS_ROUNDING_FUNCTION(ceil, CEIL)
HS_ROUNDING_FUNCTION(trunc, TRUNC)
#undef HS_ROUNDING_FUNCTION

// Float classification: constant for integers and bools.
#define HS_CLASSIFY_FUNCTION(NAME, OPCODE, INTEGER_VALUE)                                          \
  template <element T> array<bool> NAME(const array<T>& a) {                                       \
    if constexpr (detail::is_inexact_v<T>)                                                         \
      return detail::unary<Opcode::OPCODE>(a);                                                     \
    else                                                                                           \
      return array<bool>(detail::full(DType::BOOL, a.shape(), Scalar::of_bool(INTEGER_VALUE)));    \
  }
HS_CLASSIFY_FUNCTION(isnan, ISNAN, false)
HS_CLASSIFY_FUNCTION(isinf, ISINF, false)
HS_CLASSIFY_FUNCTION(isfinite, ISFINITE, true)
#undef HS_CLASSIFY_FUNCTION

template <element T> auto real(const array<T>& a) {
  if constexpr (detail::is_complex_v<T>)
    return detail::unary<Opcode::REAL>(a);
  else
    return a.copy();
}
template <element T> auto imag(const array<T>& a) {
  if constexpr (detail::is_complex_v<T>)
    return detail::unary<Opcode::IMAG>(a);
  else
    return array<T>(detail::full(dtype_of<T>, a.shape(), Scalar::of_int(0)));
}
template <element T> auto conj(const array<T>& a) {
  if constexpr (detail::is_complex_v<T>)
    return detail::unary<Opcode::CONJ>(a);
  else
    return a.copy();
}

#define HS_BINARY_FUNCTION(NAME, OPCODE)                                                           \
  template <typename A, typename B>                                                                \
  requires binary_operands<A, B>                                                                   \
  auto NAME(const A& a, const B& b) {                                                              \
    return detail::binary<Opcode::OPCODE>(a, b);                                                   \
  }
HS_BINARY_FUNCTION(add, ADD)
HS_BINARY_FUNCTION(subtract, SUBTRACT)
HS_BINARY_FUNCTION(multiply, MULTIPLY)
HS_BINARY_FUNCTION(divide, DIVIDE)
HS_BINARY_FUNCTION(true_divide, DIVIDE)
HS_BINARY_FUNCTION(floor_divide, FLOOR_DIVIDE)
HS_BINARY_FUNCTION(mod, MOD)
HS_BINARY_FUNCTION(remainder, MOD)
HS_BINARY_FUNCTION(fmod, FMOD)
HS_BINARY_FUNCTION(pow, POWER)
HS_BINARY_FUNCTION(power, POWER)
HS_BINARY_FUNCTION(maximum, MAXIMUM)
HS_BINARY_FUNCTION(minimum, MINIMUM)
HS_BINARY_FUNCTION(arctan2, ARCTAN2)
HS_BINARY_FUNCTION(atan2, ARCTAN2)
HS_BINARY_FUNCTION(hypot, HYPOT)
HS_BINARY_FUNCTION(left_shift, LEFT_SHIFT)
HS_BINARY_FUNCTION(right_shift, RIGHT_SHIFT)
HS_BINARY_FUNCTION(bitwise_and, BITWISE_AND)
HS_BINARY_FUNCTION(bitwise_or, BITWISE_OR)
HS_BINARY_FUNCTION(bitwise_xor, BITWISE_XOR)
HS_BINARY_FUNCTION(logical_and, LOGICAL_AND)
HS_BINARY_FUNCTION(logical_or, LOGICAL_OR)
HS_BINARY_FUNCTION(logical_xor, LOGICAL_XOR)
HS_BINARY_FUNCTION(equal, EQUAL)
HS_BINARY_FUNCTION(not_equal, NOT_EQUAL)
HS_BINARY_FUNCTION(less, LESS)
HS_BINARY_FUNCTION(less_equal, LESS_EQUAL)
HS_BINARY_FUNCTION(greater, GREATER)
HS_BINARY_FUNCTION(greater_equal, GREATER_EQUAL)
#undef HS_BINARY_FUNCTION

// min(max(a, lo), hi), NaN-propagating as NumPy's clip.
template <typename A, typename L, typename H>
requires array_like<A> && operand_like<L> && operand_like<H>
auto clip(const A& a, const L& lo, const H& hi) {
  return minimum(maximum(a, lo), hi);
}

// where(cond, a, b): a where cond is nonzero, else b; cond, a and b broadcast together, the
// result type is that of a and b promoted. Exact for every value (see bridge/cxx/where.cpp).
template <typename C, typename A, typename B>
requires operand_like<C> && operand_like<A> && operand_like<B> &&
    (array_like<C> || array_like<A> || array_like<B>)auto where(const C& cond, const A& a,
                                                                const B& b) {
  constexpr DType t = detail::operands_dtype<A, B>();
  return array<ctype_of<t>>(
      detail::where(detail::operand_of(cond), detail::operand_of(a), detail::operand_of(b), t));
}

} // namespace hassium
