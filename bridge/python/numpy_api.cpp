// NumPy's C API (imported on first use, in this file only): scalars from and to memory.
#include "bridge/python/numpy_api.h"

#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>

#include <array>
#include <cstddef>
#include <cstring>

#include "bridge/python/dtypes.h"

namespace hassium::python {

namespace {
// Every NumPy scalar of a fixed-size number holds its value right after the object header.
constexpr size_t kValueOffset = offsetof(PyDoubleScalarObject, obval);
static_assert(offsetof(PyBoolScalarObject, obval) == kValueOffset &&
              offsetof(PyByteScalarObject, obval) == kValueOffset &&
              offsetof(PyShortScalarObject, obval) == kValueOffset &&
              offsetof(PyIntScalarObject, obval) == kValueOffset &&
              offsetof(PyLongScalarObject, obval) == kValueOffset &&
              offsetof(PyLongLongScalarObject, obval) == kValueOffset &&
              offsetof(PyUByteScalarObject, obval) == kValueOffset &&
              offsetof(PyUShortScalarObject, obval) == kValueOffset &&
              offsetof(PyUIntScalarObject, obval) == kValueOffset &&
              offsetof(PyULongScalarObject, obval) == kValueOffset &&
              offsetof(PyULongLongScalarObject, obval) == kValueOffset &&
              offsetof(PyFloatScalarObject, obval) == kValueOffset &&
              offsetof(PyCFloatScalarObject, obval) == kValueOffset &&
              offsetof(PyCDoubleScalarObject, obval) == kValueOffset);

struct Api {
  std::array<PyArray_Descr*, kNumDTypes> descr{}; // numpy_dtype(t), borrowed (kept for the process)
  std::array<PyTypeObject*, kNumDTypes> type{};   // its scalar type (numpy.float64, ...)
  std::array<int8_t, NPY_NTYPES_LEGACY> dtype_of{}; // NumPy type number -> DType, -1 = none
};

const Api& api() {
  static const Api* a = [] {
    if (PyArray_ImportNumPyAPI() < 0) throw py::error_already_set();
    auto* r = new Api;
    r->dtype_of.fill(-1);
    for (int k = 0; k < kNumDTypes; ++k) {
      auto* d = reinterpret_cast<PyArray_Descr*>(numpy_dtype(DType(k)).ptr());
      r->descr[size_t(k)] = d;
      r->type[size_t(k)] = d->typeobj;
      if (d->type_num >= 0 && d->type_num < NPY_NTYPES_LEGACY)
        r->dtype_of[size_t(d->type_num)] = int8_t(k);
    }
    // The other C names of the same numbers (longlong is int64 where long is too, ...).
    for (int num = 0; num < NPY_NTYPES_LEGACY; ++num) {
      if (r->dtype_of[size_t(num)] >= 0) continue;
      PyArray_Descr* d = PyArray_DescrFromType(num);
      if (!d) {
        PyErr_Clear();
        continue;
      }
      if (std::optional<DType> t = dtype_of_numpy(reinterpret_cast<PyObject*>(d)))
        r->dtype_of[size_t(num)] = int8_t(*t);
      Py_DECREF(d);
    }
    return r;
  }();
  return *a;
}
} // namespace

py::object numpy_scalar(const void* p, DType t) {
  PyArray_Descr* d = api().descr[size_t(t)];
  // PyArray_Scalar reads the bytes at p as d's type (its `base` argument only serves types that
  // keep a reference, which none of hassium's do).
  PyObject* s = PyArray_Scalar(const_cast<void*>(p), d, nullptr);
  if (!s) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(s);
}

py::object borrowed_numpy_view(const View& v) {
  PyArray_Descr* d = api().descr[size_t(v.dtype())];
  const int64_t item = dtype_size(v.dtype());
  npy_intp dims[NPY_MAXDIMS], strides[NPY_MAXDIMS];
  const int nd = v.ndim();
  for (int k = 0; k < nd; ++k) {
    dims[k] = npy_intp(v.shape[size_t(k)]);
    strides[k] = npy_intp(v.stride[size_t(k)] * item);
  }
  Py_INCREF(d); // PyArray_NewFromDescr steals it
  PyObject* arr = PyArray_NewFromDescr(&PyArray_Type, d, nd, dims, strides,
                                       static_cast<char*>(v.base->data) + v.offset * item,
                                       NPY_ARRAY_ALIGNED, nullptr);
  if (!arr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(arr);
}

bool exact_numpy_scalar_value(PyObject* obj, Scalar& value) {
  const Api& a = api();
  // float64 and int64 first: the scalars a program reads back (x[i, j], a sum) most often.
  for (DType common : {DType::FLOAT64, DType::INT64})
    if (Py_TYPE(obj) == a.type[size_t(common)]) {
      value = Scalar::load(reinterpret_cast<const char*>(obj) + kValueOffset, common);
      return true;
    }
  for (int k = 0; k < kNumDTypes; ++k)
    if (Py_TYPE(obj) == a.type[size_t(k)]) {
      value = Scalar::load(reinterpret_cast<const char*>(obj) + kValueOffset, DType(k));
      return true;
    }
  return false;
}

bool numpy_scalar_value(PyObject* obj, Scalar& value) {
  const Api& a = api();
  if (exact_numpy_scalar_value(obj, value)) return true;
  if (!PyArray_IsScalar(obj, Generic)) return false;
  PyArray_Descr* d = PyArray_DescrFromScalar(obj);
  if (!d) throw py::error_already_set();
  const int num = d->type_num;
  Py_DECREF(d);
  if (num < 0 || num >= NPY_NTYPES_LEGACY || a.dtype_of[size_t(num)] < 0) return false;
  const DType t = DType(a.dtype_of[size_t(num)]);
  alignas(16) unsigned char buf[16];
  PyArray_ScalarAsCtype(obj, buf);
  value = Scalar::load(buf, t);
  return true;
}

bool numpy_value_of_unheld_dtype(PyObject* obj) {
  const Api& a = api();
  PyArray_Descr* d;
  if (PyArray_Check(obj)) {
    d = PyArray_DESCR(reinterpret_cast<PyArrayObject*>(obj));
    Py_INCREF(d);
  } else if (PyArray_IsScalar(obj, Generic)) {
    d = PyArray_DescrFromScalar(obj);
    if (!d) throw py::error_already_set();
  } else {
    return false;
  }
  const int num = d->type_num;
  const bool held = num >= 0 && num < NPY_NTYPES_LEGACY && a.dtype_of[size_t(num)] >= 0 &&
                    PyDataType_ISNOTSWAPPED(d) && !PyDataType_HASFIELDS(d);
  Py_DECREF(d);
  return !held;
}

} // namespace hassium::python
