// NumPy broadcasting: shapes folded together, stride-0 views of a broadcast shape.
#include "bridge/common/broadcast.h"

#include <cassert>

namespace hassium::frontend {

bool broadcast_into(Dims& acc, Extents shape) {
  if (shape.size() > acc.size()) acc.insert(acc.begin(), shape.size() - acc.size(), 1);
  const size_t off = acc.size() - shape.size();
  for (size_t k = 0; k < shape.size(); ++k) {
    const int64_t e = shape[k];
    int64_t& o = acc[off + k];
    if (e == o || e == 1) continue;
    if (o != 1) return false;
    o = e;
  }
  return true;
}

bool broadcast_strides(Extents shape, Extents stride, Extents to, Dims& out) {
  if (shape.size() > to.size()) return false;
  out.assign(to.size(), 0);
  const size_t off = to.size() - shape.size();
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == to[off + k])
      out[off + k] = stride[k];
    else if (shape[k] != 1)
      return false;
  }
  return true;
}

View broadcast_view(const View& v, const Dims& shape) {
  if (v.shape == shape) return v;
  View r;
  r.base = v.base;
  r.offset = v.offset;
  r.shape = shape;
  [[maybe_unused]] bool ok =
      broadcast_strides(extents(v.shape), extents(v.stride), extents(shape), r.stride);
  assert(ok);
  return r;
}

} // namespace hassium::frontend
