// Dtypes between NumPy and hassium: dtype objects, promotion codes, NumPy's ufunc loop choice.
//
// Promotion is NumPy's own: the loop a ufunc runs for given input types is asked of NumPy
// (`ufunc.resolve_dtypes`, which implements NEP 50 when handed the Python types int, float,
// complex for "weak" scalars) the first time a combination is seen, then cached here. So
// `a + 1` with int8 `a` runs an int8 loop, `int8 / int8` a float64 loop, exactly as NumPy.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "bridge/common/promotion.h"
#include "core/dtype.h"

namespace hassium::python {

namespace py = pybind11;

// A promotion code: a DType (0..12) or a weak Python scalar kind (NEP 50).
using TypeCode = uint8_t;
inline constexpr TypeCode kWeakInt = kNumDTypes;
inline constexpr TypeCode kWeakFloat = kNumDTypes + 1;
inline constexpr TypeCode kWeakComplex = kNumDTypes + 2;
inline constexpr int kNumCodes = kNumDTypes + 3;
inline TypeCode code_of(DType t) {
  return TypeCode(t);
}
// The dtype a code stands for on its own: the DType, or a weak scalar's NumPy default
// (bridge/common/promotion.h: int64, float64, complex128).
inline DType dtype_of_code(TypeCode c) {
  using frontend::scalar_kind;
  if (c < kNumDTypes) return DType(c);
  return frontend::weak_dtype(c == kWeakInt     ? scalar_kind::integer
                              : c == kWeakFloat ? scalar_kind::floating
                                                : scalar_kind::complex);
}

// The numpy.dtype object of a hassium dtype (cached; borrowed reference).
py::handle numpy_dtype(DType t);
// The hassium dtype of a numpy.dtype object; nullopt for types hassium does not hold
// (float16, longdouble, object, strings, non-native byte order, ...).
std::optional<DType> dtype_of_numpy(py::handle descr);
// The dtype a `dtype=` argument names (anything numpy.dtype() accepts); nullopt when it is a
// type hassium does not hold. Raises NumPy's TypeError for things that are no dtype.
std::optional<DType> dtype_from_arg(py::handle arg);

// NumPy's loop for a ufunc call: the dtypes the inputs are cast to and the output dtype(s).
struct Loop {
  std::array<DType, 2> in{};
  std::array<DType, 2> out{};
};

// The loop numpy.<ufunc> runs for input codes `codes` (1 or 2), with `dtype=` forced when
// given. nullopt when NumPy has none (it raises) or picks types hassium does not hold.
std::optional<Loop> resolve_loop(int ufunc_id, const char* ufunc_name, int nin, int nout,
                                 std::span<const TypeCode> codes, std::optional<DType> forced);
// The loop of ufunc.reduce / accumulate (NumPy's reduction resolution: add on int8 -> int64).
std::optional<Loop> resolve_reduce_loop(int ufunc_id, const char* ufunc_name, DType in,
                                        std::optional<DType> forced);

enum class Casting : uint8_t { no, equiv, safe, same_kind, unsafe };
std::optional<Casting> parse_casting(std::string_view s);
// numpy.can_cast(from, to, casting), cached.
bool can_cast(DType from, DType to, Casting casting);
// NumPy's repr of a dtype in messages: "dtype('float64')".
std::string dtype_repr(DType t);

} // namespace hassium::python
