// Module functions of _hassium: flushing, creation primitives, generators, where (the products
// are in linalg.cpp).
// The NumPy-facing functions (zeros, arange, concatenate, ...) are Python in hassium/ on top.
#include <pybind11/stl.h>

#include "bridge/python/bindings.h"
#include "bridge/python/convert.h"
#include "bridge/python/errors.h"
#include "bridge/python/indexing.h"
#include "bridge/python/ufunc.h"
#include "core/config.h"
#include "core/error.h"
#include "core/registry.h"

namespace hassium::python {

namespace {

// One dimension: NumPy's ValueError for one beyond int64 (OverflowError otherwise).
int64_t dim_value(py::handle h) {
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!i) throw py::error_already_set();
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  if (overflow) raise_value_error("Maximum allowed dimension exceeded");
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

Dims shape_of(py::handle shape) {
  Dims d;
  if (PyLong_Check(shape.ptr()) || PyIndex_Check(shape.ptr())) {
    d.push_back(dim_value(shape));
  } else {
    for (auto h : shape) d.push_back(dim_value(h));
  }
  for (auto e : d)
    if (e < 0) raise_value_error("negative dimensions are not allowed");
  return d;
}

// NumPy's limit on an array's size in bytes (numpy.empty((2**40, 2**40)) raises it).
void check_nbytes(const Dims& shape, DType t) {
  int64_t n = dtype_size(t);
  bool empty = false;
  bool overflow = false;
  for (auto e : shape) {
    empty = empty || e == 0;
    overflow = overflow || __builtin_mul_overflow(n, e, &n);
  }
  if (overflow && !empty)
    raise_value_error("array is too big; `arr.size * arr.dtype.itemsize` is larger than the "
                      "maximum possible size.");
}

Array new_checked(DType t, const Dims& shape) {
  check_nbytes(shape, t);
  return new_array(t, shape);
}

DType dtype_or(py::handle dtype, DType dflt) {
  if (dtype.is_none()) return dflt;
  auto t = dtype_from_arg(dtype);
  if (!t) raise_type_error("hassium does not support dtype " + py::str(dtype).cast<std::string>());
  return *t;
}

// An operand as an array view broadcast to shape and cast to t (constants as 0-d arrays).
View materialize(const Arg& a, DType t, const Dims& shape, std::vector<Array>& temps) {
  if (!a.is_array) {
    auto c = constant_for_loop(a, t);
    if (!c) raise_int_out_of_bounds(a, t);
    temps.push_back(new_array(t, {}));
    record_fill(temps.back().view, *c);
    return broadcast_view(temps.back().view, shape);
  }
  View v = a.array().view;
  if (a.array().dtype() != t) {
    temps.push_back(copy_as(v, t));
    v = temps.back().view;
  }
  return broadcast_view(v, shape);
}

py::object where3(py::handle cond, py::handle x, py::handle y) {
  Arg c, a, b;
  if (classify(cond, c) != ArgStatus::ok || classify(x, a) != ArgStatus::ok ||
      classify(y, b) != ArgStatus::ok)
    return call_fallback("where", "__call__", py::make_tuple(cond, x, y), py::dict());
  // numpy.where promotes x and y with result_type, which is add's loop for every pair of
  // hassium dtypes and weak Python scalars (NEP 50).
  TypeCode codes[2] = {a.code, b.code};
  auto loop = resolve_loop(ufunc("add").id, "add", 2, 1, codes, std::nullopt);
  if (!loop) return call_fallback("where", "__call__", py::make_tuple(cond, x, y), py::dict());
  DType t = loop->out[0];
  Dims shapes[3] = {c.shape(), a.shape(), b.shape()};
  Dims shape = broadcast_shapes(shapes);
  Array out = new_array(t, shape);
  std::vector<Array> temps;
  if (out.size() > 0) {
    // One WHERE: out = cond ? x : y, each operand cast and broadcast (constants stay constants);
    // out is fresh, so nothing overlaps it.
    auto operand = [&](const Arg& v, DType dt) -> Operand {
      if (v.is_array) return materialize(v, dt, shape, temps);
      if (dt == DType::BOOL) return Scalar::of_bool(v.value.as_bool());
      // NumPy's where casts a Python int that does not fit unsafely (int8: 300 -> 44).
      auto k = constant_for_loop(v, dt);
      return k ? *k : v.value.cast(dt);
    };
    Operand mask = operand(c, DType::BOOL);
    Operand src_x = operand(a, t);
    Operand src_y = operand(b, t);
    record(Opcode::WHERE, {out.view, mask, src_x, src_y});
  }
  out.scalar = out.ndim() == 0;
  return wrap(std::move(out));
}

} // namespace

void bind_functions(py::module_& m) {
  m.def(
      "registry_names",
      [](const std::string& id) {
        const RegistryBase* r = published_registry(id);
        if (!r) {
          std::string ids;
          for (const RegistryBase* p : published_registries())
            ids += (ids.empty() ? "" : ", ") + p->id();
          throw UserError("no registry '" + id + "' is published in this build; published: " +
                          (ids.empty() ? "none" : ids));
        }
        return r->names();
      },
      "The names a component key of the configuration may take in this build, by the "
      "registry's id (\"stack.engine\", \"fuser.algorithm\", ...), in registration order.");
  m.def("flush", &flush,
        "Runs every pending instruction (on a GPU engine, until the device has run them).");
  m.def("pending", &pending_count, "Instructions recorded since the last flush.");
  m.def("set_flush_threshold", &set_flush_threshold);
  m.def("flush_threshold", &flush_threshold);
  m.def("set_align_flushes", &set_align_flushes);
  m.def("set_flush_scalar_reads", &set_flush_scalar_reads);
  m.def("flush_scalar_reads", &flush_scalar_reads);
  m.def("set_eager_max_elements", &set_eager_max_elements);
  m.def("eager_max_elements", &eager_max_elements);
  m.def("align_flushes", &align_flushes);
  m.def("flush_policy_stats", [] {
    FlushPolicy::Stats s = flush_policy_stats();
    return pybind11::dict(pybind11::arg("first") = s.first, pybind11::arg("aligned") = s.aligned,
                          pybind11::arg("forced") = s.forced, pybind11::arg("ended") = s.ended,
                          pybind11::arg("reanchored") = s.reanchored);
  });
  m.def("_set_shutting_down", &set_shutting_down);
  m.def("_set_masked_type", &set_masked_type);
  // Writes recorded to the array's base so far (Base::generation).
  m.def("_generation", [](const Array& a) { return a.view.base->generation; });
  // Counts a write made outside hassium (NumPy writing the memory in a fallback).
  m.def("_note_written", [](const Array& a) { ++a.view.base->generation; });
  // The real or imaginary part of a complex array, as a new lazy array (REAL / IMAG).
  m.def("_complex_part", [](const Array& a, bool imag) {
    Array out =
        new_array(a.dtype() == DType::COMPLEX64 ? DType::FLOAT32 : DType::FLOAT64, a.shape());
    if (out.size() > 0) record(imag ? Opcode::IMAG : Opcode::REAL, {out.view, a.view});
    out.scalar = a.scalar;
    return wrap(std::move(out));
  });
  m.def("_take_mask", &take_mask);
  // The sorting extensions (ve/cpu/sorting.cpp; NumPy's order, stable, NaN last) along a
  // normalized axis: a sorted copy, or the array sorted in place (a.sort()).
  m.def("_sort", [](const Array& a, int64_t axis, bool in_place) -> py::object {
    const Array out = in_place ? a : new_array(a.dtype(), a.shape());
    if (out.size() > 0) record(Opcode::SORT, {out.view, a.view, Scalar::of_int(axis)});
    if (in_place) return py::none();
    return wrap(out);
  });
  m.def("_argsort", [](const Array& a, int64_t axis) {
    Array out = new_array(DType::INT64, a.shape());
    if (out.size() > 0) record(Opcode::ARGSORT, {out.view, a.view, Scalar::of_int(axis)});
    return wrap(std::move(out));
  });
  // np.searchsorted(sorted, v, side) of a 1-d sorted array and values of its dtype.
  m.def("_searchsorted", [](const Array& sorted, const Array& v, bool right) {
    Array out = new_array(DType::INT64, v.shape());
    out.scalar = v.scalar;
    if (out.size() > 0)
      record(right ? Opcode::SEARCHSORTED_RIGHT : Opcode::SEARCHSORTED_LEFT,
             {out.view, sorted.view, v.view});
    return wrap(std::move(out));
  });
  m.def(
      "config_value",
      [](const std::string& section, const std::string& key) {
        return Config::global()->value(section, key).text;
      },
      "The configuration's value of [section] key, as text (core/config_keys.def lists the keys).");
  m.def(
      "config_file", [] { return Config::global()->file(); },
      "The config.ini in use (Config::search_path's first existing file), or '' for defaults.");

  m.def(
      "empty",
      [](py::handle shape, py::handle dtype) {
        return new_checked(dtype_or(dtype, DType::FLOAT64), shape_of(shape));
      },
      py::arg("shape"), py::arg("dtype") = py::none());
  m.def(
      "full",
      [](py::handle shape, py::handle value, py::handle dtype) {
        Dims s = shape_of(shape);
        Arg v;
        if (classify(value, v) != ArgStatus::ok)
          raise_type_error("hassium.full: unsupported fill value");
        DType t = dtype_or(dtype, dtype_of_code(v.code));
        Array a = new_checked(t, s);
        if (v.is_array) {
          std::vector<Array> temps;
          Dims shapes[2] = {v.shape(), s};
          Dims b;
          if (!shapes_broadcast(shapes, b) || b != s)
            raise_value_error("could not broadcast input array from shape " +
                              shape_text(v.shape()) + " into shape " + shape_text(s));
          record_copy(a.view, v.array().view);
        } else {
          // NumPy's full casts the fill value unsafely (full(3, 300, dtype=int8) wraps? no:
          // raises).
          auto c = constant_for_loop(v, t);
          if (!c) raise_int_out_of_bounds(v, t);
          record_fill(a.view, *c);
        }
        return a;
      },
      py::arg("shape"), py::arg("fill_value"), py::arg("dtype") = py::none());
  m.def(
      "from_numpy",
      [](py::array arr, bool copy) -> py::object {
        auto a = from_numpy(arr, copy);
        if (!a) return py::none();
        return wrap(std::move(*a));
      },
      py::arg("array"), py::arg("copy") = false);
  m.def(
      "view_in",
      [](const Array& a, py::array arr) -> py::object {
        // arr: a NumPy array over part of the memory of a's base (numpy.ndarray(buffer=
        // a._numpy(), ...)). The same elements as a view of that base, so that hassium keeps
        // tracking writes through either; None when arr's dtype is not the base's or its
        // geometry is not in whole elements (the caller copies).
        auto t = dtype_of_numpy(arr.dtype());
        const Base& b = *a.view.base;
        if (!t || *t != b.dtype || !b.data) return py::none();
        const int64_t item = dtype_size(b.dtype);
        View v;
        v.base = a.view.base;
        int64_t size = 1, lo = 0, hi = 0;
        for (int k = 0; k < int(arr.ndim()); ++k) {
          int64_t n = arr.shape(k), s = arr.strides(k);
          if (s % item != 0) return py::none();
          v.shape.push_back(n);
          v.stride.push_back(s / item);
          size *= n;
          if (n > 1) (s < 0 ? lo : hi) += (s / item) * (n - 1);
        }
        const int64_t off = static_cast<const char*>(arr.data()) - static_cast<const char*>(b.data);
        if (size == 0) {
          v = View::contiguous(a.view.base, v.shape);
        } else {
          if (off % item != 0) return py::none();
          v.offset = off / item;
          if (v.offset + lo < 0 || v.offset + hi >= b.nelem) return py::none();
        }
        return wrap(view_of(a, std::move(v)));
      },
      py::arg("a"), py::arg("array"));
  m.def(
      "range",
      [](int64_t n, py::handle dtype) {
        Array a = new_array(dtype_or(dtype, DType::INT64), {n});
        if (n > 0) record(Opcode::RANGE, {a.view});
        return a;
      },
      "A 1-D array holding 0, 1, ..., n-1 (RANGE).", py::arg("n"), py::arg("dtype") = py::none());
  m.def(
      "random_bits",
      [](py::handle shape, uint64_t seed, uint64_t counter) {
        Array a = new_array(DType::UINT64, shape_of(shape));
        if (a.size() > 0)
          record(Opcode::RANDOM, {a.view, Scalar::of_uint(seed), Scalar::of_uint(counter)});
        return a;
      },
      "uint64 random bits: Philox on (seed, counter + i) (RANDOM).");
  m.def("where", &where3);
  m.def(
      "copy",
      [](const Array& a, py::handle dtype) { return copy_as(a.view, dtype_or(dtype, a.dtype())); },
      py::arg("a"), py::arg("dtype") = py::none());
  m.def(
      "as_scalar",
      [](Array a) {
        a.scalar = a.ndim() == 0;
        return a;
      },
      "The array marked as one NumPy would return as a scalar (repr, 0-d results).");
  m.def("same_base", [](const Array& a, const Array& b) { return a.view.base == b.view.base; });
  m.def("overlap", [](const Array& a, const Array& b) { return overlaps(a.view, b.view); });
}

} // namespace hassium::python
