// Operators of hassium::array: arithmetic, comparison, logical, bitwise and shifts, with arrays
// or C++ scalars on either side (NumPy broadcasting and promotion, see hassium/types.h).
//
// `/` is NumPy's true division (integers give float64), `%` NumPy's remainder (the sign of the
// divisor); floor_divide() and fmod() (the sign of the dividend, as C++ %) are in
// hassium/math.h. Comparisons, `!`, `&&` and `||` give array<bool>, element by element (no
// short-circuit). Bitwise ops and shifts take bool and integer arrays.
#pragma once

#include "hassium/array.h"

namespace hassium {

namespace detail {
// The promoted dtype of two operands; two scalars promote as NumPy's default types of their
// kinds (bool, int64, float64, complex128).
template <typename A, typename B> constexpr DType operands_dtype() {
  if constexpr (array_like<A> || array_like<B>)
    return promoted_dtype<A, B>();
  else {
    constexpr scalar_kind k = kind_of<A>() > kind_of<B>() ? kind_of<A>() : kind_of<B>();
    if constexpr (k == scalar_kind::boolean)
      return DType::BOOL;
    else if constexpr (k == scalar_kind::integer)
      return DType::INT64;
    else if constexpr (k == scalar_kind::floating)
      return DType::FLOAT64;
    else
      return DType::COMPLEX128;
  }
}

// A binary element-wise op: its compute dtype is checked at compile time against
// core/opcodes.def (NumPy's loops), its result type follows the opcode's rule.
template <Opcode OP, typename A, typename B> auto binary(const A& a, const B& b) {
  constexpr auto compute = compute_dtype(OP, operands_dtype<A, B>());
  static_assert(compute.has_value(),
                "hassium: this operation is not defined for these element types (NumPy has no "
                "loop for it; see the TYPES column of core/opcodes.def)");
  constexpr DType result = result_dtype(OP, *compute);
  operand ops[] = {operand_of(a), operand_of(b)};
  return array<ctype_of<result>>(elementwise(OP, *compute, ops));
}

template <Opcode OP, element T> auto unary(const array<T>& a) {
  constexpr auto compute = compute_dtype(OP, dtype_of<T>);
  static_assert(compute.has_value(),
                "hassium: this function is not defined for this element type (NumPy has no "
                "loop for it; see the TYPES column of core/opcodes.def)");
  constexpr DType result = result_dtype(OP, *compute);
  operand ops[] = {operand(a.node())};
  return array<ctype_of<result>>(elementwise(OP, *compute, ops));
}
} // namespace detail

// An operator applies when at least one side is an array and the other an array or a scalar.
template <typename A, typename B>
concept binary_operands = operand_like<A> && operand_like<B> &&(array_like<A> || array_like<B>);

#define HS_BINARY_OPERATOR(OP, OPCODE)                                                             \
  template <typename A, typename B>                                                                \
  requires binary_operands<A, B>                                                                   \
  auto operator OP(const A& a, const B& b) {                                                       \
    return detail::binary<Opcode::OPCODE>(a, b);                                                   \
  }
HS_BINARY_OPERATOR(+, ADD)
HS_BINARY_OPERATOR(-, SUBTRACT)
HS_BINARY_OPERATOR(*, MULTIPLY)
HS_BINARY_OPERATOR(/, DIVIDE)
HS_BINARY_OPERATOR(%, MOD)
HS_BINARY_OPERATOR(&, BITWISE_AND)
HS_BINARY_OPERATOR(|, BITWISE_OR)
HS_BINARY_OPERATOR(^, BITWISE_XOR)
HS_BINARY_OPERATOR(<<, LEFT_SHIFT)
HS_BINARY_OPERATOR(>>, RIGHT_SHIFT)
HS_BINARY_OPERATOR(==, EQUAL)
HS_BINARY_OPERATOR(!=, NOT_EQUAL)
HS_BINARY_OPERATOR(<, LESS)
HS_BINARY_OPERATOR(<=, LESS_EQUAL)
HS_BINARY_OPERATOR(>, GREATER)
HS_BINARY_OPERATOR(>=, GREATER_EQUAL)
HS_BINARY_OPERATOR(&&, LOGICAL_AND)
HS_BINARY_OPERATOR(||, LOGICAL_OR)
#undef HS_BINARY_OPERATOR

template <element T> auto operator-(const array<T>& a) {
  return detail::unary<Opcode::NEGATIVE>(a);
}
template <element T> auto operator+(const array<T>& a) {
  return a.copy();
}
template <element T> auto operator!(const array<T>& a) {
  return detail::unary<Opcode::LOGICAL_NOT>(a);
}
template <element T> auto operator~(const array<T>& a) {
  return detail::unary<Opcode::INVERT>(a);
}

} // namespace hassium
