// Element types of hassium::array: C++ type <-> DType, NumPy's promotion and per-op type rules.
//
// The promotion rules themselves are bridge/common/promotion.h (one definition, which the Python
// frontend uses too); this header gives them their public names in namespace hassium.
#pragma once

#include <complex>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "bridge/common/promotion.h"
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

// The kind of a C++ scalar as a weak operand (NEP 50): bool < integer < floating < complex.
using frontend::scalar_kind;
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

// NumPy's promotion and per-op type rules (one definition, shared with the Python frontend).
using frontend::can_cast_same_kind;
using frontend::compute_dtype;
using frontend::float_type;
using frontend::mean_dtype;
using frontend::op_types;
using frontend::promote;
using frontend::promote_weak;
using frontend::result_dtype;
using frontend::sum_dtype;
namespace types_detail = frontend::types_detail;

} // namespace hassium
