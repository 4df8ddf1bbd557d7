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

// NumPy's ufunc.at(a, key, value) for the accumulation `at_op` (ADD_AT, ...): a[key] op= value
// without buffering, so repeated positions accumulate. `value` is an array of a's dtype or a
// constant that fits it (the caller checks); it is broadcast to the indexed shape (NumPy's
// ValueError otherwise). A basic key records the element-wise op on the view (no position
// repeats); integer and boolean arrays record the accumulation at their positions.
void accumulate_at(const Array& a, py::handle key, Opcode at_op, py::handle value);

// Lazy boolean-mask selections (hassium/_masked.py): a[mask] for a hassium bool mask of a's
// shape is one of these, and a[mask] = selection under the same, unchanged mask a masked
// assignment (WHERE), with nothing flushed. The Python module registers the class.
void set_masked_type(py::object type);
bool is_masked_selection(py::handle obj);
// The selection's compressed array (NumPy's a[mask]), materialized once.
py::object materialize(py::handle selection);
// a[key] by NumPy's general rules (views, gathers), none of the lazy paths: how getitem() ends,
// and what a selection materializes through (a[mask], compressed now).
py::object getitem_general(const Array& a, py::handle key);
// a[mask] for a boolean mask (hassium or NumPy) of a's shape, what a selection materializes
// through: its length is data, so a and the mask are computed now and NumPy compresses their
// memory in one pass (count, copy); the result is wrapped without a copy. Any other mask or key:
// getitem_general().
py::object take_mask(const Array& a, py::handle mask);

} // namespace hassium::python
