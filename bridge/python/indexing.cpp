// Indexing: parsing keys, basic views, gathers and scatters with NumPy's rules and messages.
#include "bridge/python/indexing.h"

#include <cmath>
#include <numeric>
#include <span>

#include <boost/container/small_vector.hpp>

#include "bridge/common/compress.h"
#include "bridge/common/gather.h"
#include "bridge/common/overlap.h"
#include "bridge/common/views.h"
#include "bridge/python/convert.h"
#include "bridge/python/errors.h"
#include "bridge/python/numpy_api.h"
#include "core/error.h"
#include "core/runtime.h"

namespace hassium::python {

namespace {

const char* kBadIndex = "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
                        "and integer or boolean arrays are valid indices";

py::module_& np() {
  static py::module_* m = new py::module_(py::module_::import("numpy"));
  return *m;
}

struct Item {
  enum Kind { integer, slice, newaxis, ellipsis, array, mask } kind;
  int64_t i = 0;                  // integer
  py::object obj;                 // slice; array/mask: a NumPy array (host data)
  std::optional<Array> lazy_mask; // mask: the hassium array when it came as one
};
// A key's items: inline for the keys programs write (no allocation per indexing).
using Items = boost::container::small_vector<Item, 6>;

// A Python int as an index. Beyond intp, NumPy's errors: an OverflowError for one that fits
// uint64 (2**63 .. 2**64 - 1: its conversion to a C long fails), else its IndexError for what is
// not an index at all.
int64_t index_value(PyObject* p) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
  if (overflow > 0) {
    PyLong_AsUnsignedLongLong(p);
    const bool fits_uint64 = !PyErr_Occurred();
    PyErr_Clear();
    if (fits_uint64) raise(PyExc_OverflowError, "Python int too large to convert to C long");
  }
  if (overflow) raise_index_error(kBadIndex);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

// A NumPy bool scalar (numpy.True_): as an index, a 0-d boolean mask like Python's bool.
bool is_numpy_bool(PyObject* p) {
  Scalar s;
  return exact_numpy_scalar_value(p, s) && s.dtype == DType::BOOL;
}

// A hassium 0-d integer array used as an index is an integer (NumPy calls __index__).
bool as_integer(py::handle h, int64_t& v) {
  PyObject* p = h.ptr();
  if (PyBool_Check(p)) return false;
  if (PyLong_Check(p)) {
    v = index_value(p);
    return true;
  }
  if (is_ndarray(h)) {
    const Array& a = array_of(h);
    if (a.ndim() != 0 || !is_integer(a.dtype())) return false;
    v = item(a, 0).cast<int64_t>();
    return true;
  }
  if (py::isinstance<py::array>(h)) return false;
  if (PyIndex_Check(p)) {
    py::object o = py::reinterpret_steal<py::object>(PyNumber_Index(p));
    if (!o) throw py::error_already_set();
    v = index_value(o.ptr());
    return true;
  }
  return false;
}

Item parse_item(py::handle h) {
  // A lazy x[mask] as an index: its compressed array (it defines __index__, which is not meant)
  if (is_masked_selection(h)) return parse_item(materialize(h));
  Item it;
  PyObject* p = h.ptr();
  if (p == Py_None) {
    it.kind = Item::newaxis;
  } else if (p == Py_Ellipsis) {
    it.kind = Item::ellipsis;
  } else if (PySlice_Check(p)) {
    it.kind = Item::slice;
    it.obj = py::reinterpret_borrow<py::object>(h);
  } else if (as_integer(h, it.i)) {
    it.kind = Item::integer;
  } else {
    py::array arr;
    if (is_ndarray(h)) {
      const Array& a = array_of(h);
      if (a.dtype() == DType::BOOL) { // kept lazy: a[mask] = value may need no data
        it.kind = Item::mask;
        it.lazy_mask = a;
        return it;
      }
      arr = to_numpy(a);
    } else if (PyBool_Check(p) || is_numpy_bool(p) || py::isinstance<py::array>(h) ||
               PyList_Check(p) || PyTuple_Check(p)) {
      arr = np().attr("asarray")(h);
      if (PyList_Check(p) && PyList_GET_SIZE(p) == 0) arr = np().attr("asarray")(h, "intp");
    } else {
      raise_index_error(kBadIndex);
    }
    char kind = arr.dtype().kind();
    if (kind == 'b') {
      it.kind = Item::mask;
    } else if (kind == 'i' || kind == 'u') {
      it.kind = Item::array;
    } else {
      raise_index_error("arrays used as indices must be of integer (or boolean) type");
    }
    it.obj = arr;
  }
  return it;
}

Items parse_key(py::handle key) {
  Items items;
  if (PyTuple_Check(key.ptr())) {
    for (auto h : key) items.push_back(parse_item(h));
  } else {
    items.push_back(parse_item(key));
  }
  return items;
}

int consumed(const Item& it) {
  switch (it.kind) {
  case Item::integer:
  case Item::slice:
  case Item::array:
    return 1;
  case Item::mask:
    return it.lazy_mask ? it.lazy_mask->ndim()
                        : int(py::reinterpret_borrow<py::array>(it.obj).ndim());
  default:
    return 0;
  }
}

// Expands the ellipsis (or appends full slices) so the items consume exactly ndim dims.
void expand(Items& items, int ndim) {
  int used = 0, ellipses = 0;
  for (const auto& it : items) {
    used += consumed(it);
    ellipses += it.kind == Item::ellipsis;
  }
  if (ellipses > 1) raise_index_error("an index can only have a single ellipsis ('...')");
  if (used > ndim)
    raise_index_error("too many indices for array: array is " + std::to_string(ndim) +
                      "-dimensional, but " + std::to_string(used) + " were indexed");
  Items out;
  auto full = [] {
    Item s;
    s.kind = Item::slice;
    s.obj = py::reinterpret_steal<py::object>(PySlice_New(nullptr, nullptr, nullptr));
    return s;
  };
  for (auto& it : items) {
    if (it.kind == Item::ellipsis) {
      for (int k = 0; k < ndim - used; ++k) out.push_back(full());
    } else {
      out.push_back(std::move(it));
    }
  }
  if (ellipses == 0)
    for (int k = 0; k < ndim - used; ++k) out.push_back(full());
  items = std::move(out);
}

[[noreturn]] void raise_out_of_bounds(int64_t i, int axis, int64_t n) {
  raise_index_error("index " + std::to_string(i) + " is out of bounds for axis " +
                    std::to_string(axis) + " with size " + std::to_string(n));
}

// Integer index i on an axis of length n as NumPy takes it: negative counts from the end; out of
// range is NumPy's IndexError naming the axis.
int64_t checked_index(int64_t i, int axis, int64_t n) {
  auto k = frontend::normalize_index(i, n);
  if (!k) raise_out_of_bounds(i, axis, n);
  return *k;
}

// The items of a key: a tuple's, or the key alone (then the span points at `key` itself: valid
// while the caller's variable is).
std::span<PyObject* const> key_items(PyObject* const& key) {
  if (PyTuple_CheckExact(key)) return {&PyTuple_GET_ITEM(key, 0), size_t(PyTuple_GET_SIZE(key))};
  return {&key, 1};
}

// The result of applying the key's basic items: a view, plus where the advanced ones sit.
struct Applied {
  View view;
  std::vector<int> adv_dims;  // dims of `view` indexed by advanced arrays, in key order
  std::vector<py::array> adv; // their (int64) index arrays, same order
  bool has_ellipsis = false;
  bool only_integers = true; // every item an integer (NumPy returns a scalar)
};

// Applies integers, slices and new axes; masks become their nonzero() integer arrays. When any
// advanced index exists, integers count as advanced (0-d) indices, as in NumPy.
Applied apply_key(const View& in, Items items, bool& had_ellipsis) {
  had_ellipsis = false;
  bool any_adv = false;
  for (const auto& it : items) {
    had_ellipsis |= it.kind == Item::ellipsis;
    any_adv |= it.kind == Item::array || it.kind == Item::mask;
  }
  expand(items, in.ndim());
  Applied r;
  r.has_ellipsis = had_ellipsis;
  r.view.base = in.base;
  r.view.offset = in.offset;
  int dim = 0;
  for (auto& it : items) {
    if (it.kind != Item::integer) r.only_integers = false;
    switch (it.kind) {
    case Item::integer: {
      int64_t n = in.shape[size_t(dim)];
      int64_t i = checked_index(it.i, dim, n);
      if (any_adv) {
        r.adv_dims.push_back(r.view.ndim());
        r.view.shape.push_back(n);
        r.view.stride.push_back(in.stride[size_t(dim)]);
        r.adv.push_back(np().attr("asarray")(i, "int64"));
      } else {
        r.view.offset += i * in.stride[size_t(dim)];
      }
      ++dim;
      break;
    }
    case Item::slice: {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(it.obj.ptr(), &start, &stop, &step) < 0) throw py::error_already_set();
      int64_t n = in.shape[size_t(dim)];
      const auto [first, len] = frontend::resolve_slice(start, stop, step, n);
      r.view.offset += first * in.stride[size_t(dim)];
      r.view.shape.push_back(len);
      r.view.stride.push_back(step * in.stride[size_t(dim)]);
      ++dim;
      break;
    }
    case Item::newaxis:
      r.view.shape.push_back(1);
      r.view.stride.push_back(0);
      break;
    case Item::array: {
      int64_t n = in.shape[size_t(dim)];
      py::array idx = np().attr("asarray")(it.obj, "int64");
      // Two reductions decide the common case (every index in [0, n): nothing to check or
      // wrap); only otherwise the element-wise passes that find the culprit and wrap.
      const bool plain = idx.size() == 0 || (idx.attr("min")().cast<int64_t>() >= 0 &&
                                             idx.attr("max")().cast<int64_t>() < n);
      if (!plain) {
        py::array bad =
            np().attr("logical_or")(np().attr("less")(idx, -n), np().attr("greater_equal")(idx, n));
        if (np().attr("any")(bad).cast<bool>()) {
          int64_t first = idx.attr("__getitem__")(bad).attr("__getitem__")(0).cast<int64_t>();
          raise_out_of_bounds(first, dim, n);
        }
        idx = np().attr("where")(np().attr("less")(idx, 0), np().attr("add")(idx, n), idx);
      }
      r.adv_dims.push_back(r.view.ndim());
      r.view.shape.push_back(n);
      r.view.stride.push_back(in.stride[size_t(dim)]);
      r.adv.push_back(idx);
      ++dim;
      break;
    }
    case Item::mask: {
      py::array m =
          it.lazy_mask ? to_numpy(*it.lazy_mask) : py::reinterpret_borrow<py::array>(it.obj);
      for (int k = 0; k < int(m.ndim()); ++k)
        if (m.shape(k) != in.shape[size_t(dim + k)])
          raise_index_error(
              "boolean index did not match indexed array along axis " + std::to_string(dim + k) +
              "; size of axis is " + std::to_string(in.shape[size_t(dim + k)]) +
              " but size of corresponding boolean axis is " + std::to_string(m.shape(k)));
      // (NumPy 2 refuses nonzero() of a 0-d mask)
      py::tuple nz = m.ndim() > 0 ? py::tuple(np().attr("nonzero")(m)) : py::tuple();
      for (int k = 0; k < int(m.ndim()); ++k) {
        r.adv_dims.push_back(r.view.ndim());
        r.view.shape.push_back(in.shape[size_t(dim + k)]);
        r.view.stride.push_back(in.stride[size_t(dim + k)]);
        r.adv.push_back(np().attr("asarray")(nz[size_t(k)], "int64"));
      }
      if (m.ndim() == 0) { // a[True]: a new axis of length 1 (or 0 for False)
        bool v = m.attr("item")().cast<bool>();
        r.view.shape.push_back(1);
        r.view.stride.push_back(0);
        r.adv_dims.push_back(r.view.ndim() - 1);
        r.adv.push_back(np().attr("zeros")(v ? 1 : 0, "int64"));
      }
      dim += int(m.ndim());
      break;
    }
    case Item::ellipsis:
      break;
    }
  }
  return r;
}

// The shape of the result and the int64 array of row-major positions within `v` that a
// GATHER/SCATTER over the advanced indices reads or writes.
struct Positions {
  Dims shape;
  Array index; // int64, contiguous, of `shape`
};

Positions positions(const Applied& ap) {
  const View& v = ap.view;
  const int nd = v.ndim();
  // Row-major position strides of v.
  Dims pstride(static_cast<size_t>(nd));
  int64_t s = 1;
  for (int k = nd; k-- > 0;) {
    pstride[size_t(k)] = s;
    s *= v.shape[size_t(k)];
  }
  // Broadcast the advanced arrays; combine them into one flat part.
  py::list arrays;
  for (const auto& a : ap.adv) arrays.append(a);
  py::tuple bc;
  try {
    bc = np().attr("broadcast_arrays")(*arrays);
  } catch (py::error_already_set&) {
    std::string msg =
        "shape mismatch: indexing arrays could not be broadcast together with shapes ";
    for (const auto& a : ap.adv) {
      Dims d;
      for (int k = 0; k < int(a.ndim()); ++k) d.push_back(a.shape(k));
      msg += shape_text(d) + " ";
    }
    raise_index_error(msg);
  }
  // flat = sum of index k times its dim's position stride: the first product is a new
  // contiguous array, the rest are added into it in place (a unit stride needs no product).
  py::object flat = np().attr("asarray")(
      np().attr("multiply")(bc[0], pstride[size_t(ap.adv_dims[0])], py::arg("dtype") = "int64"));
  for (size_t k = 1; k < ap.adv.size(); ++k) {
    const int64_t ps = pstride[size_t(ap.adv_dims[k])];
    py::object term = ps == 1 ? py::object(bc[k]) : np().attr("multiply")(bc[k], ps);
    np().attr("add")(flat, term, py::arg("out") = flat);
  }
  py::array flat_arr = np().attr("ascontiguousarray")(flat, "int64");
  Dims bshape;
  for (int k = 0; k < int(flat_arr.ndim()); ++k) bshape.push_back(flat_arr.shape(k));
  // Where the broadcast dims go: in place of the advanced dims when those are adjacent,
  // else first.
  bool adjacent = true;
  for (size_t k = 1; k < ap.adv_dims.size(); ++k)
    adjacent &= ap.adv_dims[k] == ap.adv_dims[k - 1] + 1;
  int first = adjacent ? ap.adv_dims.front() : 0;
  std::vector<int> rest; // the non-advanced dims of v, in order
  for (int k = 0; k < nd; ++k)
    if (std::find(ap.adv_dims.begin(), ap.adv_dims.end(), k) == ap.adv_dims.end())
      rest.push_back(k);
  Positions p;
  // Result dims: rest[0:first'] + bshape + rest[first':], where first' counts rest dims before.
  int before =
      adjacent ? int(std::count_if(rest.begin(), rest.end(), [&](int k) { return k < first; })) : 0;
  for (int j = 0; j < before; ++j) p.shape.push_back(v.shape[size_t(rest[size_t(j)])]);
  for (auto e : bshape) p.shape.push_back(e);
  for (size_t j = size_t(before); j < rest.size(); ++j) p.shape.push_back(v.shape[size_t(rest[j])]);
  const int rnd = int(p.shape.size());
  // index = broadcast(flat) + sum over rest dims of range(n) * pstride, recorded lazily.
  auto flat_h = from_numpy(flat_arr, false);
  p.index = new_array(DType::INT64, p.shape);
  if (p.index.size() == 0) return p;
  {
    View fv = flat_h->view; // place bshape dims at [before, before + len(bshape))
    View b;
    b.base = fv.base;
    b.offset = fv.offset;
    b.shape = p.shape;
    b.stride.assign(size_t(rnd), 0);
    for (size_t k = 0; k < bshape.size(); ++k) b.stride[size_t(before) + k] = fv.stride[k];
    record(Opcode::IDENTITY, {p.index.view, b});
  }
  for (size_t j = 0; j < rest.size(); ++j) {
    int rdim = int(j) < before ? int(j) : int(j + bshape.size());
    int64_t n = v.shape[size_t(rest[j])];
    if (n == 1) continue; // contributes 0
    Array r = new_array(DType::INT64, {n});
    record(Opcode::RANGE, {r.view});
    View b;
    b.base = r.view.base;
    b.shape = p.shape;
    b.stride.assign(size_t(rnd), 0);
    b.stride[size_t(rdim)] = 1;
    Array scaled = new_array(DType::INT64, p.shape);
    record(Opcode::MULTIPLY, {scaled.view, b, Scalar::of_int(pstride[size_t(rest[j])])});
    record(Opcode::ADD, {p.index.view, p.index.view, scaled.view});
  }
  return p;
}

// The constant a Python scalar becomes when assigned into an array of dtype t (a[key] = v).
// NumPy stores a Python int only when it fits (OverflowError), a Python float into an integer
// dtype as int(v) does (NaN: ValueError, inf: OverflowError; the integer must fit), and
// refuses a Python complex for a real dtype other than bool (TypeError). Other scalars (NumPy
// scalars, bools) are cast as arrays are.
Scalar assigned_constant(const Arg& a, DType t) {
  if (a.code == kWeakFloat && is_integer(t)) {
    double d = a.value.as_double();
    if (std::isnan(d)) raise_value_error("cannot convert float NaN to integer");
    if (std::isinf(d)) raise(PyExc_OverflowError, "cannot convert float infinity to integer");
    py::int_ i = py::reinterpret_steal<py::int_>(PyNumber_Long(py::float_(d).ptr()));
    if (!i) throw py::error_already_set();
    Arg as_int;
    as_int.code = kWeakInt;
    if (classify(i, as_int) != ArgStatus::ok)
      raise(PyExc_OverflowError, "Python int too large to convert to C long");
    auto c = constant_for_loop(as_int, t);
    if (!c) raise_int_out_of_bounds(as_int, t);
    return *c;
  }
  if (a.code == kWeakComplex && t != DType::BOOL && !is_complex(t))
    raise_type_error(std::string(is_integer(t) ? "int() argument must be a string, a bytes-like "
                                                 "object or a real number"
                                               : "float() argument must be a string or a real "
                                                 "number") +
                     ", not 'complex'");
  auto c = constant_for_loop(a, t);
  if (!c) raise_int_out_of_bounds(a, t);
  return *c;
}

// Reads the value to assign as an array of the target's dtype broadcast to `shape`; constants
// stay constants. Raises NumPy's errors for bad shapes and out-of-range Python ints.
Operand assign_source(py::handle value, DType t, const Dims& shape, const View& target,
                      std::vector<Array>& temps, bool fancy) {
  Arg a;
  ArgStatus st = classify(value, a);
  if (st != ArgStatus::ok) {
    py::object arr = np().attr("asarray")(value, numpy_dtype(t));
    if (classify(arr, a) != ArgStatus::ok)
      raise_type_error("cannot assign this value to a hassium array");
  }
  if (!a.is_array) return assigned_constant(a, t);
  // The value's array stays referenced until the caller has recorded the copy: a NumPy array
  // wrapped just now has no other owner, and its FREE (recorded when the last owner goes)
  // must come after the instruction that reads it.
  temps.push_back(a.array());
  View v = a.array().view;
  // NumPy drops leading 1-dims of a value with more dims than the target.
  while (v.ndim() > int(shape.size()) && v.shape[0] == 1) {
    v.shape.erase(v.shape.begin());
    v.stride.erase(v.stride.begin());
  }
  Dims shapes[2] = {v.shape, shape};
  Dims b;
  if (v.ndim() > int(shape.size()) || !shapes_broadcast(shapes, b) || b != shape) {
    if (fancy)
      raise_value_error("shape mismatch: value array of shape " + shape_text(a.array().shape()) +
                        " could not be broadcast to indexing result of shape " + shape_text(shape));
    raise_value_error("could not broadcast input array from shape " +
                      shape_text(a.array().shape()) + " into shape " + shape_text(shape));
  }
  // An overlapping value is copied first, except the target itself in a basic assignment (the
  // store of a[i] += b: nothing to do, record_copy skips it).
  if (v.dtype() != t ||
      (fancy ? overlaps(v, target) : frontend::must_copy_input(broadcast_view(v, shape), target))) {
    temps.push_back(copy_as(v, t));
    v = temps.back().view;
  }
  return broadcast_view(v, shape);
}

// A key of integers (Python ints, NumPy integer scalars) and slices only, at most one per dim
// (the keys of loops: a[i, j], a[i, :j], a[:j, j], a[i], a[1:], g[k, idx[a, b]]): the view it
// selects, as apply_key() would make it, without the general parse. `element`: an int for every dim
// (NumPy returns a scalar). False for any other key, and for ints beyond int64 (the general path
// takes those, with its errors).
bool basic_view(const View& in, PyObject* key, View& out, bool& element) {
  const std::span<PyObject* const> items = key_items(key);
  const auto n = Py_ssize_t(items.size());
  const int nd = in.ndim();
  if (n > nd) return false;
  // Each item an integer (a Python int, or a NumPy integer scalar: an element read of an index
  // array, G[k, neigh[a, b]]) or a slice.
  boost::container::small_vector<long long, 8> index(size_t(n), 0);
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* p = items[k];
    if (PyLong_CheckExact(p)) {
      int overflow = 0;
      index[size_t(k)] = PyLong_AsLongLongAndOverflow(p, &overflow);
      if (overflow) return false;
    } else if (!PySlice_Check(p)) {
      Scalar s;
      if (!exact_numpy_scalar_value(p, s) || !is_integer(s.dtype)) return false;
      if (is_unsigned_int(s.dtype) && s.u > uint64_t(INT64_MAX)) return false;
      index[size_t(k)] = is_unsigned_int(s.dtype) ? int64_t(s.u) : s.i;
    }
  }
  out.base = in.base;
  out.offset = in.offset;
  out.shape.clear();
  out.stride.clear();
  element = n == nd;
  for (int d = 0; d < int(n); ++d) {
    PyObject* p = items[d];
    const int64_t len = in.shape[size_t(d)], st = in.stride[size_t(d)];
    if (!PySlice_Check(p)) {
      out.offset += checked_index(index[size_t(d)], d, len) * st;
    } else {
      element = false;
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(p, &start, &stop, &step) < 0) throw py::error_already_set();
      const auto [first, m] = frontend::resolve_slice(start, stop, step, len);
      out.offset += first * st;
      out.shape.push_back(m);
      out.stride.push_back(step * st);
    }
  }
  for (int d = int(n); d < nd; ++d) {
    out.shape.push_back(in.shape[size_t(d)]);
    out.stride.push_back(in.stride[size_t(d)]);
  }
  return true;
}

// A key of one integer per dim (a[i, j]), each a Python int or a NumPy integer scalar (an
// element of an index array): the element's offset in the base. False for any other key
// (basic_view() and the general path take those, with their errors).
bool element_key(const View& in, PyObject* key, int64_t& offset) {
  const std::span<PyObject* const> items = key_items(key);
  const auto n = Py_ssize_t(items.size());
  if (n != in.ndim() || n == 0) return false;
  offset = in.offset;
  for (Py_ssize_t d = 0; d < n; ++d) {
    long long i = 0;
    if (PyLong_CheckExact(items[d])) {
      int overflow = 0;
      i = PyLong_AsLongLongAndOverflow(items[d], &overflow);
      if (overflow) return false;
    } else {
      if (PySlice_Check(items[d])) return false; // (a view: no need to ask NumPy's types)
      Scalar s;
      if (!exact_numpy_scalar_value(items[d], s) || !is_integer(s.dtype)) return false;
      if (is_unsigned_int(s.dtype) && s.u > uint64_t(INT64_MAX)) return false;
      i = is_unsigned_int(s.dtype) ? int64_t(s.u) : s.i;
    }
    offset += checked_index(i, int(d), in.shape[size_t(d)]) * in.stride[size_t(d)];
  }
  return true;
}

// a[i, j] (every dim an integer): the NumPy scalar of the element, read now when no pending
// instruction writes its array (values_ready()), or with [python] scalar_reads = flush when
// none writes the element itself, else after the flush that computes it; with scalar_reads =
// lazy and a write pending to the array, the lazy 0-d copy, computed by a later flush.
py::object element_at(const View& a, int64_t offset) {
  if (!values_ready(a.base)) {
    const View element{a.base, offset, {}, {}};
    if (!flush_scalar_reads()) return wrap(element_copy(element));
    sync_for_copy(element); // (no flush when no pending write reaches the element)
  }
  const DType t = a.dtype();
  return numpy_scalar(static_cast<const char*>(a.base->data) + offset * dtype_size(t), t);
}

// A write the frontend made into the base's memory itself: counted as record() counts one
// (hassium/_masked.py's check), and one an engine's device copy has not seen.
void note_host_write(Base& b) {
  ++b.generation;
  ++b.host_writes;
}

// a[i, j] = value for a constant value (a Python or NumPy scalar) when nothing pending reads or
// writes a's base (store_ready()): the value is stored into the memory at once, as NumPy's
// conversion makes it (assigned_constant(), with its errors), and nothing is recorded. False
// when the store must be recorded (an array value, or work pending on the base).
bool store_element(const View& a, int64_t offset, py::handle value) {
  if (!store_ready(a.base)) return false;
  Arg v;
  if (classify(value, v) != ArgStatus::ok || v.is_array) return false;
  Base& b = *a.base;
  const Scalar c = v.code == code_of(b.dtype) ? v.value : assigned_constant(v, b.dtype);
  c.store(static_cast<char*>(b.data) + offset * dtype_size(b.dtype));
  note_host_write(b);
  return true;
}

// target = value for a basic (view) target: a fill for a constant, else a copy (cast, broadcast,
// through a temporary on overlap).
void assign_basic(const View& target, py::handle value) {
  // The store of a[i, :j] += b: the value is the target itself, nothing to do.
  if (is_ndarray(value) && array_of(value).view.identical(target)) return;
  std::vector<Array> temps;
  Operand src = assign_source(value, target.dtype(), target.shape, target, temps, false);
  if (target.size() == 0) return;
  if (std::holds_alternative<Scalar>(src)) {
    record_fill(target, std::get<Scalar>(src));
  } else {
    record_copy(target, std::get<View>(src));
  }
}

// The lazy x[idx], x[idx] = v (and x[idx] op= v, which Python runs as both) for a hassium integer
// array idx of at least one dim on axis 0, alone or followed by Python ints and slices
// (x[idx, 2], x[idx, 1:]): nothing is flushed or read. The index normalization is recorded as
// element-wise ops that fuse (NumPy wraps negative indices once: where(idx < 0, idx + n, idx)),
// and the bounds are the engine's: GATHER/SCATTER check their indices when the flush runs, and
// an index out of bounds surfaces then as NumPy's IndexError (bind_errors.cpp turns the engine's
// index and bound back into the user's index: the wrap is undone for one still negative).
struct LazyIndex {
  View view;     // x with the key's other items applied; idx runs over its axis 0
  Dims shape;    // of the result: idx.shape + view.shape[1:]
  Array pos;     // int64 row-major positions within `view`, of `shape` (lazy_positions())
  View pos_view; // pos, or the wrapped indices read as `shape` when a row is one element
  const Array* idx = nullptr;
  // Elements of the result.
  int64_t size() const {
    return std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<int64_t>());
  }
};

bool lazy_index(const View& in, py::handle key, LazyIndex& li) {
  PyObject* k = key.ptr();
  PyObject* first = k;
  Py_ssize_t n = 1;
  if (PyTuple_CheckExact(k)) {
    n = PyTuple_GET_SIZE(k);
    if (n == 0) return false;
    first = PyTuple_GET_ITEM(k, 0);
  }
  if (in.ndim() < 1 || n > in.ndim() || !is_ndarray(first)) return false;
  const Array& idx = array_of(first);
  if (idx.ndim() < 1 || !is_integer(idx.dtype())) return false;
  if (n == 1) {
    li.view = in;
  } else {
    // The other items on dims 1..: basic_view of (:, items...) (its errors name their axis).
    py::tuple rest(n);
    rest[0] = py::reinterpret_steal<py::object>(PySlice_New(nullptr, nullptr, nullptr));
    for (Py_ssize_t i = 1; i < n; ++i) {
      PyObject* p = PyTuple_GET_ITEM(k, i);
      if (!PyLong_CheckExact(p) && !PySlice_Check(p)) return false;
      rest[size_t(i)] = py::reinterpret_borrow<py::object>(p);
    }
    bool element = false;
    if (!basic_view(in, rest.ptr(), li.view, element)) return false;
  }
  int64_t row = 1; // elements per index: the product of view.shape[1:]
  li.shape = idx.shape();
  for (size_t d = 1; d < li.view.shape.size(); ++d) {
    row *= li.view.shape[d];
    li.shape.push_back(li.view.shape[d]);
  }
  // An empty row with indices: no element is read, yet NumPy checks the indices (the general
  // path does, eagerly).
  if (row == 0 && idx.size() > 0) return false;
  li.idx = &idx;
  return true;
}

// Records the positions of li (only when the result has elements): li.pos, li.pos_view.
void lazy_positions(LazyIndex& li) {
  const Array& idx = *li.idx;
  const Dims& ishape = idx.shape();
  const int64_t n = li.view.shape[0];
  const size_t rest = li.shape.size() - ishape.size();
  // j: the indices as int64, negative ones wrapped once.
  Array j;
  if (is_unsigned_int(idx.dtype())) {
    j = copy_as(idx.view, DType::INT64);
  } else {
    Array i64 = idx.dtype() == DType::INT64 ? idx : copy_as(idx.view, DType::INT64);
    Array neg = new_array(DType::BOOL, ishape);
    record(Opcode::LESS, {neg.view, i64.view, Scalar::of_int(0)});
    Array wrapped = new_array(DType::INT64, ishape);
    record(Opcode::ADD, {wrapped.view, i64.view, Scalar::of_int(n)});
    j = new_array(DType::INT64, ishape);
    record(Opcode::WHERE, {j.view, neg.view, wrapped.view, i64.view});
  }
  // j read as the result's shape: the row dims broadcast.
  View jb = j.view;
  for (size_t d = 0; d < rest; ++d) {
    jb.shape.push_back(li.shape[ishape.size() + d]);
    jb.stride.push_back(0);
  }
  int64_t row = 1;
  for (size_t d = 0; d < rest; ++d) row *= li.shape[ishape.size() + d];
  if (row == 1) { // the GATHER/SCATTER's own check is against n
    li.pos = j;
    li.pos_view = jb;
    return;
  }
  // Positions j * row + (position within the row). The engine would check those against
  // n * row; so first j itself is checked against n, by a GATHER of a zero read as n elements
  // (stride 0), whose zeros are added to j.
  Array zero = new_array(DType::INT64, {});
  record_fill(zero.view, Scalar::of_int(0));
  View zn = zero.view;
  zn.shape = {n};
  zn.stride = {0};
  Array chk = new_array(DType::INT64, ishape);
  record(Opcode::GATHER, {chk.view, zn, j.view});
  record(Opcode::ADD, {j.view, j.view, chk.view});
  Dims rshape(li.shape.begin() + std::ptrdiff_t(ishape.size()), li.shape.end());
  Array r = new_array(DType::INT64, rshape);
  record(Opcode::RANGE, {r.view});
  li.pos = new_array(DType::INT64, li.shape);
  record(Opcode::MULTIPLY, {li.pos.view, jb, Scalar::of_int(row)});
  record(Opcode::ADD, {li.pos.view, li.pos.view, broadcast_view(r.view, li.shape)});
  li.pos_view = li.pos.view;
}

// NumPy's rule for a[mask] = value with a mask of a's dims: the value has 0 or 1 dims, and one
// element or one per True element of the mask.
void check_mask_assignment(py::handle value, int64_t count) {
  Arg v;
  int nd = 0;
  int64_t size = 1;
  if (classify(value, v) == ArgStatus::ok) {
    if (v.is_array) {
      nd = v.array().ndim();
      size = v.array().size();
    }
  } else {
    py::array arr = np().attr("asarray")(value);
    nd = int(arr.ndim());
    size = int64_t(arr.size());
  }
  if (nd > 1)
    raise_type_error("NumPy boolean array indexing assignment requires a 0 or 1-dimensional "
                     "input, input has " +
                     std::to_string(nd) + " dimensions");
  if (nd == 1 && size != count && size != 1)
    raise_value_error("NumPy boolean array indexing assignment cannot assign " +
                      std::to_string(size) + " input values to the " + std::to_string(count) +
                      " output values where the mask is true");
}

PyObject* g_masked_type = nullptr; // hassium._masked.MaskedSelection (kept for the process)

// A hassium bool array of a's shape (at least one dim, some element) as the whole key: the key
// of a lazy selection.
const Array* selection_mask(const Array& a, py::handle key) {
  if (!g_masked_type || !is_ndarray(key)) return nullptr;
  const Array& m = array_of(key);
  if (m.dtype() != DType::BOOL || m.ndim() == 0 || m.shape() != a.shape() || a.size() == 0)
    return nullptr;
  return &m;
}

// a[mask] = selection as one masked assignment, when the selection is still lazy, was taken
// under this very mask (the same array, not written since) and has a's shape.
bool assign_selection(const Array& a, py::handle key, py::handle sel) {
  const Array* m = selection_mask(a, key);
  if (!m || !sel.attr("_lazy")().cast<bool>()) return false;
  if (sel.attr("_source").ptr() != key.ptr() ||
      sel.attr("_generation").cast<uint64_t>() != m->view.base->generation)
    return false;
  const Array& full = array_of(sel.attr("_full"));
  if (full.shape() != a.shape()) return false;
  const Array& mask = array_of(sel.attr("_mask"));
  std::vector<Array> temps;
  View src = full.view;
  if (full.dtype() != a.dtype()) { // NumPy casts what it assigns
    temps.push_back(copy_as(src, a.dtype()));
    src = temps.back().view;
  }
  record(Opcode::WHERE, {a.view, mask.view, src, a.view});
  return true;
}

// NumPy's result of an indexing done at once (a compress, a gather) as a hassium array over its
// memory (no copy): a fresh NumPy array of a's dtype.
py::object wrap_computed(const Array& a, py::handle values) {
  std::optional<Array> out = from_numpy(py::reinterpret_borrow<py::array>(values), false);
  HS_INTERNAL_ASSERT(out) << "an indexed " << dtype_name(a.dtype()) << " array";
  return wrap(std::move(*out));
}

} // namespace

void set_masked_type(py::object type) {
  Py_XDECREF(g_masked_type);
  g_masked_type = type.release().ptr();
}

bool is_masked_selection(py::handle obj) {
  return g_masked_type && reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr())) == g_masked_type;
}

py::object materialize(py::handle selection) {
  return selection.attr("_get")();
}

// a[mask] at once for a bool mask of a's shape (a hassium array, or NumPy's wrapped without a
// copy): the mask and a are made current (a flush only when a write to them is pending), and the
// selected elements are copied on the host into memory from the backend's pool (a program that
// compresses smaller arrays every iteration reuses the blocks of the larger ones: no page
// faults, no NumPy temporaries).
py::object take_mask(const Array& a, py::handle mask) {
  std::optional<Array> m;
  if (is_ndarray(mask)) {
    const Array& ma = array_of(mask);
    if (ma.dtype() == DType::BOOL && ma.shape() == a.shape()) m = ma;
  } else if (py::isinstance<py::array>(mask)) {
    py::array na = py::reinterpret_borrow<py::array>(mask);
    if (na.dtype().kind() == 'b' && na.ndim() == a.view.ndim() &&
        std::equal(a.view.shape.begin(), a.view.shape.end(), na.shape()))
      m = from_numpy(na, false);
  }
  if (!m) return getitem_general(a, mask);
  if (a.ndim() == 0) // a[True], a[False]: NumPy's new axis of length 1 or 0
    return wrap_computed(a, to_numpy(a)[to_numpy(*m)]);
  sync_for_copy(m->view);
  sync_for_copy(a.view);
  const int64_t count = frontend::count_selected(m->view);
  Array out = new_array(a.dtype(), {count});
  if (count == 0) return wrap(std::move(out));
  Base& b = *out.view.base;
  Runtime::instance().allocate_host(b);
  frontend::compress(a.view, m->view, b.data, count);
  note_host_write(b);
  return wrap(std::move(out));
}

py::object getitem_general(const Array& a, py::handle key) {
  bool ell = false;
  Applied ap = apply_key(a.view, parse_key(key), ell);
  if (ap.adv.empty()) {
    if (ap.view.ndim() == 0 && !ap.has_ellipsis && ap.only_integers)
      return element_at(ap.view, ap.view.offset);
    return wrap(view_of(a, ap.view));
  }
  Positions p = positions(ap);
  Array out = new_array(a.dtype(), p.shape);
  if (out.size() > 0) record(Opcode::GATHER, {out.view, ap.view, p.index.view});
  return wrap(std::move(out));
}

py::object getitem(const Array& a, py::handle key) {
  int64_t offset = 0;
  if (element_key(a.view, key.ptr(), offset)) return element_at(a.view, offset);
  View v;
  bool element = false;
  if (basic_view(a.view, key.ptr(), v, element)) {
    if (!element) return wrap(view_of(a, std::move(v)));
    return element_at(v, v.offset);
  }
  LazyIndex li;
  if (lazy_index(a.view, key, li)) {
    // A small gather whose values are all computed: done now, on the host (a dot or an element
    // read of it then needs no flush); a bad index is NumPy's IndexError at once, from NumPy.
    const int64_t size = li.size();
    if (size > 0 && size <= eager_max_elements() && values_ready(li.idx->view) &&
        values_ready(li.view)) {
      Array out = new_array(a.dtype(), li.shape);
      Base& b = *out.view.base;
      Runtime::instance().allocate_host(b);
      if (frontend::gather_rows(li.view, li.idx->view, b.data)) {
        note_host_write(b);
        return wrap(std::move(out));
      }
      return wrap_computed(a, borrowed_numpy_view(li.view)[borrowed_numpy_view(li.idx->view)]);
    }
    Array out = new_array(a.dtype(), li.shape);
    if (out.size() == 0) return wrap(std::move(out));
    lazy_positions(li);
    record(Opcode::GATHER, {out.view, li.view, li.pos_view});
    return wrap(std::move(out));
  }
  // a[mask] with a mask of a's shape: a lazy selection of private copies of a and the mask.
  if (const Array* m = selection_mask(a, key)) {
    Array full = copy_as(a.view, a.dtype());
    Array mask = copy_as(m->view, DType::BOOL);
    const uint64_t generation = m->view.base->generation;
    const uint64_t a_generation = a.view.base->generation;
    return py::reinterpret_borrow<py::object>(g_masked_type)(
        wrap(std::move(full)), wrap(std::move(mask)), key, generation, wrap(view_of(a, a.view)),
        a_generation);
  }
  return getitem_general(a, key);
}

void setitem(const Array& a, py::handle key, py::handle value) {
  if (is_masked_selection(value)) {
    if (assign_selection(a, key, value)) return;
    return setitem(a, key, materialize(value));
  }
  int64_t offset = 0;
  if (element_key(a.view, key.ptr(), offset) && store_element(a.view, offset, value)) return;
  View target;
  bool element = false;
  if (basic_view(a.view, key.ptr(), target, element)) return assign_basic(target, value);
  LazyIndex li;
  if (lazy_index(a.view, key, li)) {
    std::vector<Array> temps;
    Operand src = assign_source(value, a.dtype(), li.shape, li.view, temps, true);
    if (li.size() == 0) return;
    if (std::holds_alternative<Scalar>(src)) { // SCATTER reads an array: a broadcast 0-d one
      Array c = new_array(a.dtype(), {});
      record_fill(c.view, std::get<Scalar>(src));
      temps.push_back(c);
      src = broadcast_view(c.view, li.shape);
    }
    lazy_positions(li);
    record(Opcode::SCATTER, {li.view, std::get<View>(src), li.pos_view});
    return;
  }
  Items items = parse_key(key);
  // a[mask] = scalar with a mask of a's shape: a lazy masked assignment, a = where(mask, v, a),
  // element-wise (it fuses with what computes the mask and what reads a), no flush.
  if (items.size() == 1 && items[0].kind == Item::mask && items[0].lazy_mask &&
      items[0].lazy_mask->shape() == a.shape()) {
    Arg v;
    if (classify(value, v) == ArgStatus::ok && (!v.is_array || v.array().size() == 1)) {
      std::vector<Array> temps;
      Operand src;
      if (v.is_array) {
        View vv = v.array().view;
        vv.shape.clear();
        vv.stride.clear();
        if (v.array().dtype() != a.dtype() || overlaps(vv, a.view)) {
          temps.push_back(copy_as(vv, a.dtype()));
          vv = temps.back().view;
        }
        src = broadcast_view(vv, a.shape());
      } else {
        src = assigned_constant(v, a.dtype());
      }
      if (a.size() == 0) return;
      View mask = items[0].lazy_mask->view;
      if (frontend::must_copy_input(mask, a.view)) {
        temps.push_back(copy_as(mask, DType::BOOL));
        mask = temps.back().view;
      }
      record(Opcode::WHERE, {a.view, mask, src, a.view});
      return;
    }
  }
  const bool full_mask =
      items.size() == 1 && items[0].kind == Item::mask && consumed(items[0]) == a.ndim();
  bool ell = false;
  Applied ap = apply_key(a.view, std::move(items), ell);
  std::vector<Array> temps;
  if (ap.adv.empty()) return assign_basic(ap.view, value);
  Positions p = positions(ap);
  if (full_mask) check_mask_assignment(value, p.shape.empty() ? 1 : p.shape[0]);
  Operand src = assign_source(value, a.dtype(), p.shape, ap.view, temps, true);
  if (p.index.size() == 0) return;
  if (std::holds_alternative<Scalar>(src)) {
    // SCATTER wants an array input: a broadcast 0-d array of the value.
    Array c = new_array(a.dtype(), {});
    record_fill(c.view, std::get<Scalar>(src));
    temps.push_back(c);
    src = broadcast_view(c.view, p.shape);
  }
  record(Opcode::SCATTER, {ap.view, std::get<View>(src), p.index.view});
}

void accumulate_at(const Array& a, py::handle key, Opcode at_op, py::handle value) {
  const std::optional<Opcode> combiner = at_combiner(at_op);
  HS_INTERNAL_ASSERT(combiner) << op_name(at_op) << " is not an accumulation";
  std::vector<Array> temps;
  // The value as the accumulation reads it: an array of a's dtype with the indexed shape (a
  // constant becomes a broadcast 0-d array, as for SCATTER).
  auto source = [&](const Dims& shape, const View& target) {
    Arg v;
    if (classify(value, v) == ArgStatus::ok && v.is_array) {
      Dims vs = v.array().shape();
      while (vs.size() > shape.size() && vs.front() == 1) vs.erase(vs.begin());
      Dims both[2] = {vs, shape}, b;
      if (vs.size() > shape.size() || !shapes_broadcast(both, b) || b != shape)
        raise_value_error("array is not broadcastable to correct shape");
    }
    Operand src = assign_source(value, a.dtype(), shape, target, temps, true);
    if (std::holds_alternative<Scalar>(src)) {
      Array c = new_array(a.dtype(), {});
      record_fill(c.view, std::get<Scalar>(src));
      temps.push_back(c);
      src = broadcast_view(c.view, shape);
    }
    return std::get<View>(src);
  };
  LazyIndex li;
  if (lazy_index(a.view, key, li)) {
    const View src = source(li.shape, li.view);
    if (li.size() == 0) return;
    lazy_positions(li);
    record(at_op, {li.view, src, li.pos_view});
    return;
  }
  bool ell = false;
  Applied ap = apply_key(a.view, parse_key(key), ell);
  if (ap.adv.empty()) { // a view: every position once
    const View src = source(ap.view.shape, ap.view);
    if (ap.view.size() == 0) return;
    if (*combiner != Opcode::MULTIPLY || !is_complex(a.dtype())) {
      record(*combiner, {ap.view, ap.view, src});
      return;
    }
    // NumPy's indexed complex product rounds each of its four products (no fused
    // multiply-add, which the element-wise product uses): the accumulation at every position.
    Array positions = new_array(DType::INT64, ap.view.shape);
    record(Opcode::RANGE, {positions.view});
    record(at_op, {ap.view, src, positions.view});
    return;
  }
  Positions p = positions(ap);
  const View src = source(p.shape, ap.view);
  if (p.index.size() > 0) record(at_op, {ap.view, src, p.index.view});
}

} // namespace hassium::python
