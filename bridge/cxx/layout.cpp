// Views without data movement: indexing and slicing, transpose, reshape, broadcasting.
#include <algorithm>

#include "bridge/common/broadcast.h"
#include "bridge/common/views.h"
#include "bridge/cxx/session.h"
#include "core/error.h"

namespace hassium::detail {

namespace {
// NumPy's slice semantics on an axis of n elements (bridge/common/views.h), with bounds
// outside [-n, n] an error. Returns (first index, count).
frontend::SliceRange resolve_slice(const slice& s, int64_t n, int axis) {
  if (s.step == 0) HS_USER_ERROR() << "slice step cannot be zero (axis " << axis << ")";
  auto bound = [&](const std::optional<int64_t>& b, const char* what, int64_t omitted) {
    if (!b) return omitted;
    if (*b < -n || *b > n)
      HS_USER_ERROR() << "slice " << what << " " << *b << " is out of range for axis " << axis
                      << " with size " << n;
    return *b;
  };
  return frontend::resolve_slice(bound(s.start, "start", frontend::omitted_start(s.step)),
                                 bound(s.stop, "stop", frontend::omitted_stop(s.step)), s.step, n);
}
} // namespace

node view(const node& in, std::span<const index> indices) {
  int used = 0;
  for (const index& ix : indices) used += ix.what() != index::kind::newaxis;
  if (used > in.ndim())
    HS_USER_ERROR() << "too many indices for array: array is " << in.ndim() << "-dimensional, but "
                    << used << " were indexed (shape " << shape_text(in.shape) << ")";
  node r;
  r.base = in.base;
  r.dtype = in.dtype;
  r.offset = in.offset;
  int axis = 0;
  for (const index& ix : indices) {
    switch (ix.what()) {
    case index::kind::newaxis:
      r.shape.push_back(1);
      r.stride.push_back(0);
      continue;
    case index::kind::all:
      r.shape.push_back(in.shape[size_t(axis)]);
      r.stride.push_back(in.stride[size_t(axis)]);
      break;
    case index::kind::integer: {
      int64_t n = in.shape[size_t(axis)], i = ix.integer();
      auto at = frontend::normalize_index(i, n);
      if (!at)
        HS_USER_ERROR() << "index " << i << " is out of bounds for axis " << axis << " with size "
                        << n << " (shape " << shape_text(in.shape) << ")";
      r.offset += *at * in.stride[size_t(axis)];
      break;
    }
    case index::kind::range: {
      auto [first, count] = resolve_slice(ix.range(), in.shape[size_t(axis)], axis);
      r.offset += first * in.stride[size_t(axis)];
      r.shape.push_back(count);
      r.stride.push_back(in.stride[size_t(axis)] * ix.range().step);
      break;
    }
    }
    ++axis;
  }
  for (; axis < in.ndim(); ++axis) {
    r.shape.push_back(in.shape[size_t(axis)]);
    r.stride.push_back(in.stride[size_t(axis)]);
  }
  return r;
}

node transpose(const node& in) {
  node r = in;
  std::reverse(r.shape.begin(), r.shape.end());
  std::reverse(r.stride.begin(), r.stride.end());
  return r;
}

node transpose(const node& in, std::span<const int> axes) {
  std::vector<int> perm;
  for (int a : axes) perm.push_back(a < 0 ? a + in.ndim() : a);
  if (!frontend::is_permutation(perm, in.ndim())) {
    std::string list;
    for (int a : axes) list += (list.empty() ? "" : ", ") + std::to_string(a);
    HS_USER_ERROR() << "axes (" << list << ") are not a permutation of the " << in.ndim()
                    << " axes of an array of shape " << shape_text(in.shape);
  }
  return with_view(in, frontend::permute(to_view(in), perm));
}

bool is_contiguous(const node& in) {
  return to_view(in).is_contiguous();
}

node reshape(const node& in, const shape_type& shape) {
  Dims want(shape.begin(), shape.end());
  int infer = -1;
  for (size_t k = 0; k < want.size(); ++k) {
    if (want[k] == -1 && infer < 0)
      infer = int(k);
    else if (want[k] < 0)
      HS_USER_ERROR() << "cannot reshape array of shape " << shape_text(in.shape) << " into shape "
                      << shape_text(shape) << ": bad extent " << want[k];
  }
  if (!frontend::fill_unknown_extent(in.size(), want, infer))
    HS_USER_ERROR() << "cannot reshape array of size " << in.size() << " into shape "
                    << shape_text(shape);
  node src = is_contiguous(in) ? in : copy(in);
  View v = to_view(src);
  v.shape = want;
  frontend::contiguous_strides(frontend::extents(want), v.stride);
  return with_view(src, v);
}

shape_type broadcast_shapes(const shape_type& a, const shape_type& b) {
  Dims r;
  if (!frontend::broadcast_into(r, a) || !frontend::broadcast_into(r, b))
    HS_USER_ERROR() << "operands could not be broadcast together with shapes " << shape_text(a)
                    << " " << shape_text(b);
  return shape_type(r.begin(), r.end());
}

node broadcast_to(const node& in, const shape_type& shape) {
  if (in.shape == shape) return in;
  Dims stride;
  if (!frontend::broadcast_strides(in.shape, in.stride, shape, stride))
    HS_USER_ERROR() << "cannot broadcast an array of shape " << shape_text(in.shape) << " to shape "
                    << shape_text(shape);
  node r = in;
  r.shape = shape;
  r.stride.assign(stride.begin(), stride.end());
  return r;
}

int64_t element_index(const node& in, std::span<const int64_t> idx) {
  if (int(idx.size()) != in.ndim())
    HS_USER_ERROR() << "element access needs " << in.ndim() << " indices for an array of shape "
                    << shape_text(in.shape) << ", got " << idx.size();
  int64_t at = in.offset;
  for (size_t k = 0; k < idx.size(); ++k) {
    int64_t n = in.shape[k], i = idx[k];
    auto pos = frontend::normalize_index(i, n);
    if (!pos)
      HS_USER_ERROR() << "index " << i << " is out of bounds for axis " << k << " with size " << n
                      << " (shape " << shape_text(in.shape) << ")";
    at += *pos * in.stride[k];
  }
  return at;
}

} // namespace hassium::detail
