// A Backend that hands each flushed program to a Python callable: the NumPy reference executor
// of the tests (test/python/reference_backend.py) runs the bytecode with NumPy, so the frontend
// can be checked against NumPy without an engine, and engines against the reference.
#include <pybind11/numpy.h>

#include "bridge/python/bindings.h"
#include "bridge/python/dtypes.h"
#include "bridge/python/session.h"
#include "core/backend.h"
#include "core/index_error.h"
#include "core/runtime.h"

namespace hassium::python {

namespace {

py::object view_array(const View& v) {
  Base& b = *v.base;
  const int64_t item = dtype_size(b.dtype);
  std::vector<ssize_t> shape(v.shape.begin(), v.shape.end()), strides(v.stride.size());
  for (size_t k = 0; k < strides.size(); ++k) strides[k] = ssize_t(v.stride[k] * item);
  auto* keep = new BasePtr(v.base);
  py::capsule cap(keep, [](void* p) { delete static_cast<BasePtr*>(p); });
  return py::array(py::reinterpret_borrow<py::dtype>(numpy_dtype(b.dtype)), shape, strides,
                   static_cast<char*>(b.data) + v.offset * item, cap);
}

py::object constant_object(const Scalar& s) {
  py::object type = py::reinterpret_borrow<py::object>(numpy_dtype(s.dtype)).attr("type");
  if (is_bool(s.dtype)) return type(s.b);
  if (is_signed_int(s.dtype)) return type(s.i);
  if (is_unsigned_int(s.dtype)) return type(s.u);
  if (is_float(s.dtype)) return type(s.re);
  return type(py::reinterpret_steal<py::object>(PyComplex_FromDoubles(s.re, s.im)));
}

class PythonBackend : public Backend {
public:
  explicit PythonBackend(py::object fn) : fn_(fn.release().ptr()) {}
  std::string_view name() const override { return "python"; }
  void add_counters(ProfileCounters&) const override {}

  void execute(const Program& program) override {
    py::gil_scoped_acquire gil;
    py::list instrs;
    for (const auto& ins : program.instrs) {
      py::list ops;
      for (size_t i = 0; i < ins.operands.size(); ++i) {
        if (!ins.is_view(i)) {
          ops.append(constant_object(ins.constant(i)));
          continue;
        }
        // Memory for every base the program touches. (Not from program.bases: the runtime
        // lists the bases only for filters, and a NumPy array over a null pointer would be a
        // fresh buffer of NumPy's, or a wild pointer with an offset.)
        Base& b = *ins.view(i).base;
        if (!b.data) allocate_external(b);
        ops.append(view_array(ins.view(i)));
      }
      instrs.append(py::make_tuple(std::string(op_name(ins.op)), ops));
    }
    try {
      py::reinterpret_borrow<py::object>(fn_)(instrs);
    } catch (py::error_already_set& e) {
      release_freed(program);
      // IndexError(message, index, bound): the engine's bounds check failed.
      py::tuple args = e.value().attr("args");
      if (e.matches(PyExc_IndexError) && args.size() == 3)
        throw IndexOutOfBounds(args[0].cast<std::string>(), args[1].cast<int64_t>(),
                               args[2].cast<int64_t>());
      throw;
    } catch (...) {
      release_freed(program);
      throw;
    }
    release_freed(program);
  }

private:
  static void release_freed(const Program& program) {
    for (const auto& ins : program.instrs)
      if (ins.op == Opcode::FREE) ins.out().base->release_memory();
  }
  PyObject* fn_; // kept for the process
};

} // namespace

void bind_python_backend(py::module_& m) {
  m.def(
      "_install_python_backend",
      [](py::object fn) {
        Stack s;
        s.backend = std::make_unique<PythonBackend>(std::move(fn));
        without_gil([&] { Runtime::instance().install(std::move(s)); });
      },
      "Runs every flush through fn(instructions), instructions being (opcode name, operands) with "
      "views as NumPy arrays over the bases' memory and constants as NumPy scalars.");
  m.def("_runtime_installed", [] { return Runtime::instance().installed(); });
}

} // namespace hassium::python
