// NumPy's C API where the bridge needs its speed: NumPy scalars made from memory and read back.
#pragma once

#include <pybind11/pybind11.h>

#include "core/scalar.h"
#include "core/view.h"

namespace hassium::python {

namespace py = pybind11;

// The NumPy scalar of dtype t holding the element at p (numpy.float64(2.5)): what NumPy returns
// for a[i, j].
py::object numpy_scalar(const void* p, DType t);
// A read-only NumPy array over the view's memory, with no owner: only for a call that holds the
// view's base for as long as the array lives (a NumPy function computing from it at once).
// The base must have memory.
py::object borrowed_numpy_view(const View& v);
// When obj is a NumPy scalar (numpy.generic) of a dtype hassium holds: true, with its dtype and
// value. False for anything else (Python scalars, arrays, float16, ...).
bool numpy_scalar_value(PyObject* obj, Scalar& value);
// The same for the scalar types of hassium's dtypes themselves (numpy.float64, not a subclass
// or numpy.longlong): a few pointer comparisons, the value read in place.
bool exact_numpy_scalar_value(PyObject* obj, Scalar& value);

// Whether obj is a NumPy array or NumPy scalar of a dtype hassium does not hold (float16,
// longdouble, object, strings, structured or byte-swapped): what only NumPy can compute with.
bool numpy_value_of_unheld_dtype(PyObject* obj);

} // namespace hassium::python
