// Converting Python objects: operands of operations (arrays, scalars) and NumPy arrays both ways.
#pragma once

#include <optional>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "bridge/python/array.h"
#include "bridge/python/dtypes.h"
#include "bridge/python/plain_type.h"

namespace hassium::python {

// hassium.ndarray is a plain CPython type whose instances hold an Array in place
// (bridge/python/plain_type.h; made by bind_ndarray()).
using NdarrayType = PlainType<Array>;
inline PyTypeObject* ndarray_type() {
  return NdarrayType::type();
}
// The Array inside a hassium.ndarray (obj must be one, or an instance of a subclass).
inline Array& array_of(py::handle obj) {
  return NdarrayType::value(obj.ptr());
}
inline bool is_ndarray(py::handle obj) {
  return NdarrayType::check(obj.ptr());
}
// A new hassium.ndarray object holding the array.
inline py::object wrap(Array&& a) {
  return NdarrayType::make(std::move(a));
}
inline py::object wrap(const Array& a) {
  return NdarrayType::make(a);
}

// One operand of an operation after classification.
struct Arg {
  // (User-provided: value-initializing an Arg, as a container's resize() does, then runs the
  // member initializers only instead of first zeroing the whole object, the optional's storage
  // of an Array included.)
  Arg() {}
  bool is_array = false;
  TypeCode code = 0; // the dtype, or a weak Python scalar kind (NEP 50)
  Scalar value;      // a constant, in its own type (a weak int as int64, or uint64 when larger)
  // Where NumPy would treat the operand as a scalar (Python/NumPy scalars, 0-d arrays).
  bool zero_dim = false;

  // is_array: the array. A hassium.ndarray's own Array is referred to, not copied (the caller of
  // classify() keeps the object alive while it uses the Arg); one made from something else
  // (a NumPy array, a list) is held here.
  const Array& array() const { return ref_ ? *ref_ : *owned_; }
  void refer(const Array& a) {
    ref_ = &a;
    owned_.reset();
  }
  void hold(Array a) {
    owned_ = std::move(a);
    ref_ = nullptr;
  }
  const Dims& shape() const {
    static const Dims none;
    return is_array ? array().shape() : none;
  }

private:
  const Array* ref_ = nullptr;
  std::optional<Array> owned_; // (optional: an Arg that refers costs no Array to make and drop)
};

enum class ArgStatus {
  ok,
  not_implemented, // an object hassium and NumPy do not know: binary operators return
                   // NotImplemented
  fallback         // something NumPy handles and hassium does not (float16, object, huge ints)
};
// `out` refers to obj's Array when obj is a hassium.ndarray: keep obj alive while using it.
ArgStatus classify(py::handle obj, Arg& out);

// The constant of `a` in loop type t. nullopt when a Python int does not fit an integer t
// (NumPy raises OverflowError there, except for comparisons).
std::optional<Scalar> constant_for_loop(const Arg& a, DType t);
// NumPy's OverflowError for that case.
[[noreturn]] void raise_int_out_of_bounds(const Arg& a, DType t);

// A hassium array over a NumPy array's memory (no copy) when its dtype, alignment and strides
// allow and it is writeable, else over a copy. nullopt when hassium does not hold the dtype.
std::optional<Array> from_numpy(const py::array& arr, bool force_copy);
// A NumPy array over the array's memory (flushes what is pending; no copy). Writes through it
// are seen by hassium.
py::array to_numpy(const Array& a);
// The value of a 0-d or 1-element array as a Python scalar of the dtype's kind (flushes).
py::object item(const Array& a, int64_t flat_index);
// obj.__index__() as int64 (TypeError like Python's for non-integers).
int64_t index_value(py::handle obj);
// A Python int/float/complex/bool as a Scalar (for fills); nullopt for other objects.
std::optional<Scalar> python_scalar(py::handle obj);

} // namespace hassium::python

// Functions bound with Array parameters and results take and give hassium.ndarray objects.
namespace pybind11::detail {
template <>
struct type_caster<hassium::python::Array> : hassium::python::PlainCaster<hassium::python::Array> {
  static constexpr auto name = const_name("hassium.ndarray");
};
} // namespace pybind11::detail
