// Array helpers: fresh arrays, copies; broadcasting and reshape with NumPy's messages.
#include "bridge/python/array.h"

#include <cstring>
#include <numeric>

#include "bridge/common/overlap.h"
#include "bridge/common/views.h"
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
  return dims_text(d, ",");
}

Array new_array(DType t, const Dims& shape) {
  int64_t n = 1;
  for (auto e : shape) n *= e;
  OwnerPtr owner = new_base(t, n);
  View v = View::contiguous(owner->base, shape);
  return Array{std::move(owner), std::move(v), false};
}

bool shapes_broadcast(std::span<const Dims> shapes, Dims& out) {
  out.clear();
  for (const auto& d : shapes)
    if (!frontend::broadcast_into(out, frontend::extents(d))) return false;
  return true;
}

Dims broadcast_shapes(std::span<const Dims> shapes) {
  Dims out;
  if (shapes_broadcast(shapes, out)) return out;
  std::string msg = "operands could not be broadcast together with shapes ";
  for (const auto& s : shapes) msg += shape_text(s) + " ";
  raise_value_error(msg);
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
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k] >= 0) continue;
    if (unknown >= 0) raise_value_error("can only specify one unknown dimension");
    unknown = int(k);
  }
  if (!frontend::fill_unknown_extent(size, out, unknown))
    raise_value_error("cannot reshape array of size " + std::to_string(size) + " into shape " +
                      requested_shape_text(shape));
  return out;
}

int normalize_axis(int64_t axis, int ndim) {
  auto a = frontend::normalize_axis(axis, ndim);
  if (!a) raise_axis_error(axis, ndim);
  return *a;
}

void record_copy(const View& out, const View& in) {
  View src = broadcast_view(in, out.shape);
  if (out.size() == 0) return;
  if (src.identical(out)) return; // a copy onto itself
  if (frontend::must_copy_input(src, out)) {
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
