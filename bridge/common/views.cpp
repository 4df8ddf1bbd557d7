// View arithmetic: slice resolution, axis checks, permutations, the no-copy reshape rule.
#include "bridge/common/views.h"

#include <algorithm>
#include <vector>

namespace hassium::frontend {

SliceRange resolve_slice(int64_t start, int64_t stop, int64_t step, int64_t n) {
  auto clamp = [&](int64_t b) {
    if (b < 0) {
      b += n;
      if (b < 0) b = step < 0 ? -1 : 0;
    } else if (b >= n) {
      b = step < 0 ? n - 1 : n;
    }
    return b;
  };
  start = clamp(start);
  stop = clamp(stop);
  int64_t count = 0;
  if (step < 0) {
    if (stop < start) count = (start - stop - 1) / -step + 1;
  } else if (start < stop) {
    count = (stop - start - 1) / step + 1;
  }
  return {count > 0 ? start : 0, count};
}

std::optional<int> normalize_axis(int64_t axis, int ndim) {
  if (auto a = normalize_index(axis, ndim)) return int(*a);
  return std::nullopt;
}

bool is_permutation(std::span<const int> axes, int ndim) {
  if (int(axes.size()) != ndim) return false;
  uint64_t seen_small = 0;
  std::vector<bool> seen_big;
  if (ndim > 64) seen_big.assign(size_t(ndim), false);
  for (int a : axes) {
    if (a < 0 || a >= ndim) return false;
    if (ndim > 64) {
      if (seen_big[size_t(a)]) return false;
      seen_big[size_t(a)] = true;
    } else {
      if (seen_small >> a & 1) return false;
      seen_small |= uint64_t(1) << a;
    }
  }
  return true;
}

View permute(const View& v, std::span<const int> axes) {
  View r = v;
  for (size_t k = 0; k < axes.size(); ++k) {
    r.shape[k] = v.shape[size_t(axes[k])];
    r.stride[k] = v.stride[size_t(axes[k])];
  }
  return r;
}

void contiguous_strides(Extents shape, Dims& stride) {
  stride.assign(shape.size(), 0);
  int64_t s = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    stride[k] = s;
    s *= shape[k];
  }
}

bool fill_unknown_extent(int64_t size, Dims& shape, int unknown) {
  int64_t known = 1;
  for (size_t k = 0; k < shape.size(); ++k)
    if (int(k) != unknown) known *= shape[k];
  if (unknown < 0) return known == size;
  if (known == 0 || size % known != 0) return false;
  shape[size_t(unknown)] = size / known;
  return true;
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

} // namespace hassium::frontend
