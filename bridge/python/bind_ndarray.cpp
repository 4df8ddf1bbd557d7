// hassium.ndarray: the class, its attributes, operators, view methods and data access (C++ hot
// paths; the rest of NumPy's methods are added in Python by hassium/_methods.py).
#include <pybind11/complex.h>
#include <pybind11/stl.h>

#include "bridge/python/bindings.h"
#include "bridge/python/convert.h"
#include "bridge/python/errors.h"
#include "bridge/python/indexing.h"
#include "bridge/python/linalg.h"
#include "bridge/python/ufunc.h"
#include "core/error.h"

namespace hassium::python {

namespace {

py::tuple dims_tuple(const Dims& d) {
  py::tuple t(d.size());
  for (size_t k = 0; k < d.size(); ++k) t[k] = py::int_(d[k]);
  return t;
}

// Shape arguments: reshape(2, 3), reshape((2, 3)), reshape(6).
std::vector<int64_t> shape_args(py::args args) {
  std::vector<int64_t> s;
  if (args.size() == 1 && !PyLong_Check(args[0].ptr()) && py::isinstance<py::sequence>(args[0])) {
    for (auto h : args[0]) s.push_back(index_value(h));
  } else if (args.size() == 1 && !args[0].is_none() && !PyIndex_Check(args[0].ptr())) {
    raise_type_error("expected a sequence of integers or a single integer, got '" +
                     py::repr(args[0]).cast<std::string>().substr(0, 100) + "'");
  } else {
    for (auto h : args) s.push_back(index_value(h));
  }
  return s;
}

Array reshape(const Array& a, std::span<const int64_t> shape) {
  Dims target = reshape_target(a.size(), shape);
  Dims stride;
  if (reshape_strides(a.view, target, stride)) {
    View v = a.view;
    v.shape = target;
    v.stride = stride;
    return view_of(a, v);
  }
  Array c = copy_as(a.view, a.dtype());
  c.view = View::contiguous(c.view.base, target);
  return c;
}

Array transpose(const Array& a, py::args args) {
  int nd = a.ndim();
  std::vector<int> axes;
  if (args.size() == 0 || (args.size() == 1 && args[0].is_none())) {
    for (int k = nd; k-- > 0;) axes.push_back(k);
  } else {
    py::sequence seq = args.size() == 1 && py::isinstance<py::sequence>(args[0])
                           ? py::reinterpret_borrow<py::sequence>(args[0])
                           : py::reinterpret_borrow<py::sequence>(args);
    for (auto h : seq) axes.push_back(normalize_axis(index_value(h), nd));
    if (int(axes.size()) != nd) raise_value_error("axes don't match array");
    std::vector<bool> seen(size_t(nd), false);
    for (int x : axes) {
      if (seen[size_t(x)]) raise_value_error("repeated axis in transpose");
      seen[size_t(x)] = true;
    }
  }
  return view_of(a, permute(a.view, axes));
}

void require_scalar_convertible(const Array& a) {
  if (a.ndim() != 0)
    raise_type_error("only 0-dimensional arrays can be converted to Python scalars");
}

// The array of a method bound with `py::handle self` (the methods that hand the array itself
// back): a TypeError for anything else, as pybind11 gives for the other methods.
const Array& self_array(py::handle self, const char* method) {
  if (!is_ndarray(self))
    raise_type_error(std::string(method) + "(): self must be a hassium.ndarray, not " +
                     Py_TYPE(self.ptr())->tp_name);
  return array_of(self);
}

bool truth(const Array& a) {
  if (a.size() == 0)
    raise_value_error("The truth value of an empty array is ambiguous. Use `array.size > 0` to "
                      "check that an array is not empty.");
  if (a.size() > 1)
    raise_value_error("The truth value of an array with more than one element is ambiguous. Use "
                      "a.any() or a.all()");
  return item(a, 0).cast<bool>();
}

// The operators are the type's slots, one binding each: the interpreter calls them directly, and
// Python makes __add__/__radd__/__iadd__/__lt__/... of them. A binary slot gets x op y,
// whichever operand is the hassium array; NotImplemented lets Python try the other operand.
template <const char* Name> const UfuncDef& named_ufunc() {
  static const UfuncDef& u = ufunc(Name);
  return u;
}

template <const char* Name> PyObject* binary_slot(PyObject* x, PyObject* y) {
  return call_in_slot<PyObject*>(
      nullptr, [&] { return binary_operator(named_ufunc<Name>(), x, y).release().ptr(); });
}
// x op= y: x is the hassium array (Python calls the left operand's in-place slot only).
template <const char* Name> PyObject* inplace_slot(PyObject* x, PyObject* y) {
  return call_in_slot<PyObject*>(
      nullptr, [&] { return inplace_operator(named_ufunc<Name>(), x, y).release().ptr(); });
}
template <const char* Name> PyObject* unary_slot(PyObject* x) {
  return call_in_slot<PyObject*>(
      nullptr, [&] { return unary_operator(named_ufunc<Name>(), x).release().ptr(); });
}

// x ** y (pow(x, y, z) with a modulus: NotImplemented, as NumPy's arrays give).
PyObject* power_slot(PyObject* x, PyObject* y, PyObject* z) {
  if (z != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return call_in_slot<PyObject*>(nullptr, [&] {
    static const UfuncDef& power = ufunc("power");
    return (is_ndarray(x) ? power_operator(x, y) : binary_operator(power, x, y)).release().ptr();
  });
}
PyObject* inplace_power_slot(PyObject* x, PyObject* y, PyObject* z) {
  if (z != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return call_in_slot<PyObject*>(nullptr,
                                 [&] { return inplace_power_operator(x, y).release().ptr(); });
}
PyObject* divmod_slot(PyObject* x, PyObject* y) {
  return call_in_slot<PyObject*>(nullptr, [&] {
    return ufunc_call(ufunc("divmod"), py::make_tuple(py::handle(x), py::handle(y)), py::kwargs())
        .release()
        .ptr();
  });
}
PyObject* richcompare_slot(PyObject* self, PyObject* other, int op) {
  return call_in_slot<PyObject*>(nullptr, [&] {
    static const UfuncDef* by_op[] = {&ufunc("less"),    &ufunc("less_equal"),
                                      &ufunc("equal"),   &ufunc("not_equal"),
                                      &ufunc("greater"), &ufunc("greater_equal")};
    return binary_operator(*by_op[op], self, other).release().ptr();
  });
}

// a[key] and a[key] = v; del a[key] is NumPy's error.
PyObject* getitem_slot(PyObject* self, PyObject* key) {
  return call_in_slot<PyObject*>(nullptr,
                                 [&] { return getitem(array_of(self), key).release().ptr(); });
}
int setitem_slot(PyObject* self, PyObject* key, PyObject* value) {
  return call_in_slot(-1, [&] {
    if (!value) raise_value_error("cannot delete array elements");
    setitem(array_of(self), key, value);
    return 0;
  });
}

// hassium.ndarray(shape, dtype=float, buffer=None, offset=0, strides=None, order=None), as
// numpy.ndarray(...): hassium/_creation.py ndarray_new makes the array; an instance of the
// (sub)type called holds its view.
PyObject* new_slot(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  return call_in_slot<PyObject*>(nullptr, [&] {
    static PyObject* make = [] {
      py::object f = py::module_::import("hassium._creation").attr("ndarray_new");
      return f.release().ptr(); // kept for the process
    }();
    PyObject* r = PyObject_Call(make, args, kwargs);
    if (!r) throw py::error_already_set();
    py::object made = py::reinterpret_steal<py::object>(r);
    if (!is_ndarray(made))
      raise_type_error("hassium does not support dtype " +
                       py::str(made.attr("dtype")).cast<std::string>());
    Array a = array_of(made);
    a.scalar = false;
    return NdarrayType::make(std::move(a), type).release().ptr();
  });
}

// The buffer protocol (memoryview(a), libraries reading memory): flushes, then exports the
// base's memory; the export holds the array (and so its base) until it is released.
struct BufferExport {
  Array array;
  std::vector<Py_ssize_t> shape, strides;
};

int getbuffer_slot(PyObject* self, Py_buffer* view, int flags) {
  return call_in_slot(-1, [&] {
    // NumPy's own character of each dtype ("l" for int64 on LP64, not "q", which NumPy reads
    // as longlong: another type object for the same numbers).
    static const std::array<std::string, kNumDTypes> formats = [] {
      std::array<std::string, kNumDTypes> f;
      for (int t = 0; t < kNumDTypes; ++t)
        f[size_t(t)] = is_complex(DType(t))
                           ? (DType(t) == DType::COMPLEX64 ? "Zf" : "Zd")
                           : numpy_dtype(DType(t)).attr("char").cast<std::string>();
      return f;
    }();
    const Array& a = array_of(self);
    Base& b = *a.view.base;
    sync_for_read(a.view.base);
    b.host_exported = true; // a writable buffer: its holder may write at any time
    const int64_t item = dtype_size(b.dtype);
    auto ex = std::make_unique<BufferExport>();
    ex->array = a;
    for (int k = 0; k < a.ndim(); ++k) {
      ex->shape.push_back(Py_ssize_t(a.view.shape[size_t(k)]));
      ex->strides.push_back(Py_ssize_t(a.view.stride[size_t(k)] * item));
    }
    view->buf = static_cast<char*>(b.data) + a.view.offset * item;
    view->obj = Py_NewRef(self);
    view->len = Py_ssize_t(a.size() * item);
    view->itemsize = Py_ssize_t(item);
    view->readonly = 0;
    view->format =
        (flags & PyBUF_FORMAT) ? const_cast<char*>(formats[size_t(b.dtype)].c_str()) : nullptr;
    view->ndim = a.ndim();
    view->shape = (flags & PyBUF_ND) == PyBUF_ND ? ex->shape.data() : nullptr;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? ex->strides.data() : nullptr;
    view->suboffsets = nullptr;
    view->internal = ex.release();
    // A consumer that asked for no strides gets C-contiguous memory or an error.
    if (!view->strides) {
      view->strides = static_cast<BufferExport*>(view->internal)->strides.data();
      const bool contiguous = PyBuffer_IsContiguous(view, 'C');
      view->strides = nullptr;
      if (!contiguous) {
        delete static_cast<BufferExport*>(view->internal);
        view->internal = nullptr;
        Py_CLEAR(view->obj);
        raise(PyExc_BufferError, "hassium.ndarray is not C-contiguous");
      }
    }
    return 0;
  });
}

void releasebuffer_slot(PyObject*, Py_buffer* view) {
  delete static_cast<BufferExport*>(view->internal);
  view->internal = nullptr;
}

int bool_slot(PyObject* self) {
  return call_in_slot(-1, [&] { return truth(array_of(self)) ? 1 : 0; });
}

constexpr char kAdd[] = "add", kSubtract[] = "subtract", kMultiply[] = "multiply",
               kDivide[] = "divide", kFloorDivide[] = "floor_divide", kRemainder[] = "remainder",
               kLeftShift[] = "left_shift", kRightShift[] = "right_shift",
               kBitwiseAnd[] = "bitwise_and", kBitwiseOr[] = "bitwise_or",
               kBitwiseXor[] = "bitwise_xor", kNegative[] = "negative", kPositive[] = "positive",
               kAbsolute[] = "absolute", kInvert[] = "invert";

template <typename F> PyType_Slot slot(int id, F* f) {
  return {id, reinterpret_cast<void*>(f)};
}

// An arithmetic or bitwise operator: its binary and in-place slots, both the ufunc `Name`.
template <const char* Name>
void add_operator(std::vector<PyType_Slot>& slots, int binary, int in_place) {
  slots.push_back(slot(binary, binary_slot<Name>));
  slots.push_back(slot(in_place, inplace_slot<Name>));
}

// The type with its slots (the methods are bound in bind_ndarray()).
PyTypeObject* make_ndarray_type() {
  std::vector<PyType_Slot> slots = {
      slot(Py_tp_new, new_slot),
      slot(Py_tp_hash, PyObject_HashNotImplemented),
      slot(Py_tp_richcompare, richcompare_slot),
      slot(Py_mp_subscript, getitem_slot),
      slot(Py_mp_ass_subscript, setitem_slot),
      slot(Py_bf_getbuffer, getbuffer_slot),
      slot(Py_bf_releasebuffer, releasebuffer_slot),
      slot(Py_nb_bool, bool_slot),
      slot(Py_nb_power, power_slot),
      slot(Py_nb_inplace_power, inplace_power_slot),
      slot(Py_nb_divmod, divmod_slot),
      slot(Py_nb_matrix_multiply, matmul_slot),
      slot(Py_nb_negative, unary_slot<kNegative>),
      slot(Py_nb_positive, unary_slot<kPositive>),
      slot(Py_nb_absolute, unary_slot<kAbsolute>),
      slot(Py_nb_invert, unary_slot<kInvert>),
  };
  add_operator<kAdd>(slots, Py_nb_add, Py_nb_inplace_add);
  add_operator<kSubtract>(slots, Py_nb_subtract, Py_nb_inplace_subtract);
  add_operator<kMultiply>(slots, Py_nb_multiply, Py_nb_inplace_multiply);
  add_operator<kDivide>(slots, Py_nb_true_divide, Py_nb_inplace_true_divide);
  add_operator<kFloorDivide>(slots, Py_nb_floor_divide, Py_nb_inplace_floor_divide);
  add_operator<kRemainder>(slots, Py_nb_remainder, Py_nb_inplace_remainder);
  add_operator<kLeftShift>(slots, Py_nb_lshift, Py_nb_inplace_lshift);
  add_operator<kRightShift>(slots, Py_nb_rshift, Py_nb_inplace_rshift);
  add_operator<kBitwiseAnd>(slots, Py_nb_and, Py_nb_inplace_and);
  add_operator<kBitwiseOr>(slots, Py_nb_or, Py_nb_inplace_or);
  add_operator<kBitwiseXor>(slots, Py_nb_xor, Py_nb_inplace_xor);
  return NdarrayType::create("hassium._hassium.ndarray",
                             "A lazy NumPy-compatible array: a view of a hassium base.",
                             std::move(slots), /*instance_dict=*/false);
}

} // namespace

void bind_ndarray(py::module_& m) {
  TypeBinder cls(make_ndarray_type());
  m.attr("ndarray") = cls.type();

  // a.shape = s reshapes in place when no copy is needed (NumPy's rule, as reshape); other
  // arrays of the same base keep their views.
  py::cpp_function get_shape([](const Array& a) { return dims_tuple(a.shape()); },
                             py::is_method(cls.type()));
  py::cpp_function set_shape(
      [](py::handle self, py::handle value) {
        Array& a = array_of(self);
        if (a.scalar)
          raise(PyExc_AttributeError,
                "attribute 'shape' of 'numpy.generic' objects is not writable");
        if (value.is_none()) raise_type_error("Use () not None as shape arguments");
        Dims target = reshape_target(a.size(), shape_args(py::make_tuple(value)));
        Dims stride;
        if (!reshape_strides(a.view, target, stride))
          raise(PyExc_AttributeError, "Incompatible shape for in-place modification. Use "
                                      "`.reshape()` to make a copy with the desired shape.");
        a.view.shape = std::move(target);
        a.view.stride = std::move(stride);
      },
      py::is_method(cls.type()));
  py::cpp_function del_shape(
      [](py::handle) { raise(PyExc_AttributeError, "Cannot delete array shape"); },
      py::is_method(cls.type()));
  cls.def_property("shape", get_shape, set_shape, del_shape,
                   "Tuple of array dimensions (settable in place when no copy is needed).");
  cls.def_property_readonly("ndim", &Array::ndim);
  cls.def_property_readonly("size", &Array::size);
  cls.def_property_readonly("dtype", [](const Array& a) {
    return py::reinterpret_borrow<py::object>(numpy_dtype(a.dtype()));
  });
  cls.def_property_readonly("itemsize", [](const Array& a) { return dtype_size(a.dtype()); });
  cls.def_property_readonly("nbytes",
                            [](const Array& a) { return a.size() * dtype_size(a.dtype()); });
  cls.def_property_readonly("strides", [](const Array& a) {
    Dims s = a.view.stride;
    for (auto& x : s) x *= dtype_size(a.dtype());
    return dims_tuple(s);
  });
  cls.def_property_readonly("T", [](const Array& a) { return transpose(a, py::args()); });
  cls.def_property_readonly("mT", [](const Array& a) {
    if (a.ndim() < 2) raise_value_error("matrix transpose with ndim < 2 is undefined");
    std::vector<int> axes;
    for (int k = 0; k < a.ndim(); ++k) axes.push_back(k);
    std::swap(axes[size_t(a.ndim() - 1)], axes[size_t(a.ndim() - 2)]);
    return view_of(a, permute(a.view, axes));
  });
  cls.def_property_readonly("_is_scalar", [](const Array& a) { return a.scalar; });
  cls.def_property_readonly("_base_name", [](const Array& a) { return a.view.base->name; });
  cls.def_property_readonly("_view", [](const Array& a) {
    return py::make_tuple(a.view.base->name, a.view.offset, dims_tuple(a.view.shape),
                          dims_tuple(a.view.stride));
  });

  cls.def("__len__", [](const Array& a) {
    if (a.ndim() == 0) raise_type_error("len() of unsized object");
    return a.shape()[0];
  });
  cls.def("__float__", [](const Array& a) {
    require_scalar_convertible(a);
    return py::float_(item(a, 0));
  });
  cls.def("__int__", [](const Array& a) {
    require_scalar_convertible(a);
    return py::int_(item(a, 0));
  });
  cls.def("__complex__", [](const Array& a) {
    require_scalar_convertible(a);
    return item(a, 0).cast<std::complex<double>>();
  });
  cls.def("__index__", [](const Array& a) {
    if (a.ndim() != 0 || !(is_integer(a.dtype()) || is_bool(a.dtype())) || is_bool(a.dtype()))
      raise_type_error("only integer scalar arrays can be converted to a scalar index");
    return py::int_(item(a, 0));
  });
  cls.def("item", [](const Array& a, py::args args) {
    if (args.size() == 0) {
      if (a.size() != 1)
        raise_value_error("can only convert an array of size 1 to a Python scalar");
      return item(a, 0);
    }
    int64_t flat = 0;
    if (args.size() == 1 && PyLong_Check(args[0].ptr())) {
      flat = args[0].cast<int64_t>();
      if (flat < -a.size() || flat >= a.size())
        raise_index_error("index " + std::to_string(flat) + " is out of bounds for size " +
                          std::to_string(a.size()));
      if (flat < 0) flat += a.size();
    } else {
      py::sequence idx = args.size() == 1 ? py::reinterpret_borrow<py::sequence>(args[0])
                                          : py::reinterpret_borrow<py::sequence>(args);
      if (int(idx.size()) != a.ndim()) raise_value_error("incorrect number of indices for array");
      for (int k = 0; k < a.ndim(); ++k) {
        int64_t i = index_value(idx[size_t(k)]);
        int64_t n = a.shape()[size_t(k)];
        if (i < -n || i >= n)
          raise_index_error("index " + std::to_string(i) + " is out of bounds for axis " +
                            std::to_string(k) + " with size " + std::to_string(n));
        flat = flat * n + (i < 0 ? i + n : i);
      }
    }
    return item(a, flat);
  });
  cls.def(
      "__array__",
      [](const Array& a, py::object dtype, py::object copy) -> py::object {
        py::object arr = to_numpy(a);
        if (!dtype.is_none()) arr = arr.attr("astype")(dtype, py::arg("copy") = false);
        if (!copy.is_none() && copy.cast<bool>()) arr = arr.attr("copy")();
        return arr;
      },
      py::arg("dtype") = py::none(), py::kw_only(), py::arg("copy") = py::none());
  cls.def("_numpy", [](const Array& a) { return to_numpy(a); });
  cls.def("__repr__", [](const Array& a) -> py::object {
    py::array n = to_numpy(a);
    if (a.scalar) return py::repr(n.attr("__getitem__")(py::tuple()));
    return py::repr(n);
  });
  cls.def("__str__", [](const Array& a) -> py::object { return py::str(to_numpy(a)); });

  // Methods that hand the array itself back to Python take it as a handle: wrap() does not
  // enter arrays in pybind11's instance map, so py::cast(a) would make a new object.
  cls.def("reshape", [](py::handle self, py::args args, py::kwargs kw) {
    const Array& a = self_array(self, "reshape");
    if (kw.contains("order") && py::str(kw["order"]).cast<std::string>() != "C")
      return call_fallback("reshape", "method", py::make_tuple(self, args), kw);
    auto s = shape_args(args);
    if (kw.contains("shape")) s = shape_args(py::make_tuple(kw["shape"]));
    return wrap(reshape(a, s));
  });
  cls.def(
      "ravel",
      [](py::handle self, py::str order) {
        const Array& a = self_array(self, "ravel");
        if (order.cast<std::string>() != "C")
          return call_fallback("ravel", "method", py::make_tuple(self, order), py::dict());
        int64_t n[1] = {a.size()};
        // NumPy's ravel is a view only of a C-contiguous array; anything else is copied, even
        // when a strided 1-D view would do (a[:, 2].ravel() is a copy; reshape(-1) a view).
        if (a.size() > 1 && !a.view.is_contiguous()) {
          Array c = copy_as(a.view, a.dtype());
          c.view = View::contiguous(c.view.base, {a.size()});
          return wrap(std::move(c));
        }
        return wrap(reshape(a, n));
      },
      py::arg("order") = "C");
  cls.def("flatten", [](const Array& a) {
    Array c = copy_as(a.view, a.dtype());
    c.view = View::contiguous(c.view.base, {a.size()});
    return c;
  });
  cls.def("transpose", [](const Array& a, py::args args) { return transpose(a, args); });
  cls.def("swapaxes", [](const Array& a, int64_t x, int64_t y) {
    std::vector<int> axes;
    for (int k = 0; k < a.ndim(); ++k) axes.push_back(k);
    std::swap(axes[size_t(normalize_axis(x, a.ndim()))], axes[size_t(normalize_axis(y, a.ndim()))]);
    return view_of(a, permute(a.view, axes));
  });
  cls.def(
      "squeeze",
      [](const Array& a, py::object axis) {
        std::vector<bool> drop(size_t(a.ndim()), false);
        if (axis.is_none()) {
          for (int k = 0; k < a.ndim(); ++k) drop[size_t(k)] = a.shape()[size_t(k)] == 1;
        } else {
          std::vector<int64_t> axes;
          if (py::isinstance<py::tuple>(axis)) {
            for (auto h : axis) axes.push_back(h.cast<int64_t>());
          } else {
            axes.push_back(axis.cast<int64_t>());
          }
          for (auto x : axes) {
            int k = normalize_axis(x, a.ndim());
            if (a.shape()[size_t(k)] != 1)
              raise_value_error(
                  "cannot select an axis to squeeze out which has size not equal to one");
            drop[size_t(k)] = true;
          }
        }
        View v = a.view;
        v.shape.clear();
        v.stride.clear();
        for (int k = 0; k < a.ndim(); ++k)
          if (!drop[size_t(k)]) {
            v.shape.push_back(a.shape()[size_t(k)]);
            v.stride.push_back(a.view.stride[size_t(k)]);
          }
        return view_of(a, v);
      },
      py::arg("axis") = py::none());
  cls.def(
      "copy",
      [](const Array& a, py::str order) {
        (void)order;
        return copy_as(a.view, a.dtype());
      },
      py::arg("order") = "C");
  cls.def(
      "astype",
      [](py::handle self, py::object dtype, py::str order, py::str casting, bool subok,
         bool copy) -> py::object {
        const Array& a = self_array(self, "astype");
        (void)order;
        (void)subok;
        auto t = dtype_from_arg(dtype);
        if (!t) return call_fallback("astype", "method", py::make_tuple(self, dtype), py::dict());
        auto cs = parse_casting(casting.cast<std::string>());
        if (!cs)
          raise_value_error(
              "casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe'");
        if (*t != a.dtype() && !can_cast(a.dtype(), *t, *cs))
          raise_type_error("Cannot cast array data from " + dtype_repr(a.dtype()) + " to " +
                           dtype_repr(*t) + " according to the rule '" +
                           casting.cast<std::string>() + "'");
        if (!copy && *t == a.dtype()) return py::reinterpret_borrow<py::object>(self);
        return wrap(copy_as(a.view, *t));
      },
      py::arg("dtype"), py::arg("order") = "K", py::arg("casting") = "unsafe",
      py::arg("subok") = true, py::arg("copy") = true);
  cls.def("fill", [](const Array& a, py::handle value) { setitem(a, py::ellipsis(), value); });
}

} // namespace hassium::python
