// NumPy's dtype promotion and per-op type rules, constexpr, for both frontends.
//
// Promotion follows NumPy 2 (checked against numpy 2.4 for all 13 x 13 pairs):
//   - two arrays: np.result_type (int8 + uint8 -> int16, int64 + uint64 -> float64,
//     int16 + float32 -> float32, int32 + float32 -> float64, float64 + complex64 -> complex128);
//   - an array and a scalar of the language (a Python or C++ scalar): the scalar is "weak"
//     (NEP 50): only its kind counts (bool < integer < floating < complex). float32 * 2.0 stays
//     float32, int8 + 1 stays int8, int * 0.5 is float64, bool + 1 is int64. An integer constant
//     that does not fit the array's integer type is an error (NumPy raises OverflowError).
// Per operation (compute_dtype): NumPy's loop selection. True division of integers gives
// float64; float functions of integers give float32 for 1- and 2-byte integers (NumPy: float16
// for 1-byte ones; hassium has no float16) and float64 otherwise; bool ** bool, bool % bool
// and bool shifts compute in int8; minus/sign/subtract of bools have no loop, as NumPy raises
// TypeError for them.
//
// The C++ API (hassium/types.h) uses these at compile time; the Python frontend asks NumPy
// itself for ufunc loops (bridge/python/dtypes.cpp) and uses the weak-scalar rules here. Standard
// library only: installed with the public headers (include/hassium/internal/bridge/common/).
#pragma once

#include <cstdint>
#include <optional>

#include "core/dtype.h"
#include "core/opcode.h"
#include "core/scalar.h"

namespace hassium::frontend {

// The kind of a weak scalar (NEP 50), in NumPy's order.
enum class scalar_kind : uint8_t { boolean, integer, floating, complex };

namespace types_detail {
// Bytes of the float precision NumPy uses to hold a value of t exactly enough: 4 for float32,
// complex64 and integers of up to 2 bytes (NumPy: float16 for 1-byte ones), 8 otherwise.
constexpr int float_bytes(DType t) {
  if (t == DType::FLOAT32 || t == DType::COMPLEX64) return 4;
  if (t == DType::BOOL || (is_integer(t) && dtype_size(t) <= 2)) return 4;
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
  if (is_unsigned_int(t)) return 1;
  if (is_signed_int(t)) return 2;
  if (is_float(t)) return 3;
  return 4;
}
} // namespace types_detail

// np.result_type of two array dtypes.
constexpr DType promote(DType a, DType b) {
  using namespace types_detail;
  if (a == b) return a;
  if (a == DType::BOOL) return b;
  if (b == DType::BOOL) return a;
  if (is_integer(a) && is_integer(b)) {
    if (is_signed_int(a) == is_signed_int(b)) return dtype_size(a) >= dtype_size(b) ? a : b;
    DType s = is_signed_int(a) ? a : b;
    DType u = is_signed_int(a) ? b : a;
    if (dtype_size(s) > dtype_size(u)) return s;
    if (dtype_size(u) == 8) return DType::FLOAT64;
    return signed_of_size(2 * dtype_size(u));
  }
  int bytes = float_bytes(a) > float_bytes(b) ? float_bytes(a) : float_bytes(b);
  if (is_complex(a) || is_complex(b)) return bytes == 4 ? DType::COMPLEX64 : DType::COMPLEX128;
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
    return is_inexact(a) ? a : DType::FLOAT64;
  case scalar_kind::complex:
    if (is_complex(a)) return a;
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
  if (is_inexact(t)) return t;
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
  if (op == Opcode::DIVIDE && !is_inexact(t)) return DType::FLOAT64;
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
  if (!is_inexact(t) && (allowed & types::F) != 0 &&
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
  if (t == DType::BOOL || is_signed_int(t)) return DType::INT64;
  if (is_unsigned_int(t)) return DType::UINT64;
  return t;
}
// The type of mean: float64 for bool and integers, else the type itself.
constexpr DType mean_dtype(DType t) {
  return is_inexact(t) ? t : DType::FLOAT64;
}

// The dtype a weak scalar of kind k has on its own (NumPy's default: int64, float64, complex128).
constexpr DType weak_dtype(scalar_kind k) {
  return k == scalar_kind::boolean ? DType::BOOL : promote_weak(DType::BOOL, k);
}

// A weak integer constant (dtype INT64, or UINT64 above INT64_MAX) fits integer dtype t: NumPy
// raises OverflowError otherwise.
constexpr bool int_constant_fits(const Scalar& s, DType t) {
  using namespace types_detail;
  if (s.dtype == t) return true;
  const int bits = 8 * dtype_size(t);
  if (is_signed_int(t)) {
    const int64_t hi = bits == 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1;
    const int64_t lo = -hi - 1;
    return s.dtype == DType::INT64 ? s.i >= lo && s.i <= hi : s.u <= uint64_t(hi);
  }
  const uint64_t hi = bits == 64 ? UINT64_MAX : (uint64_t(1) << bits) - 1;
  return s.dtype == DType::INT64 ? s.i >= 0 && uint64_t(s.i) <= hi : s.u <= hi;
}

} // namespace hassium::frontend
