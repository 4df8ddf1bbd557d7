// Converting Python objects: operand classification, constants, NumPy arrays both ways.
#include "bridge/python/convert.h"
#include "bridge/python/indexing.h"
#include "bridge/python/numpy_api.h"

#include <climits>
#include <cstring>
#include <memory>

#include "bridge/common/promotion.h"
#include "bridge/python/errors.h"

namespace hassium::python {

namespace {
PyObject* numpy_attr(const char* name) {
  py::object o = py::module_::import("numpy").attr(name);
  return o.release().ptr(); // kept for the process
}

PyObject* numpy_generic() {
  static PyObject* t = numpy_attr("generic");
  return t;
}

// A Python int as a weak-int constant; false when it fits neither int64 nor uint64.
bool weak_int(py::handle obj, Scalar& value) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
  if (overflow == 0) {
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    value = Scalar::of_int(v);
    return true;
  }
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(obj.ptr());
    if (!PyErr_Occurred()) {
      value = Scalar::of_uint(u);
      return true;
    }
    PyErr_Clear();
  }
  return false;
}

// The value of a 0-d NumPy array of dtype t as a Scalar.
Scalar zero_d_value(py::handle obj, DType t) {
  py::object v = obj.attr("item")();
  Scalar s;
  switch (t) {
  case DType::BOOL:
    s = Scalar::of_bool(v.cast<bool>());
    break;
  case DType::UINT64:
    s = Scalar::of_uint(v.cast<uint64_t>(), t);
    break;
  case DType::COMPLEX64:
  case DType::COMPLEX128:
    s = Scalar::of_complex(v.cast<std::complex<double>>(), t);
    break;
  case DType::FLOAT32:
  case DType::FLOAT64:
    s = Scalar::of_float(v.cast<double>(), t);
    break;
  default:
    s = Scalar::of_int(v.cast<int64_t>(), t);
    break;
  }
  return s;
}
} // namespace

ArgStatus classify(py::handle obj, Arg& out) {
  PyObject* p = obj.ptr();
  // (NumPy scalars before is_ndarray(), which would walk their long type hierarchy.)
  if (Py_TYPE(p) != ndarray_type() && exact_numpy_scalar_value(p, out.value)) {
    out.is_array = false;
    out.zero_dim = true;
    out.code = code_of(out.value.dtype);
    return ArgStatus::ok;
  }
  if (is_ndarray(obj)) {
    out.is_array = true;
    out.refer(array_of(obj));
    out.code = code_of(out.array().dtype());
    out.zero_dim = out.array().ndim() == 0;
    return ArgStatus::ok;
  }
  out.is_array = false;
  out.zero_dim = true;
  if (PyFloat_CheckExact(p)) {
    out.code = kWeakFloat;
    out.value = Scalar::of_float(PyFloat_AS_DOUBLE(p));
    return ArgStatus::ok;
  }
  if (PyBool_Check(p)) {
    out.code = code_of(DType::BOOL);
    out.value = Scalar::of_bool(p == Py_True);
    return ArgStatus::ok;
  }
  if (PyLong_CheckExact(p)) {
    out.code = kWeakInt;
    return weak_int(obj, out.value) ? ArgStatus::ok : ArgStatus::fallback;
  }
  if (PyComplex_CheckExact(p)) {
    out.code = kWeakComplex;
    out.value = Scalar::of_complex({PyComplex_RealAsDouble(p), PyComplex_ImagAsDouble(p)});
    return ArgStatus::ok;
  }
  if (numpy_scalar_value(p, out.value)) {
    out.code = code_of(out.value.dtype);
    return ArgStatus::ok;
  }
  if (PyObject_IsInstance(p, numpy_generic()) == 1) return ArgStatus::fallback; // float16, ...
  if (PyFloat_Check(p)) { // float subclasses that are not NumPy's
    out.code = kWeakFloat;
    out.value = Scalar::of_float(PyFloat_AsDouble(p));
    return ArgStatus::ok;
  }
  if (PyLong_Check(p)) {
    out.code = kWeakInt;
    return weak_int(obj, out.value) ? ArgStatus::ok : ArgStatus::fallback;
  }
  if (is_masked_selection(obj)) { // (hassium's x[mask]): its compressed array, held
    const ArgStatus status = classify(materialize(obj), out);
    if (out.is_array) out.hold(out.array());
    return status;
  }
  py::array arr;
  if (py::isinstance<py::array>(obj)) {
    arr = py::reinterpret_borrow<py::array>(obj);
  } else if (PyList_Check(p) || PyTuple_Check(p)) {
    try {
      arr = py::reinterpret_steal<py::array>(
          PyObject_CallOneArg(py::module_::import("numpy").attr("asarray").ptr(), p));
      if (!arr) throw py::error_already_set();
    } catch (py::error_already_set&) {
      return ArgStatus::fallback;
    }
  } else {
    // NumPy defers to objects that opt out of ufuncs; anything else it tries to convert
    // (strings, Fractions, ...): let NumPy decide, and raise its own error.
    py::object au = py::getattr(py::type::handle_of(obj), "__array_ufunc__",
                                py::reinterpret_borrow<py::object>(Py_False));
    return au.is_none() ? ArgStatus::not_implemented : ArgStatus::fallback;
  }
  auto t = dtype_of_numpy(arr.dtype());
  if (!t) return ArgStatus::fallback;
  if (arr.ndim() == 0) {
    out.code = code_of(*t);
    out.value = zero_d_value(arr, *t);
    return ArgStatus::ok;
  }
  auto a = from_numpy(arr, false);
  if (!a) return ArgStatus::fallback;
  out.is_array = true;
  out.zero_dim = false;
  out.hold(std::move(*a));
  out.code = code_of(*t);
  return ArgStatus::ok;
}

std::optional<Scalar> constant_for_loop(const Arg& a, DType t) {
  // a.value of a Python int: INT64, or UINT64 above INT64_MAX.
  if (a.code == kWeakInt && is_integer(t) && !frontend::int_constant_fits(a.value, t))
    return std::nullopt;
  return a.value.cast(t);
}

void raise_int_out_of_bounds(const Arg& a, DType t) {
  std::string v =
      a.value.dtype == DType::UINT64 ? std::to_string(a.value.u) : std::to_string(a.value.i);
  raise(PyExc_OverflowError,
        "Python integer " + v + " out of bounds for " + std::string(dtype_name(t)));
}

std::optional<Array> from_numpy(const py::array& arr, bool force_copy) {
  auto t = dtype_of_numpy(arr.dtype());
  if (!t) return std::nullopt;
  const int64_t item = dtype_size(*t);
  const int nd = int(arr.ndim());
  Dims shape(static_cast<size_t>(nd)), stride(static_cast<size_t>(nd));
  int64_t size = 1;
  for (int k = 0; k < nd; ++k) {
    shape[size_t(k)] = arr.shape(k);
    size *= shape[size_t(k)];
  }
  bool wrappable = !force_copy && arr.writeable() && size > 0 &&
                   (reinterpret_cast<uintptr_t>(arr.data()) % uintptr_t(item)) == 0;
  int64_t lo = 0, hi = 0; // byte offsets of the first and last element from data()
  for (int k = 0; k < nd && wrappable; ++k) {
    int64_t s = arr.strides(k);
    if (s % item != 0) wrappable = false;
    stride[size_t(k)] = s / item;
    if (shape[size_t(k)] > 1) (s < 0 ? lo : hi) += s * (shape[size_t(k)] - 1);
  }
  if (wrappable) {
    int64_t nelem = (hi - lo) / item + 1;
    Array a;
    a.owner = new_base(*t, nelem);
    Base& b = *a.owner->base;
    b.data = const_cast<char*>(static_cast<const char*>(arr.data())) + lo;
    b.host_exported = true; // the NumPy array may be written at any time
    PyObject* keep = arr.ptr();
    Py_INCREF(keep);
    b.external_owner = std::shared_ptr<void>(keep, [](void* o) {
      if (!Py_IsInitialized() || _Py_IsFinalizing()) return; // the process is ending
      PyGILState_STATE g = PyGILState_Ensure();
      Py_DECREF(static_cast<PyObject*>(o));
      PyGILState_Release(g);
    });
    a.view.base = a.owner->base;
    a.view.offset = -lo / item;
    a.view.shape = shape;
    a.view.stride = stride;
    return a;
  }
  // A copy into memory of our own, in C order.
  Array a = new_array(*t, shape);
  allocate_external(*a.owner->base);
  if (size > 0) {
    std::vector<ssize_t> sh(shape.begin(), shape.end());
    py::array dst(arr.dtype(), sh, {}, a.owner->base->data, py::none());
    py::module_::import("numpy").attr("copyto")(dst, arr, py::arg("casting") = "unsafe");
  }
  return a;
}

py::array to_numpy(const Array& a) {
  Base& b = *a.view.base;
  sync_for_read(a.view.base);
  const int64_t item = dtype_size(b.dtype);
  std::vector<ssize_t> shape(a.view.shape.begin(), a.view.shape.end());
  std::vector<ssize_t> strides(a.view.stride.size());
  for (size_t k = 0; k < strides.size(); ++k) strides[k] = ssize_t(a.view.stride[k] * item);
  auto* keep = new OwnerPtr(a.owner);
  py::capsule cap(keep, [](void* p) { delete static_cast<OwnerPtr*>(p); });
  char* ptr = static_cast<char*>(b.data) + a.view.offset * item;
  b.host_exported = true; // NumPy may write through it at any time
  return py::array(py::reinterpret_borrow<py::dtype>(numpy_dtype(b.dtype)), shape, strides, ptr,
                   cap);
}

py::object item(const Array& a, int64_t flat_index) {
  Base& b = *a.view.base;
  sync_for_copy(a.view.base);
  int64_t idx = a.view.index_of_flat(flat_index);
  const char* p = static_cast<const char*>(b.data) + idx * dtype_size(b.dtype);
  switch (b.dtype) {
#define HS_X(ENUM, name, ctype, size)                                                              \
  case DType::ENUM: {                                                                              \
    ctype v;                                                                                       \
    std::memcpy(&v, p, sizeof v);                                                                  \
    return py::cast(v);                                                                            \
  }
    HS_DTYPES(HS_X)
#undef HS_X
  }
  return py::none();
}

int64_t index_value(py::handle obj) {
  if (PyLong_Check(obj.ptr())) {
    long long v = PyLong_AsLongLong(obj.ptr());
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    return v;
  }
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
  if (!i) throw py::error_already_set();
  long long v = PyLong_AsLongLong(i.ptr());
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

std::optional<Scalar> python_scalar(py::handle obj) {
  Arg a;
  if (is_ndarray(obj)) return std::nullopt;
  if (classify(obj, a) != ArgStatus::ok || a.is_array) return std::nullopt;
  return a.value;
}

} // namespace hassium::python
