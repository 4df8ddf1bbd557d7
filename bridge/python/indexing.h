// Indexing: a[key] and a[key] = value with NumPy's rules (basic indexing makes views; integer
// and boolean arrays gather and scatter).
#pragma once

#include <pybind11/pybind11.h>

#include "bridge/python/array.h"

namespace hassium::python {

namespace py = pybind11;

// a[key]: a view for basic keys, a scalar-like 0-d copy for a full integer index, a GATHER for
// integer/boolean arrays.
py::object getitem(const Array& a, py::handle key);
// a[key] = value, with broadcasting and NumPy's copy on overlap.
void setitem(const Array& a, py::handle key, py::handle value);

} // namespace hassium::python
