// Element types of hassium::array: C++ type <-> DType, NumPy's promotion and per-op type rules.
//
// Promotion follows NumPy 2 (checked against numpy 2.4 for all 13 x 13 pairs):
//   - two arrays: np.result_type (int8 + uint8 -> int16, int64 + uint64 -> float64,
//     int16 + float32 -> float32, int32 + float32 -> float64, float64 + complex64 -> complex128);
//   - an array and a C++ scalar: the scalar is "weak", as a Python scalar under NEP 50: only
//     its kind counts (bool < integer < floating < complex). array<float> * 2.0 stays float,
//     array<int8_t> + 1 stays int8, array<int> * 0.5 is float64, array<bool> + 1 is int64.
//     An integer constant that does not fit the array's integer type is an error (NumPy raises
//     OverflowError).
// Per operation (compute_dtype): NumPy's loop selection. True division of integers gives
// float64; float functions of integers give float32 for 1- and 2-byte integers (NumPy: float16
// for 1-byte ones; hassium has no float16) and float64 otherwise; bool ** bool, bool % bool
// and bool shifts compute in int8; minus/sign/subtract of bools are compile errors, as NumPy
// raises TypeError for them.
#pragma once

#include <complex>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "core/dtype.h"
#include "core/opcode.h"

namespace hassium {

// --- C++ element type <-> DType --------------------------------------------------------------
template <typename T> struct dtype_traits {};
#define HS_X(ENUM, name, ctype, size)                                                              \
  template <> struct dtype_traits<ctype> { static constexpr DType value = DType::ENUM; };
HS_DTYPES(HS_X)
#undef HS_X

// The 13 element types an array may hold.
template <typename T>
concept element = requires {
  dtype_traits<T>::value;
};

template <element T> inline constexpr DType dtype_of = dtype_traits<T>::value;

template <DType D> struct ctype_traits {};
#define HS_X(ENUM, name, ctype, size)                                                              \
  template <> struct ctype_traits<DType::ENUM> { using type = ctype; };
HS_DTYPES(HS_X)
#undef HS_X
template <DType D> using ctype_of = typename ctype_traits<D>::type;

template <typename S> struct is_std_complex : std::false_type {};
template <typename R> struct is_std_complex<std::complex<R>> : std::true_type {};

// A C++ value that may stand for an operand: any arithmetic type or std::complex.
template <typename S>
concept scalar_like = std::is_arithmetic_v<S> || is_std_complex<S>::value;

enum class scalar_kind : uint8_t { boolean, integer, floating, complex };

template <scalar_like S> constexpr scalar_kind kind_of() {
  if constexpr (std::is_same_v<S, bool>)
    return scalar_kind::boolean;
  else if constexpr (std::is_integral_v<S>)
    return scalar_kind::integer;
  else if constexpr (std::is_floating_point_v<S>)
    return scalar_kind::floating;
  else
    return scalar_kind::complex;
}

namespace types_detail {
constexpr int size_of(DType t) {
  switch (t) {
#define HS_X(ENUM, name, ctype, size)                                                              \
  case DType::ENUM:                                                                                \
    return size;
    HS_DTYPES(HS_X)
#undef HS_X
  }
  return 0;
}
// dtype.h's predicates are not constexpr; these are.
constexpr bool is_sint(DType t) {
  return t >= DType::INT8 && t <= DType::INT64;
}
constexpr bool is_uint(DType t) {
  return t >= DType::UINT8 && t <= DType::UINT64;
}
constexpr bool is_int(DType t) {
  return is_sint(t) || is_uint(t);
}
constexpr bool is_real_float(DType t) {
  return t == DType::FLOAT32 || t == DType::FLOAT64;
}
constexpr bool is_cplx(DType t) {
  return t == DType::COMPLEX64 || t == DType::COMPLEX128;
}
constexpr bool is_inexact(DType t) {
  return is_real_float(t) || is_cplx(t);
}
// Bytes of the float precision NumPy uses to hold a value of t exactly enough: 4 for float32,
// complex64 and integers of up to 2 bytes (NumPy: float16 for 1-byte ones), 8 otherwise.
constexpr int float_bytes(DType t) {
  if (t == DType::FLOAT32 || t == DType::COMPLEX64) return 4;
  if (t == DType::BOOL || (is_int(t) && size_of(t) <= 2)) return 4;
  return 8;
}
constexpr DType signed_of_size(int bytes) {
  return bytes == 1   ? DType::INT8
         : bytes == 2 ? DType::INT16
         : bytes == 4 ? DType::INT32
                      : DType::INT64;
}
// NumPy's same_kind order: bool < unsigned < signed < float < complex.
constexpr int cast_kind(DType t) {
  if (t == DType::BOOL) return 0;
  if (is_uint(t)) return 1;
  if (is_sint(t)) return 2;
  if (is_real_float(t)) return 3;
  return 4;
}
} // namespace types_detail

// np.result_type of two array dtypes.
constexpr DType promote(DType a, DType b) {
  using namespace types_detail;
  if (a == b) return a;
  if (a == DType::BOOL) return b;
  if (b == DType::BOOL) return a;
  if (is_int(a) && is_int(b)) {
    if (is_sint(a) == is_sint(b)) return size_of(a) >= size_of(b) ? a : b;
    DType s = is_sint(a) ? a : b;
    DType u = is_sint(a) ? b : a;
    if (size_of(s) > size_of(u)) return s;
    if (size_of(u) == 8) return DType::FLOAT64;
    return signed_of_size(2 * size_of(u));
  }
  int bytes = float_bytes(a) > float_bytes(b) ? float_bytes(a) : float_bytes(b);
  if (is_cplx(a) || is_cplx(b)) return bytes == 4 ? DType::COMPLEX64 : DType::COMPLEX128;
  return bytes == 4 ? DType::FLOAT32 : DType::FLOAT64;
}

// The dtype of array (dtype a) op weak scalar (kind k), NEP 50.
constexpr DType promote_weak(DType a, scalar_kind k) {
  switch (k) {
  case scalar_kind::boolean:
    return a;
  case scalar_kind::integer:
    return a == DType::BOOL ? DType::INT64 : a;
  case scalar_kind::floating:
    return types_detail::is_inexact(a) ? a : DType::FLOAT64;
  case scalar_kind::complex:
    if (types_detail::is_cplx(a)) return a;
    return a == DType::FLOAT32 ? DType::COMPLEX64 : DType::COMPLEX128;
  }
  return a;
}

// NumPy's can_cast(from, to, "same_kind"): what compound assignment and casting views allow.
constexpr bool can_cast_same_kind(DType from, DType to) {
  return types_detail::cast_kind(from) <= types_detail::cast_kind(to);
}

// The float type a float function of t computes in (t itself when already inexact).
constexpr DType float_type(DType t) {
  if (types_detail::is_inexact(t)) return t;
  return types_detail::float_bytes(t) == 4 ? DType::FLOAT32 : DType::FLOAT64;
}

// The TYPES column of core/opcodes.def for op, usable at compile time.
constexpr DTypeSet op_types(Opcode op) {
  using namespace types;
  switch (op) {
#define HS_OPCODE(NAME, OPERANDS, FAMILY, RULE, TYPES)                                             \
  case Opcode::NAME:                                                                               \
    return TYPES;
#include "core/opcodes.def"
#undef HS_OPCODE
  }
  return 0;
}

// The dtype an element-wise op computes in, given the promoted dtype of its inputs; nullopt
// when NumPy has no loop for it (a compile error in the array API).
constexpr std::optional<DType> compute_dtype(Opcode op, DType t) {
  const DTypeSet allowed = op_types(op);
  if (op == Opcode::DIVIDE && !types_detail::is_inexact(t)) return DType::FLOAT64;
  if (dtype_in(t, allowed)) return t;
  switch (op) {
  case Opcode::SUBTRACT:
  case Opcode::NEGATIVE:
  case Opcode::SIGN:
    return std::nullopt; // bool: NumPy raises TypeError
  case Opcode::POWER:
  case Opcode::MOD:
  case Opcode::FMOD:
  case Opcode::FLOOR_DIVIDE:
  case Opcode::LEFT_SHIFT:
  case Opcode::RIGHT_SHIFT:
    if (t == DType::BOOL) return DType::INT8;
    return std::nullopt;
  default:
    break;
  }
  // Float functions of integers (sqrt, exp, arctan2, ...) compute in a float type.
  if (!types_detail::is_inexact(t) && (allowed & types::F) != 0 &&
      (allowed & (types::I | types::U)) == 0) {
    DType f = float_type(t);
    if (dtype_in(f, allowed)) return f;
  }
  return std::nullopt;
}

// The output dtype of an element-wise op computing in t (core/opcodes.def's RULE column).
constexpr DType result_dtype(Opcode op, DType t) {
  switch (op) {
  case Opcode::LOGICAL_AND:
  case Opcode::LOGICAL_OR:
  case Opcode::LOGICAL_XOR:
  case Opcode::LOGICAL_NOT:
  case Opcode::EQUAL:
  case Opcode::NOT_EQUAL:
  case Opcode::GREATER:
  case Opcode::GREATER_EQUAL:
  case Opcode::LESS:
  case Opcode::LESS_EQUAL:
  case Opcode::ISNAN:
  case Opcode::ISINF:
  case Opcode::ISFINITE:
    return DType::BOOL;
  case Opcode::ABSOLUTE:
  case Opcode::REAL:
  case Opcode::IMAG:
    return t == DType::COMPLEX64 ? DType::FLOAT32 : t == DType::COMPLEX128 ? DType::FLOAT64 : t;
  default:
    return t;
  }
}

// NumPy's accumulator type of sum, prod and cumsum: small signed ints and bool go to int64,
// unsigned ints to uint64, inexact types stay.
constexpr DType sum_dtype(DType t) {
  if (t == DType::BOOL || types_detail::is_sint(t)) return DType::INT64;
  if (types_detail::is_uint(t)) return DType::UINT64;
  return t;
}
// The type of mean: float64 for bool and integers, else the type itself.
constexpr DType mean_dtype(DType t) {
  return types_detail::is_inexact(t) ? t : DType::FLOAT64;
}

} // namespace hassium
