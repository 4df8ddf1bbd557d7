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

#define HS_BINARY(PYNAME, UFUNC)                                                                   \
  cls.def(                                                                                         \
      "__" PYNAME "__",                                                                            \
      [](py::handle a, py::handle b) {                                                             \
        static const UfuncDef& u = ufunc(UFUNC);                                                   \
        return binary_operator(u, a, b);                                                           \
      },                                                                                           \
      py::is_operator());                                                                          \
  cls.def(                                                                                         \
      "__r" PYNAME "__",                                                                           \
      [](py::handle a, py::handle b) {                                                             \
        static const UfuncDef& u = ufunc(UFUNC);                                                   \
        return binary_operator(u, b, a);                                                           \
      },                                                                                           \
      py::is_operator());                                                                          \
  cls.def(                                                                                         \
      "__i" PYNAME "__",                                                                           \
      [](py::handle a, py::handle b) {                                                             \
        static const UfuncDef& u = ufunc(UFUNC);                                                   \
        return inplace_operator(u, a, b);                                                          \
      },                                                                                           \
      py::is_operator());

#define HS_COMPARE(PYNAME, UFUNC)                                                                  \
  cls.def(                                                                                         \
      "__" PYNAME "__",                                                                            \
      [](py::handle a, py::handle b) {                                                             \
        static const UfuncDef& u = ufunc(UFUNC);                                                   \
        return binary_operator(u, a, b);                                                           \
      },                                                                                           \
      py::is_operator());

#define HS_UNARY(PYNAME, UFUNC)                                                                    \
  cls.def("__" PYNAME "__", [](py::handle a) {                                                     \
    static const UfuncDef& u = ufunc(UFUNC);                                                       \
    return unary_operator(u, a);                                                                   \
  });

// The commonest operators as the type's number slots, called by the interpreter directly
// (no lookup of __add__/__radd__, no pybind11 dispatch). Same calls as the methods: x op y,
// whichever operand is the hassium array; NotImplemented lets Python try the other operand.
PyObject* slot_call(const UfuncDef& u, PyObject* x, PyObject* y) {
  return call_in_slot<PyObject*>(nullptr, [&] { return binary_operator(u, x, y).release().ptr(); });
}

#define HS_SLOT(FN, UFUNC)                                                                         \
  PyObject* FN(PyObject* x, PyObject* y) {                                                         \
    static const UfuncDef* u = find_ufunc(UFUNC);                                                  \
    return slot_call(*u, x, y);                                                                    \
  }
HS_SLOT(slot_add, "add")
HS_SLOT(slot_subtract, "subtract")
HS_SLOT(slot_multiply, "multiply")
HS_SLOT(slot_divide, "divide")
#undef HS_SLOT

// a op= b: a is the hassium array (Python calls the left operand's in-place slot only).
#define HS_ISLOT(FN, UFUNC)                                                                        \
  PyObject* FN(PyObject* x, PyObject* y) {                                                         \
    static const UfuncDef* u = find_ufunc(UFUNC);                                                  \
    return call_in_slot<PyObject*>(nullptr,                                                        \
                                   [&] { return inplace_operator(*u, x, y).release().ptr(); });    \
  }
HS_ISLOT(slot_inplace_add, "add")
HS_ISLOT(slot_inplace_subtract, "subtract")
HS_ISLOT(slot_inplace_multiply, "multiply")
HS_ISLOT(slot_inplace_divide, "divide")
#undef HS_ISLOT

py::object matmul_call(py::handle a, py::handle b) {
  PyObject* r = matmul_slot(a.ptr(), b.ptr());
  if (!r) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(r);
}

void install_number_slots(PyTypeObject* type) {
  PyNumberMethods* nb = type->tp_as_number;
  HS_INTERNAL_ASSERT(nb && ufunc("add").nin == 2 && ufunc("subtract").nin == 2 &&
                     ufunc("multiply").nin == 2 && ufunc("divide").nin == 2)
      << "hassium.ndarray: no number slots";
  nb->nb_add = slot_add;
  nb->nb_subtract = slot_subtract;
  nb->nb_multiply = slot_multiply;
  nb->nb_true_divide = slot_divide;
  nb->nb_matrix_multiply = matmul_slot;
  nb->nb_inplace_add = slot_inplace_add;
  nb->nb_inplace_subtract = slot_inplace_subtract;
  nb->nb_inplace_multiply = slot_inplace_multiply;
  nb->nb_inplace_true_divide = slot_inplace_divide;
  PyType_Modified(type);
}

// a[key] and a[key] = v as the type's mapping slots, for the same reason (the bound
// __getitem__ / __setitem__ stay for explicit calls). Deletion keeps the slot Python made.
objobjargproc g_default_ass_subscript = nullptr;

PyObject* slot_getitem(PyObject* self, PyObject* key) {
  return call_in_slot<PyObject*>(nullptr,
                                 [&] { return getitem(array_of(self), key).release().ptr(); });
}

int slot_setitem(PyObject* self, PyObject* key, PyObject* value) {
  if (!value) return g_default_ass_subscript(self, key, value);
  return call_in_slot(-1, [&] {
    setitem(array_of(self), key, value);
    return 0;
  });
}

// Deallocation of the arrays wrap() made (exact type, simple layout, not in pybind11's instance
// map, no weak references or patients): what pybind11's deallocator does for them, without its
// search of the type's C++ bases. Anything else goes through pybind11's.
destructor g_default_dealloc = nullptr;

void ndarray_dealloc(PyObject* self) {
  static py::detail::type_info* info = py::detail::get_type_info(typeid(Array));
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  PyTypeObject* type = Py_TYPE(self);
  if (type != info->type || !inst->simple_layout || inst->simple_instance_registered ||
      inst->weakrefs || inst->has_patients)
    return g_default_dealloc(self);
  auto vh = inst->get_value_and_holder(info);
  if (vh.holder_constructed()) {
    py::error_scope scope; // the destructor may record and flush: keep a pending error
    vh.holder<std::unique_ptr<Array>>().~unique_ptr<Array>();
    vh.set_holder_constructed(false);
  }
  vh.value_ptr() = nullptr;
  inst->deallocate_layout();
  type->tp_free(self);
  Py_DECREF(type);
}

void install_dealloc(PyTypeObject* type) {
  HS_INTERNAL_ASSERT(!PyType_HasFeature(type, Py_TPFLAGS_HAVE_GC) && type->tp_dictoffset == 0)
      << "hassium.ndarray: the deallocator assumes no GC and no instance dict";
  g_default_dealloc = type->tp_dealloc;
  type->tp_dealloc = ndarray_dealloc;
}

void install_mapping_slots(PyTypeObject* type) {
  PyMappingMethods* mp = type->tp_as_mapping;
  HS_INTERNAL_ASSERT(mp && mp->mp_ass_subscript) << "hassium.ndarray: no mapping slots";
  g_default_ass_subscript = mp->mp_ass_subscript;
  mp->mp_subscript = slot_getitem;
  mp->mp_ass_subscript = slot_setitem;
  PyType_Modified(type);
}

} // namespace

void bind_ndarray(py::module_& m) {
  py::class_<Array> cls(m, "ndarray", py::buffer_protocol(),
                        "A lazy NumPy-compatible array: a view of a hassium base.");
  set_ndarray_type(reinterpret_cast<PyTypeObject*>(cls.ptr()));

  // hassium.ndarray(shape, dtype=float, buffer=None, offset=0, strides=None, order=None), as
  // numpy.ndarray(...): hassium/_creation.py ndarray_new makes the array; this object becomes
  // another holder of its view.
  cls.def(py::init([](py::object shape, py::object dtype, py::object buffer, py::object offset,
                      py::object strides, py::object order) {
            static PyObject* make = [] {
              py::object f = py::module_::import("hassium._creation").attr("ndarray_new");
              return f.release().ptr(); // kept for the process
            }();
            py::object r = py::reinterpret_borrow<py::object>(make)(shape, dtype, buffer, offset,
                                                                    strides, order);
            if (!is_ndarray(r))
              raise_type_error("hassium does not support dtype " +
                               py::str(r.attr("dtype")).cast<std::string>());
            Array a = array_of(r);
            a.scalar = false;
            return a;
          }),
          py::arg("shape"), py::arg("dtype") = py::none(), py::arg("buffer") = py::none(),
          py::arg("offset") = 0, py::arg("strides") = py::none(), py::arg("order") = py::none());

  // a.shape = s reshapes in place when no copy is needed (NumPy's rule, as reshape); other
  // arrays of the same base keep their views.
  py::cpp_function get_shape([](const Array& a) { return dims_tuple(a.shape()); },
                             py::is_method(cls));
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
      py::is_method(cls));
  py::cpp_function del_shape(
      [](py::handle) { raise(PyExc_AttributeError, "Cannot delete array shape"); },
      py::is_method(cls));
  cls.attr("shape") = py::reinterpret_borrow<py::object>(
      reinterpret_cast<PyObject*>(&PyProperty_Type))(get_shape, set_shape, del_shape,
                                                     "Tuple of array dimensions (settable in "
                                                     "place when no copy is needed).");
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
  cls.def("__getitem__", [](const Array& a, py::handle key) { return getitem(a, key); });
  cls.def("__setitem__", [](const Array& a, py::handle key, py::handle v) { setitem(a, key, v); });

  HS_BINARY("add", "add")
  HS_BINARY("sub", "subtract")
  HS_BINARY("mul", "multiply")
  HS_BINARY("truediv", "divide")
  HS_BINARY("floordiv", "floor_divide")
  HS_BINARY("mod", "remainder")
  cls.def("__pow__", &power_operator, py::is_operator());
  cls.def(
      "__rpow__",
      [](py::handle a, py::handle b) {
        static const UfuncDef& u = ufunc("power");
        return binary_operator(u, b, a);
      },
      py::is_operator());
  cls.def("__ipow__", &inplace_power_operator, py::is_operator());
  HS_BINARY("lshift", "left_shift")
  HS_BINARY("rshift", "right_shift")
  HS_BINARY("and", "bitwise_and")
  HS_BINARY("or", "bitwise_or")
  HS_BINARY("xor", "bitwise_xor")
  HS_COMPARE("lt", "less")
  HS_COMPARE("le", "less_equal")
  HS_COMPARE("gt", "greater")
  HS_COMPARE("ge", "greater_equal")
  HS_COMPARE("eq", "equal")
  HS_COMPARE("ne", "not_equal")
  HS_UNARY("neg", "negative")
  HS_UNARY("pos", "positive")
  HS_UNARY("abs", "absolute")
  HS_UNARY("invert", "invert")
  // a @ b, whichever operand is the hassium array (the slot; these for explicit calls).
  cls.def(
      "__matmul__", [](py::handle a, py::handle b) { return matmul_call(a, b); },
      py::is_operator());
  cls.def(
      "__rmatmul__", [](py::handle a, py::handle b) { return matmul_call(b, a); },
      py::is_operator());
  cls.def("__divmod__", [](py::handle a, py::handle b) {
    return ufunc_call(ufunc("divmod"), py::make_tuple(a, b), py::kwargs());
  });
  cls.def("__rdivmod__", [](py::handle a, py::handle b) {
    return ufunc_call(ufunc("divmod"), py::make_tuple(b, a), py::kwargs());
  });
  cls.attr("__hash__") = py::none();
  install_number_slots(reinterpret_cast<PyTypeObject*>(cls.ptr()));
  install_mapping_slots(reinterpret_cast<PyTypeObject*>(cls.ptr()));
  install_dealloc(reinterpret_cast<PyTypeObject*>(cls.ptr()));

  cls.def("__bool__", &truth);
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
  // The buffer protocol (memoryview(a), libraries reading memory): flushes, then exports the
  // base's memory; the exporter object keeps the base alive.
  cls.def_buffer([](const Array& a) {
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
    Base& b = *a.view.base;
    sync_for_read(a.view.base);
    b.host_exported = true; // a writable buffer: its holder may write at any time
    const int64_t item = dtype_size(b.dtype);
    std::vector<ssize_t> shape(a.view.shape.begin(), a.view.shape.end()), strides;
    for (auto s : a.view.stride) strides.push_back(ssize_t(s * item));
    return py::buffer_info(static_cast<char*>(b.data) + a.view.offset * item, item,
                           formats[size_t(b.dtype)], ssize_t(a.ndim()), shape, strides);
  });
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
