// Array helpers: fresh arrays, broadcasting, no-copy reshape, copies with NumPy's overlap rule.
#include "bridge/python/array.h"

#include <cstring>
#include <numeric>

#include "bridge/python/errors.h"

namespace hassium::python {

void raise_axis_error(int64_t axis, int ndim) {
  static PyObject* axis_error = [] {
    py::object e = py::module_::import("numpy.exceptions").attr("AxisError");
    return e.release().ptr();
  }();
  raise(axis_error, "axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                        std::to_string(ndim));
}

std::string shape_text(const Dims& d) {
  std::string s = "(";
  for (size_t k = 0; k < d.size(); ++k) s += (k ? "," : "") + std::to_string(d[k]);
  return s + (d.size() == 1 ? ",)" : ")");
}

Array new_array(DType t, const Dims& shape) {
  int64_t n = 1;
  for (auto e : shape) n *= e;
  OwnerPtr owner = new_base(t, n);
  View v = View::contiguous(owner->base, shape);
  return Array{std::move(owner), std::move(v), false};
}

bool shapes_broadcast(std::span<const Dims> shapes, Dims& out) {
  size_t nd = 0;
  for (const auto& s : shapes) nd = std::max(nd, s.size());
  out.assign(nd, 1);
  for (const auto& s : shapes) {
    size_t off = nd - s.size();
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t e = s[k];
      int64_t& o = out[off + k];
      if (e == o || e == 1) continue;
      if (o == 1) {
        o = e;
        continue;
      }
      return false;
    }
  }
  return true;
}

Dims broadcast_shapes(std::span<const Dims> shapes) {
  Dims out;
  if (shapes_broadcast(shapes, out)) return out;
  std::string msg = "operands could not be broadcast together with shapes ";
  for (const auto& s : shapes) msg += shape_text(s) + " ";
  raise_value_error(msg);
}

View broadcast_view(const View& v, const Dims& shape) {
  if (v.shape == shape) return v;
  View r;
  r.base = v.base;
  r.offset = v.offset;
  r.shape = shape;
  r.stride.assign(shape.size(), 0);
  size_t off = shape.size() - v.shape.size();
  for (size_t k = 0; k < v.shape.size(); ++k)
    r.stride[off + k] = (v.shape[k] == shape[off + k]) ? v.stride[k] : 0;
  return r;
}

bool reshape_strides(const View& v, const Dims& shape, Dims& stride) {
  stride.assign(shape.size(), 0);
  int64_t size = v.size();
  if (size == 0) { // any strides describe no elements; use contiguous ones
    int64_t s = 1;
    for (size_t k = shape.size(); k-- > 0;) {
      stride[k] = s;
      s *= std::max<int64_t>(shape[k], 1);
    }
    return true;
  }
  // The old dims without extent-1 ones.
  Dims os, ost;
  for (size_t k = 0; k < v.shape.size(); ++k)
    if (v.shape[k] != 1) {
      os.push_back(v.shape[k]);
      ost.push_back(v.stride[k]);
    }
  size_t oi = 0, ni = 0;
  const size_t on = os.size(), nn = shape.size();
  while (ni < nn && oi < on) {
    if (shape[ni] == 1) { // a new extent-1 dim: any stride
      stride[ni] = 0;
      ++ni;
      continue;
    }
    size_t oj = oi + 1, nj = ni + 1;
    int64_t np_ = shape[ni], op = os[oi];
    while (np_ != op) {
      if (np_ < op) {
        if (nj >= nn) return false;
        np_ *= shape[nj++];
      } else {
        if (oj >= on) return false;
        op *= os[oj++];
      }
    }
    // The old dims oi..oj-1 must form one C-ordered progression.
    for (size_t k = oi; k + 1 < oj; ++k)
      if (ost[k] != os[k + 1] * ost[k + 1]) return false;
    // The new dims ni..nj-1 split it in C order.
    stride[nj - 1] = ost[oj - 1];
    for (size_t k = nj - 1; k > ni; --k) stride[k - 1] = stride[k] * shape[k];
    ni = nj;
    oi = oj;
  }
  for (; ni < nn; ++ni) {
    if (shape[ni] != 1) return false;
    stride[ni] = 0;
  }
  return oi == on;
}

namespace {
// NumPy's text of a requested shape in reshape's size error (convert_shape_to_string): no
// spaces, leading unknown (negative) dims left out, later ones as "newaxis".
std::string requested_shape_text(std::span<const int64_t> shape) {
  size_t k = 0;
  while (k < shape.size() && shape[k] < 0) ++k;
  if (k == shape.size()) return "()";
  std::string s = "(" + std::to_string(shape[k++]);
  for (; k < shape.size(); ++k) s += shape[k] < 0 ? ",newaxis" : "," + std::to_string(shape[k]);
  return s + (shape.size() == 1 ? ",)" : ")");
}
} // namespace

Dims reshape_target(int64_t size, std::span<const int64_t> shape) {
  // As NumPy: any negative dim is the unknown one.
  Dims out(shape.begin(), shape.end());
  int unknown = -1;
  int64_t known = 1;
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k] < 0) {
      if (unknown >= 0) raise_value_error("can only specify one unknown dimension");
      unknown = int(k);
    } else {
      known *= out[k];
    }
  }
  if (unknown >= 0 ? (known == 0 || size % known != 0) : known != size)
    raise_value_error("cannot reshape array of size " + std::to_string(size) + " into shape " +
                      requested_shape_text(shape));
  if (unknown >= 0) out[size_t(unknown)] = size / known;
  return out;
}

View permute(const View& v, std::span<const int> axes) {
  View r = v;
  for (size_t k = 0; k < axes.size(); ++k) {
    r.shape[k] = v.shape[size_t(axes[k])];
    r.stride[k] = v.stride[size_t(axes[k])];
  }
  return r;
}

int normalize_axis(int64_t axis, int ndim) {
  if (axis < -ndim || axis >= ndim) raise_axis_error(axis, ndim);
  return int(axis < 0 ? axis + ndim : axis);
}

void record_copy(const View& out, const View& in) {
  View src = broadcast_view(in, out.shape);
  if (out.size() == 0) return;
  if (src.identical(out)) return; // a copy onto itself
  if (overlaps(src, out)) {
    Array tmp = copy_as(in, in.dtype());
    record(Opcode::IDENTITY, operands(out, broadcast_view(tmp.view, out.shape)));
    return;
  }
  record(Opcode::IDENTITY, operands(out, std::move(src)));
}

void record_fill(const View& out, const Scalar& value) {
  if (out.size() == 0) return;
  record(Opcode::IDENTITY, operands(out, value.cast(out.dtype())));
}

Array copy_as(const View& v, DType t) {
  Array r = new_array(t, v.shape);
  if (v.size() > 0) record(Opcode::IDENTITY, operands(r.view, v));
  return r;
}

Array element_copy(const View& v) {
  Array r = copy_as(v, v.dtype());
  r.scalar = true;
  return r;
}

Array contiguous(const Array& a) {
  if (a.view.offset == 0 && a.view.is_contiguous() && a.size() == a.view.base->nelem) return a;
  return copy_as(a.view, a.dtype());
}

} // namespace hassium::python
