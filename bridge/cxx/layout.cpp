// Views without data movement: indexing and slicing, transpose, reshape, broadcasting.
#include <algorithm>
#include <numeric>

#include "bridge/cxx/session.h"
#include "core/error.h"

namespace hassium::detail {

namespace {
// NumPy's slice semantics on an axis of n elements, with bounds outside [-n, n] an error.
// Returns (first index, count).
std::pair<int64_t, int64_t> resolve_slice(const slice& s, int64_t n, int axis) {
  if (s.step == 0) HS_USER_ERROR() << "slice step cannot be zero (axis " << axis << ")";
  auto bound = [&](const std::optional<int64_t>& b, const char* what) {
    if (*b < -n || *b > n)
      HS_USER_ERROR() << "slice " << what << " " << *b << " is out of range for axis " << axis
                      << " with size " << n;
    return *b < 0 ? *b + n : *b;
  };
  int64_t start, stop, count;
  if (s.step > 0) {
    start = s.start ? bound(s.start, "start") : 0;
    stop = s.stop ? bound(s.stop, "stop") : n;
    count = stop > start ? (stop - start + s.step - 1) / s.step : 0;
  } else {
    start = s.start ? std::min(bound(s.start, "start"), n - 1) : n - 1;
    stop = s.stop ? bound(s.stop, "stop") : -1;
    count = start > stop ? (start - stop - s.step - 1) / -s.step : 0;
  }
  return {count > 0 ? start : 0, count};
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
      if (i < -n || i >= n)
        HS_USER_ERROR() << "index " << i << " is out of bounds for axis " << axis << " with size "
                        << n << " (shape " << shape_text(in.shape) << ")";
      r.offset += (i < 0 ? i + n : i) * in.stride[size_t(axis)];
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
  std::vector<int> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> expect(size_t(in.ndim()));
  std::iota(expect.begin(), expect.end(), 0);
  if (sorted != expect) {
    std::string list;
    for (int a : axes) list += (list.empty() ? "" : ", ") + std::to_string(a);
    HS_USER_ERROR() << "axes (" << list << ") are not a permutation of the " << in.ndim()
                    << " axes of an array of shape " << shape_text(in.shape);
  }
  node r = in;
  for (size_t k = 0; k < perm.size(); ++k) {
    r.shape[k] = in.shape[size_t(perm[k])];
    r.stride[k] = in.stride[size_t(perm[k])];
  }
  return r;
}

bool is_contiguous(const node& in) {
  int64_t s = 1;
  for (size_t k = in.shape.size(); k-- > 0;) {
    if (in.shape[k] != 1 && in.stride[k] != s) return false;
    s *= in.shape[k];
  }
  return true;
}

node reshape(const node& in, const shape_type& shape) {
  shape_type want = shape;
  int64_t known = 1;
  int infer = -1;
  for (size_t k = 0; k < want.size(); ++k) {
    if (want[k] == -1 && infer < 0)
      infer = int(k);
    else if (want[k] < 0)
      HS_USER_ERROR() << "cannot reshape array of shape " << shape_text(in.shape) << " into shape "
                      << shape_text(shape) << ": bad extent " << want[k];
    else
      known *= want[k];
  }
  if (infer >= 0) {
    if (known == 0 || in.size() % known != 0)
      HS_USER_ERROR() << "cannot reshape array of size " << in.size() << " into shape "
                      << shape_text(shape);
    want[size_t(infer)] = in.size() / known;
  } else if (known != in.size()) {
    HS_USER_ERROR() << "cannot reshape array of size " << in.size() << " into shape "
                    << shape_text(shape);
  }
  node src = is_contiguous(in) ? in : copy(in);
  node r;
  r.base = src.base;
  r.dtype = src.dtype;
  r.offset = src.offset;
  r.shape = want;
  r.stride.assign(want.size(), 0);
  int64_t s = 1;
  for (size_t k = want.size(); k-- > 0;) {
    r.stride[k] = s;
    s *= want[k];
  }
  return r;
}

shape_type broadcast_shapes(const shape_type& a, const shape_type& b) {
  size_t n = std::max(a.size(), b.size());
  shape_type r(n);
  for (size_t k = 0; k < n; ++k) {
    int64_t x = k < n - a.size() ? 1 : a[k - (n - a.size())];
    int64_t y = k < n - b.size() ? 1 : b[k - (n - b.size())];
    if (x != y && x != 1 && y != 1)
      HS_USER_ERROR() << "operands could not be broadcast together with shapes " << shape_text(a)
                      << " " << shape_text(b);
    r[k] = x == 1 ? y : x;
  }
  return r;
}

node broadcast_to(const node& in, const shape_type& shape) {
  if (in.shape == shape) return in;
  size_t n = shape.size();
  bool ok = in.shape.size() <= n;
  node r;
  r.base = in.base;
  r.dtype = in.dtype;
  r.offset = in.offset;
  r.shape = shape;
  r.stride.assign(n, 0);
  for (size_t k = 0; ok && k < in.shape.size(); ++k) {
    size_t j = n - in.shape.size() + k;
    if (in.shape[k] == shape[j])
      r.stride[j] = in.stride[k];
    else
      ok = in.shape[k] == 1;
  }
  if (!ok)
    HS_USER_ERROR() << "cannot broadcast an array of shape " << shape_text(in.shape) << " to shape "
                    << shape_text(shape);
  return r;
}

int64_t element_index(const node& in, std::span<const int64_t> idx) {
  if (int(idx.size()) != in.ndim())
    HS_USER_ERROR() << "element access needs " << in.ndim() << " indices for an array of shape "
                    << shape_text(in.shape) << ", got " << idx.size();
  int64_t at = in.offset;
  for (size_t k = 0; k < idx.size(); ++k) {
    int64_t n = in.shape[k], i = idx[k];
    if (i < -n || i >= n)
      HS_USER_ERROR() << "index " << i << " is out of bounds for axis " << k << " with size " << n
                      << " (shape " << shape_text(in.shape) << ")";
    at += (i < 0 ? i + n : i) * in.stride[k];
  }
  return at;
}

} // namespace hassium::detail
