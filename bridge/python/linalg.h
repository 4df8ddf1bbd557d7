// matmul, dot, inner and vdot of two hassium arrays of 1 or 2 dims, recorded from C++ in one
// call: NumPy's promotion, the casts, 1-D operands as (1,k) / (k,1) views, one MATMUL (BLAS),
// and the 0-d scalar of a 1-D x 1-D product. Everything else (more dims, bool, NumPy operands,
// out=, keywords) takes the Python functions in hassium/_functions.py.
#pragma once

#include <optional>

#include <pybind11/pybind11.h>

namespace hassium::python {

namespace py = pybind11;

// Which NumPy function: they differ in the error for mismatched shapes and in what they accept.
enum class Product : uint8_t {
  matmul, // also the @ operator; a 0-d operand is a ValueError
  dot,    // a 0-d operand multiplies (Python)
  inner,  // 1-D x 1-D only (more dims contract b's last axis: Python)
  vdot,   // 1-D x 1-D real only (complex conjugates a, more dims flatten: Python)
};

// The product of a and b when both are hassium arrays of 1 or 2 dims whose promoted dtype is not
// bool; raises NumPy's ValueError for shapes that do not match (and, for matmul, a 0-d operand).
// nullopt: anything else, for the caller's general path.
std::optional<py::object> product(Product kind, py::handle a, py::handle b);

// The @ operator as hassium.ndarray's nb_matrix_multiply slot: product(matmul, a, b), else
// hassium._functions._matmul(a, b) (whichever operand is the hassium array).
PyObject* matmul_slot(PyObject* a, PyObject* b);

} // namespace hassium::python
