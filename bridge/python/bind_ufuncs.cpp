// hassium.ufunc: the class, and one object per entry of the ufunc table (hassium.add, ...).
#include "bridge/python/bindings.h"
#include "bridge/python/errors.h"
#include "bridge/python/plain_type.h"
#include "bridge/python/ufunc.h"

namespace hassium::python {

// The value behind hassium.add and friends: instances of a plain type (bridge/python/plain_type.h)
// with an instance __dict__ (each has its own __name__).
struct UfuncObject {
  const UfuncDef* def;
};
using UfuncType = PlainType<UfuncObject>;

} // namespace hassium::python

namespace pybind11::detail {
template <>
struct type_caster<hassium::python::UfuncObject>
    : hassium::python::PlainCaster<hassium::python::UfuncObject> {
  static constexpr auto name = const_name("hassium.ufunc");
};
} // namespace pybind11::detail

namespace hassium::python {

namespace {
py::object no_value() {
  return py::module_::import("numpy").attr("_NoValue");
}

// hassium.add(a, b) and friends: the type's call slot, called by the interpreter directly.
PyObject* ufunc_slot_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  return call_in_slot<PyObject*>(nullptr, [&] {
    const UfuncDef& u = *UfuncType::value(self).def;
    auto a = py::reinterpret_borrow<py::args>(args);
    if (!kwargs || PyDict_GET_SIZE(kwargs) == 0) return ufunc_call(u, std::move(a)).release().ptr();
    return ufunc_call(u, std::move(a), py::reinterpret_borrow<py::kwargs>(kwargs)).release().ptr();
  });
}
} // namespace

void bind_ufuncs(py::module_& m) {
  TypeBinder cls(UfuncType::create("hassium._hassium.ufunc",
                                   "A NumPy ufunc recorded as hassium bytecode.",
                                   {{Py_tp_call, reinterpret_cast<void*>(&ufunc_slot_call)}},
                                   /*instance_dict=*/true));
  m.attr("ufunc") = cls.type();
  cls.def_property_readonly("nin", [](const UfuncObject& u) { return u.def->nin; });
  cls.def_property_readonly("nout", [](const UfuncObject& u) { return u.def->nout; });
  cls.def_property_readonly("nargs", [](const UfuncObject& u) { return u.def->nin + u.def->nout; });
  cls.def_property_readonly("identity", [](const UfuncObject& u) {
    return py::module_::import("numpy").attr(u.def->name).attr("identity");
  });
  cls.def_property_readonly("signature", [](const UfuncObject&) { return py::none(); });
  // inspect.signature(hassium.add) is NumPy's (the array API suite checks it).
  cls.def_property_readonly("__signature__", [](const UfuncObject& u) {
    return py::module_::import("inspect").attr("signature")(
        py::module_::import("numpy").attr(u.def->name));
  });
  cls.def("__repr__",
          [](const UfuncObject& u) { return "<ufunc '" + std::string(u.def->name) + "'>"; });
  cls.def(
      "reduce",
      [](const UfuncObject& u, py::handle a, py::handle axis, py::handle dtype, py::handle out,
         bool keepdims, py::handle initial, py::handle where) {
        return ufunc_reduce(*u.def, a, axis, dtype, out, keepdims, initial, where);
      },
      py::arg("array"), py::arg("axis") = 0, py::arg("dtype") = py::none(),
      py::arg("out") = py::none(), py::arg("keepdims") = false, py::arg("initial") = no_value(),
      py::arg("where") = true);
  cls.def(
      "accumulate",
      [](const UfuncObject& u, py::handle a, py::handle axis, py::handle dtype, py::handle out) {
        return ufunc_accumulate(*u.def, a, axis, dtype, out);
      },
      py::arg("array"), py::arg("axis") = 0, py::arg("dtype") = py::none(),
      py::arg("out") = py::none());
  cls.def(
      "at",
      [](const UfuncObject& u, py::handle a, py::handle indices, py::handle b) {
        return ufunc_at(*u.def, a, indices, b);
      },
      py::arg("a"), py::arg("indices"), py::arg("b") = py::none());
  for (const char* method : {"reduceat"}) { // (outer: hassium/_composed.py)
    cls.def(method, [method](const UfuncObject& u, py::args args, py::kwargs kw) {
      return call_fallback(u.def->name, method, args, kw);
    });
  }
  py::dict ufuncs;
  for (const auto& def : ufunc_table()) {
    py::object obj = UfuncType::make(UfuncObject{&def});
    obj.attr("__name__") =
        def.name; // an instance attribute: a class can't have a __name__ property
    ufuncs[def.name] = obj;
  }
  m.attr("ufuncs") = ufuncs;
  m.def("_set_fallback", [](py::object fn) { set_fallback_hook(std::move(fn)); });
  m.def("_install_array_ufunc",
        [](py::handle type, py::object general) { install_array_ufunc(type, std::move(general)); });
}

} // namespace hassium::python
