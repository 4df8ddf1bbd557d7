// The binding functions module.cpp calls, one per file, to build the _hassium module.
#pragma once

#include <pybind11/pybind11.h>

namespace hassium::python {

namespace py = pybind11;

void bind_ndarray(py::module_& m);   // bind_ndarray.cpp: the ndarray class
void bind_ufuncs(py::module_& m);    // bind_ufuncs.cpp: the ufunc class and one object per ufunc
void bind_functions(py::module_& m); // bind_functions.cpp: creation, flush, generators, where
void bind_products(py::module_& m);  // linalg.cpp: matmul, dot, inner, vdot (fast builtins)
void bind_python_backend(py::module_& m); // python_backend.cpp: a Backend calling Python (tests)
void bind_profile(py::module_& m);        // bind_profile.cpp: hassium.profile()
void bind_errors(py::module_& m);         // bind_errors.cpp: exception types, SIGINT during a flush
void bind_numpy_guard(py::module_& m);    // numpy_guard.cpp: NumPy's functions for unheld dtypes

} // namespace hassium::python
