// Raising NumPy's exception types with NumPy's messages from C++.
#pragma once

#include <string>

#include <pybind11/pybind11.h>

namespace hassium::python {

namespace py = pybind11;

// Raises `type` (a Python exception class) with the message.
[[noreturn]] inline void raise(PyObject* type, const std::string& msg) {
  PyErr_SetString(type, msg.c_str());
  throw py::error_already_set();
}
[[noreturn]] inline void raise_value_error(const std::string& m) {
  raise(PyExc_ValueError, m);
}
[[noreturn]] inline void raise_index_error(const std::string& m) {
  raise(PyExc_IndexError, m);
}
[[noreturn]] inline void raise_type_error(const std::string& m) {
  raise(PyExc_TypeError, m);
}
// numpy.exceptions.AxisError("axis 2 is out of bounds for array of dimension 2").
[[noreturn]] void raise_axis_error(int64_t axis, int ndim);

// Runs `body` inside a CPython slot the interpreter calls directly (not through pybind11's
// dispatcher): a C++ exception becomes the pending Python error, translated as pybind11 would
// translate it, and the slot returns `failed` (nullptr or -1).
template <typename R, typename F> R call_in_slot(R failed, F&& body) {
  try {
    return body();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (...) {
    py::detail::try_translate_exceptions();
  }
  return failed;
}

} // namespace hassium::python
