// hassium.ufunc: the class, and one object per entry of the ufunc table (hassium.add, ...).
#include "bridge/python/bindings.h"
#include "bridge/python/ufunc.h"

namespace hassium::python {

namespace {
// The Python object behind hassium.add and friends.
struct UfuncObject {
  const UfuncDef* def;
};

py::object no_value() {
  return py::module_::import("numpy").attr("_NoValue");
}
} // namespace

void bind_ufuncs(py::module_& m) {
  py::class_<UfuncObject> cls(m, "ufunc", py::dynamic_attr(),
                              "A NumPy ufunc recorded as hassium bytecode.");
  cls.def("__call__", [](const UfuncObject& u, py::args args, py::kwargs kw) {
    return ufunc_call(*u.def, args, kw);
  });
  cls.def_property_readonly("nin", [](const UfuncObject& u) { return u.def->nin; });
  cls.def_property_readonly("nout", [](const UfuncObject& u) { return u.def->nout; });
  cls.def_property_readonly("nargs", [](const UfuncObject& u) { return u.def->nin + u.def->nout; });
  cls.def_property_readonly("identity", [](const UfuncObject& u) {
    return py::module_::import("numpy").attr(u.def->name).attr("identity");
  });
  cls.def_property_readonly("signature", [](const UfuncObject&) { return py::none(); });
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
  for (const char* method : {"outer", "at", "reduceat"}) {
    cls.def(method, [method](const UfuncObject& u, py::args args, py::kwargs kw) {
      return call_fallback(u.def->name, method, args, kw);
    });
  }
  py::dict ufuncs;
  for (const auto& def : ufunc_table()) {
    py::object obj = py::cast(UfuncObject{&def});
    obj.attr("__name__") =
        def.name; // an instance attribute: a class can't have a __name__ property
    ufuncs[def.name] = obj;
  }
  m.attr("ufuncs") = ufuncs;
  m.def("_set_fallback", [](py::object fn) { set_fallback_hook(std::move(fn)); });
}

} // namespace hassium::python
