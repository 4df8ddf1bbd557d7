// numpy_guard(fn, numpy_fn): calls fn, or numpy_fn when an argument holds a NumPy value of a
// dtype hassium does not hold (np.roll(float16_array, 1) is NumPy's to compute).
//
// The namespace's Python-level functions (hassium/__init__.py) are wrapped in one of these: a
// vectorcall object, so the check costs tens of nanoseconds on every call (a Python decorator
// cost ~0.2 us, a tenth of a recorded statement). Positional and keyword arguments are looked
// at, and the items of a list or tuple argument (np.meshgrid(*xs), np.stack([a, b])).
#include <Python.h>
#include <structmember.h>

#include "bridge/python/bindings.h"
#include "bridge/python/convert.h"
#include "bridge/python/numpy_api.h"

namespace hassium::python {

namespace {

struct NumpyGuard {
  PyObject_HEAD PyObject* fn; // the hassium function
  PyObject* numpy_fn;         // what runs it through NumPy (hassium/_fallback.py)
  vectorcallfunc vectorcall;
};

bool unheld(PyObject* obj) {
  PyTypeObject* t = Py_TYPE(obj);
  if (t == ndarray_type() || t == &PyLong_Type || t == &PyFloat_Type || t == &PyBool_Type ||
      obj == Py_None)
    return false;
  if (t == &PyList_Type || t == &PyTuple_Type) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    PyObject** items = PySequence_Fast_ITEMS(obj);
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyTypeObject* it = Py_TYPE(items[i]);
      if (it != ndarray_type() && it != &PyLong_Type && it != &PyFloat_Type &&
          numpy_value_of_unheld_dtype(items[i]))
        return true;
    }
    return false;
  }
  return numpy_value_of_unheld_dtype(obj);
}

PyObject* guard_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* g = reinterpret_cast<NumpyGuard*>(self);
  const Py_ssize_t n = PyVectorcall_NARGS(nargsf) + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  try {
    for (Py_ssize_t i = 0; i < n; ++i)
      if (unheld(args[i])) return PyObject_Vectorcall(g->numpy_fn, args, nargsf, kwnames);
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  }
  return PyObject_Vectorcall(g->fn, args, nargsf, kwnames);
}

PyObject* guard_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject *fn, *numpy_fn;
  static const char* names[] = {"fn", "numpy_fn", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:numpy_guard", const_cast<char**>(names), &fn,
                                   &numpy_fn))
    return nullptr;
  if (!PyCallable_Check(fn) || !PyCallable_Check(numpy_fn)) {
    PyErr_SetString(PyExc_TypeError, "numpy_guard() takes two callables");
    return nullptr;
  }
  auto* g = reinterpret_cast<NumpyGuard*>(type->tp_alloc(type, 0));
  if (!g) return nullptr;
  Py_INCREF(fn);
  Py_INCREF(numpy_fn);
  g->fn = fn;
  g->numpy_fn = numpy_fn;
  g->vectorcall = guard_call;
  return reinterpret_cast<PyObject*>(g);
}

int guard_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* g = reinterpret_cast<NumpyGuard*>(self);
  Py_VISIT(g->fn);
  Py_VISIT(g->numpy_fn);
  return 0;
}

int guard_clear(PyObject* self) {
  auto* g = reinterpret_cast<NumpyGuard*>(self);
  Py_CLEAR(g->fn);
  Py_CLEAR(g->numpy_fn);
  return 0;
}

void guard_dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  guard_clear(self);
  type->tp_free(self);
  Py_DECREF(type); // a heap type's instances hold a reference to it
}

PyObject* guard_getattro(PyObject* self, PyObject* name) {
  auto* g = reinterpret_cast<NumpyGuard*>(self);
  if (PyUnicode_Check(name)) {
    if (PyUnicode_CompareWithASCIIString(name, "__wrapped__") == 0) {
      Py_INCREF(g->fn);
      return g->fn;
    }
    for (const char* own : {"__module__", "__doc__", "__name__", "__qualname__"})
      if (PyUnicode_CompareWithASCIIString(name, own) == 0) return PyObject_GetAttr(g->fn, name);
  }
  if (PyObject* r = PyObject_GenericGetAttr(self, name)) return r;
  if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return nullptr;
  PyErr_Clear();
  return PyObject_GetAttr(g->fn, name);
}

PyObject* guard_repr(PyObject* self) {
  return PyObject_Repr(reinterpret_cast<NumpyGuard*>(self)->fn);
}

PyMemberDef guard_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(NumpyGuard, vectorcall), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyType_Slot guard_slots[] = {
    {Py_tp_doc, const_cast<char*>("numpy_guard(fn, numpy_fn): fn, or numpy_fn for NumPy values "
                                  "of dtypes hassium does not hold")},
    {Py_tp_new, reinterpret_cast<void*>(guard_new)},
    {Py_tp_dealloc, reinterpret_cast<void*>(guard_dealloc)},
    {Py_tp_traverse, reinterpret_cast<void*>(guard_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(guard_clear)},
    {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
    {Py_tp_getattro, reinterpret_cast<void*>(guard_getattro)},
    {Py_tp_repr, reinterpret_cast<void*>(guard_repr)},
    {Py_tp_members, guard_members},
    {0, nullptr}};

PyType_Spec guard_spec = {"hassium._hassium.numpy_guard", sizeof(NumpyGuard), 0,
                          Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
                          guard_slots};

} // namespace

void bind_numpy_guard(py::module_& m) {
  PyObject* type = PyType_FromSpec(&guard_spec);
  if (!type) throw py::error_already_set();
  m.attr("numpy_guard") = py::reinterpret_steal<py::object>(type);
}

} // namespace hassium::python
