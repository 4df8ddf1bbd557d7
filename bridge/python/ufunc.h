// Ufuncs: NumPy's element-wise functions as opcodes, with out=, where=, dtype=, casting=,
// and .reduce / .accumulate; what does not map falls back to NumPy through the Python hook.
#pragma once

#include <optional>
#include <vector>

#include <pybind11/pybind11.h>

#include "bridge/python/convert.h"
#include "core/opcode.h"

namespace hassium::python {

// How a ufunc is recorded.
enum class Recipe : uint8_t {
  op,         // the opcode on the loop's types
  copy,       // IDENTITY (positive)
  square,     // MULTIPLY x, x
  reciprocal, // DIVIDE 1, x (float and complex loops)
  scale,      // MULTIPLY x, factor (deg2rad and friends)
  divmod,     // FLOOR_DIVIDE and MOD into two outputs
};

// What an integer or bool loop means for a float-only opcode (floor on ints is a copy,
// isnan on ints is all false), as NumPy defines it.
enum class OnIntegral : uint8_t { none, copy, all_false, all_true };

struct UfuncDef {
  const char* name; // NumPy's name (numpy.<name> is the reference)
  int nin, nout;
  Opcode op;
  Recipe recipe = Recipe::op;
  OnIntegral on_integral = OnIntegral::none;
  double factor = 0;                        // Recipe::scale
  std::optional<Opcode> reduce_op = {};     // for .reduce
  std::optional<Opcode> accumulate_op = {}; // for .accumulate
  bool comparison = false;                  // out-of-range Python ints go to NumPy
  int id = 0;                               // index in ufunc_table()
};

// Every ufunc hassium records, in one list.
const std::vector<UfuncDef>& ufunc_table();
const UfuncDef* find_ufunc(std::string_view name);
const UfuncDef& ufunc(std::string_view name); // must exist

// The Python hook that runs something through NumPy: fallback(name, method, args, kwargs).
void set_fallback_hook(py::object fn);
py::object call_fallback(const char* name, const char* method, py::tuple args, py::dict kwargs);

// ufunc(*args, out=, where=, dtype=, casting=) like NumPy's __call__.
py::object ufunc_call(const UfuncDef& u, py::args args, py::kwargs kwargs);
// ufunc(*args) without keywords: the same, without making an empty keyword dict.
py::object ufunc_call(const UfuncDef& u, py::args args);
// Installs ndarray.__array_ufunc__ (NumPy's override protocol: numpy.multiply(x, a), and
// numpy_scalar * a, which NumPy's scalar math hands to the ufunc): a plain call of a ufunc that
// hassium records goes straight to it; anything else calls `general(self, ufunc, method,
// *inputs, **kwargs)` (hassium/_methods.py).
void install_array_ufunc(py::handle ndarray_type, py::object general);
// a <op> b for the operators: NotImplemented for operands hassium and NumPy do not know.
py::object binary_operator(const UfuncDef& u, py::handle a, py::handle b);
// a <op>= b: writes into a (NumPy's same_kind casting rule), returns a.
py::object inplace_operator(const UfuncDef& u, py::handle a, py::handle b);
py::object unary_operator(const UfuncDef& u, py::handle a);
// a ** b and a **= b as NumPy's array_power: an inexact (float, complex) hassium array a and an
// exact Python int 2 or -1 or float 0.5 are square, reciprocal, sqrt (number.c's
// fast_scalar_power; for complex a not power's bits); anything else is power.
py::object power_operator(py::handle a, py::handle b);
py::object inplace_power_operator(py::handle a, py::handle b);

// ufunc.reduce(a, axis, dtype, out, keepdims, initial, where); `axis` None means all axes.
py::object ufunc_reduce(const UfuncDef& u, py::handle a, py::handle axis, py::handle dtype,
                        py::handle out, bool keepdims, py::handle initial, py::handle where);
// ufunc.accumulate(a, axis, dtype, out); axis None flattens first (cumsum's rule).
py::object ufunc_accumulate(const UfuncDef& u, py::handle a, py::handle axis, py::handle dtype,
                            py::handle out);

// ufunc.at(a, indices, b): unbuffered a[indices] op= b for add, subtract, multiply, minimum and
// maximum when a is a hassium array and the loop is a's own dtype (NumPy's other cases, which
// cast unsafely, and the other ufuncs run through NumPy).
py::object ufunc_at(const UfuncDef& u, py::handle a, py::handle indices, py::handle b);

// The reduction on an Array: axes normalized and distinct; for ndarray methods.
Array reduce_array(const UfuncDef& u, const Array& a, std::vector<int> axes, DType loop_type,
                   bool keepdims);

} // namespace hassium::python
