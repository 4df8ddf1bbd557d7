// Products recorded from C++: NumPy's promotion and messages, one MATMUL per call.
#include "bridge/python/linalg.h"

#include <cmath>

#include "bridge/python/bindings.h"

#include "bridge/python/convert.h"
#include "bridge/python/errors.h"
#include "bridge/python/numpy_api.h"
#include "bridge/python/ufunc.h"
#include "ve/cpu/blas.h"

namespace hassium::python {

namespace {

constexpr const char* kNames[] = {"matmul", "dot", "inner", "vdot"};

[[noreturn]] void raise_mismatch(Product kind, const Array& a, const Array& b) {
  const std::string ka = std::to_string(a.shape().back()), kb = std::to_string(b.shape()[0]);
  if (kind == Product::matmul)
    raise_value_error("matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                      "signature (n?,k),(k,m?)->(n?,m?) (size " +
                      kb + " is different from " + ka + ")");
  raise_value_error("shapes " + shape_text(a.shape()) + " and " + shape_text(b.shape()) +
                    " not aligned: " + ka + " (dim " + std::to_string(a.ndim() - 1) + ") != " + kb +
                    " (dim 0)");
}

// The operand as MATMUL reads it: a 1-D view as the row (1,k) (a) or the column (k,1) (b), the
// new axis of stride 0 as reshape makes it; 2-D views as they are.
View as_matrix(const View& v, bool row) {
  if (v.ndim() == 2) return v;
  View m;
  m.base = v.base;
  m.offset = v.offset;
  if (row) {
    m.shape = {1, v.shape[0]};
    m.stride = {0, v.stride[0]};
  } else {
    m.shape = {v.shape[0], 1};
    m.stride = {v.stride[0], 0};
  }
  return m;
}

// hassium._functions._<name>, the general path (looked up once).
py::handle general(Product kind) {
  static PyObject* fns[4] = {};
  PyObject*& f = fns[size_t(kind)];
  if (!f) {
    py::object fn = py::module_::import("hassium._functions")
                        .attr(("_" + std::string(kNames[size_t(kind)])).c_str());
    f = fn.release().ptr();
  }
  return f;
}

// _hassium.matmul(a, b, /, out=None, **kwargs) and friends, as METH_FASTCALL builtins (no
// pybind11 dispatch); self is the Product as a Python int.
PyObject* product_builtin(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                          PyObject* kwnames) {
  return call_in_slot<PyObject*>(nullptr, [&]() -> PyObject* {
    const auto kind = Product(PyLong_AsLong(self));
    bool plain = nargs == 2;
    if (plain && kwnames) { // matmul's and dot's out=None is plain too
      plain = kind == Product::matmul || kind == Product::dot;
      for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); ++k)
        plain &= PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), "out") == 0 &&
                 args[nargs + k] == Py_None;
    }
    if (plain)
      if (auto r = product(kind, args[0], args[1])) return r->release().ptr();
    PyObject* r = PyObject_Vectorcall(general(kind).ptr(), args, size_t(nargs), kwnames);
    if (!r) throw py::error_already_set();
    return r;
  });
}

PyMethodDef g_defs[4] = {
    {"matmul", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(product_builtin)),
     METH_FASTCALL | METH_KEYWORDS, "numpy.matmul(a, b, /, out=None, **kwargs)"},
    {"dot", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(product_builtin)),
     METH_FASTCALL | METH_KEYWORDS, "numpy.dot(a, b, out=None)"},
    {"inner", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(product_builtin)),
     METH_FASTCALL | METH_KEYWORDS, "numpy.inner(a, b, /)"},
    {"vdot", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(product_builtin)),
     METH_FASTCALL | METH_KEYWORDS, "numpy.vdot(a, b, /)"},
};

} // namespace

namespace {
// `x @ y` and `np.dot(x, y)` of two ready float64 vectors of two or more elements as NumPy
// computes them, without NumPy's dispatch and two borrowed arrays: an element loop's
// `A[i, j] -= A[i, :j] @ A[:j, j]` (lu, cholesky) and durbin's `np.dot(np.flip(r[:k]), y[:k])`
// spend most of their time there. Both reach DOUBLE_dot: with both strides positive, 0.0 +
// cblas_ddot of NumPy's own OpenBLAS, strides as they are; else its plain loop, in order, a
// product then a sum per element (ISO C++: no contraction into FMA). matmul passes the strides
// as they are; np.dot (cblas_matrixproduct) first copies an operand with a negative or zero
// stride into a contiguous array, so BLAS takes both. Nullopt when NumPy's OpenBLAS is not in
// the process, and for a result that is not finite (NumPy's call then gives its overflow or
// invalid warning).
std::optional<py::object> ready_ddot(const View& x, const View& y, bool copy_bad_strides) {
  if (x.dtype() != DType::FLOAT64 || y.dtype() != DType::FLOAT64) return std::nullopt;
  const int64_t n = x.shape[0];
  if (n < 2) return std::nullopt;
  const double* px = static_cast<const double*>(x.base->data) + x.offset;
  const double* py = static_cast<const double*>(y.base->data) + y.offset;
  int64_t sx = x.stride[0], sy = y.stride[0];
  thread_local std::vector<double> copy_x, copy_y;
  auto contiguous = [n](const double*& p, int64_t& stride, std::vector<double>& copy) {
    if (stride > 0) return;
    copy.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) copy[size_t(i)] = p[i * stride];
    p = copy.data();
    stride = 1;
  };
  if (copy_bad_strides) {
    contiguous(px, sx, copy_x);
    contiguous(py, sy, copy_y);
  }
  double sum = 0.0;
  if (sx > 0 && sy > 0) {
    static const cpu::Blas::Ddot ddot = cpu::blas(cpu::BlasChoice::AUTO).ddot;
    if (!ddot) return std::nullopt;
    sum += ddot(n, px, sx, py, sy);
  } else {
    for (int64_t i = 0; i < n; ++i) sum += px[i * sx] * py[i * sy];
  }
  if (!std::isfinite(sum)) return std::nullopt;
  return numpy_scalar(&sum, DType::FLOAT64);
}
} // namespace

std::optional<py::object> product(Product kind, py::handle ha, py::handle hb) {
  if (!is_ndarray(ha) || !is_ndarray(hb)) return std::nullopt;
  const Array& a = array_of(ha);
  const Array& b = array_of(hb);
  const int na = a.ndim(), nb = b.ndim();
  if (na == 0 || nb == 0) {
    if (kind != Product::matmul) return std::nullopt;
    raise_value_error(std::string("matmul: Input operand ") + (na == 0 ? "0" : "1") +
                      " does not have enough dimensions (has 0, gufunc core with signature "
                      "(n?,k),(k,m?)->(n?,m?) requires 1)");
  }
  if (na > 2 || nb > 2) return std::nullopt;
  if ((kind == Product::inner || kind == Product::vdot) && (na != 1 || nb != 1))
    return std::nullopt;
  const int64_t k = a.shape()[size_t(na - 1)];
  if (b.shape()[0] != k) {
    if (kind == Product::vdot) return std::nullopt; // NumPy's own message, from the Python path
    raise_mismatch(kind, a, b);
  }
  // The scalar product of two small 1-D arrays: NumPy's, at once, when their values are ready
  // or, with [python] scalar_reads = flush, after the flush that computes them (a loop whose
  // next step needs the scalar then runs its scalar math in NumPy, as an element read does).
  const int64_t eager_max = eager_max_elements(); // (0: record every product, empty ones too)
  const bool eager = na == 1 && nb == 1 && eager_max > 0 && k <= eager_max;
  bool ready = eager && values_ready(a.view) && values_ready(b.view);
  if (eager && !ready && flush_scalar_reads()) {
    sync_for_copy(a.view);
    sync_for_copy(b.view);
    ready = true;
  }
  if (ready && (kind == Product::matmul || kind == Product::dot))
    if (auto r = ready_ddot(a.view, b.view, kind == Product::dot)) return r;
  if (ready) {
    static PyObject* fns[4] = {};
    PyObject*& f = fns[size_t(kind)];
    if (!f) f = py::object(py::module_::import("numpy").attr(kNames[size_t(kind)])).release().ptr();
    py::object va = borrowed_numpy_view(a.view), vb = borrowed_numpy_view(b.view);
    PyObject* args[2] = {va.ptr(), vb.ptr()};
    PyObject* r = PyObject_Vectorcall(f, args, 2, nullptr);
    if (!r) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(r);
  }
  // numpy.result_type of two dtypes is add's loop for them.
  static const UfuncDef& add = ufunc("add");
  const TypeCode codes[2] = {code_of(a.dtype()), code_of(b.dtype())};
  auto loop = resolve_loop(add.id, add.name, 2, 1, codes, std::nullopt);
  if (!loop) return std::nullopt;
  const DType t = loop->out[0];
  if (t == DType::BOOL) return std::nullopt; // NumPy's logical matmul: no MATMUL for bool
  if (kind == Product::vdot && is_complex(t)) return std::nullopt; // conjugates a
  // Casts, kept until MATMUL is recorded (their FREEs come after it).
  std::optional<Array> ca, cb;
  if (a.dtype() != t) ca = copy_as(a.view, t);
  if (b.dtype() != t) cb = copy_as(b.view, t);
  const int64_t n = na == 2 ? a.shape()[0] : 1, m = nb == 2 ? b.shape()[1] : 1;
  Dims shape;
  if (na == 2) shape.push_back(n);
  if (nb == 2) shape.push_back(m);
  Array out = new_array(t, shape);
  if (n * m > 0) {
    if (k == 0) {
      record_fill(out.view, Scalar::of_int(0).cast(t));
    } else {
      record(Opcode::MATMUL, operands(View::contiguous(out.view.base, Dims{n, m}),
                                      as_matrix(ca ? ca->view : a.view, true),
                                      as_matrix(cb ? cb->view : b.view, false)));
    }
  }
  out.scalar = out.ndim() == 0;
  return wrap(std::move(out));
}

PyObject* matmul_slot(PyObject* a, PyObject* b) {
  return call_in_slot<PyObject*>(nullptr, [&]() -> PyObject* {
    if (auto r = product(Product::matmul, a, b)) return r->release().ptr();
    PyObject* r = PyObject_CallFunctionObjArgs(general(Product::matmul).ptr(), a, b, nullptr);
    if (!r) throw py::error_already_set();
    return r;
  });
}

void bind_products(py::module_& m) {
  for (int k = 0; k < 4; ++k) {
    py::object self = py::int_(k);
    py::object fn = py::reinterpret_steal<py::object>(
        PyCFunction_NewEx(&g_defs[k], self.ptr(), m.attr("__name__").ptr()));
    if (!fn) throw py::error_already_set();
    m.attr(g_defs[k].ml_name) = fn;
  }
  m.def(
      "product",
      [](py::handle a, py::handle b, const std::string& kind) -> py::object {
        for (int k = 0; k < 4; ++k)
          if (kind == kNames[k]) {
            auto r = product(Product(k), a, b);
            return r ? std::move(*r) : py::none();
          }
        raise_value_error("product: unknown kind " + kind);
      },
      "The product recorded directly (see linalg.h), or None where the general path must run.");
}

} // namespace hassium::python
