// View geometry: sizes, bounds, identity and the exact overlap test.
#include "core/view.h"

#include <algorithm>
#include <numeric>
#include <sstream>
#include <vector>

namespace hassium {

std::string dims_text(const Dims& d) {
  std::ostringstream os;
  os << "(";
  for (size_t k = 0; k < d.size(); ++k) os << (k ? ", " : "") << d[k];
  if (d.size() == 1) os << ",";
  os << ")";
  return os.str();
}

View View::whole(const BasePtr& base) {
  View v;
  v.base = base;
  v.shape = {base->nelem};
  v.stride = {1};
  return v;
}

View View::contiguous(const BasePtr& base, const Dims& shape, int64_t offset) {
  View v;
  v.base = base;
  v.offset = offset;
  v.shape = shape;
  v.stride.resize(shape.size());
  int64_t s = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    v.stride[k] = s;
    s *= shape[k];
  }
  return v;
}

int64_t View::size() const {
  int64_t n = 1;
  for (auto e : shape) n *= e;
  return n;
}

int64_t View::min_index() const {
  int64_t m = offset;
  for (size_t k = 0; k < shape.size(); ++k)
    if (stride[k] < 0) m += stride[k] * (shape[k] - 1);
  return m;
}

int64_t View::max_index() const {
  int64_t m = offset;
  for (size_t k = 0; k < shape.size(); ++k)
    if (stride[k] > 0) m += stride[k] * (shape[k] - 1);
  return m;
}

bool View::in_bounds() const {
  if (shape.size() != stride.size()) return false;
  for (auto e : shape)
    if (e < 0) return false;
  if (size() == 0) return offset >= 0 && offset <= base->nelem;
  return min_index() >= 0 && max_index() < base->nelem;
}

bool View::is_contiguous() const {
  int64_t s = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    if (shape[k] != 1 && stride[k] != s) return false;
    s *= shape[k];
  }
  return true;
}

bool View::is_whole_base() const {
  return offset == 0 && shape.size() == 1 && shape[0] == base->nelem && stride[0] == 1;
}

int64_t View::index_of_flat(int64_t flat) const {
  int64_t idx = offset;
  for (size_t k = shape.size(); k-- > 0;) {
    idx += (flat % shape[k]) * stride[k];
    flat /= shape[k];
  }
  return idx;
}

bool View::identical(const View& o) const {
  return base == o.base && offset == o.offset && shape == o.shape && stride == o.stride;
}

namespace {

// A view reduced to its element set: positive strides sorted descending, no extent-1 or
// stride-0 dimensions, adjacent dimensions that form one progression merged.
struct Lattice {
  int64_t offset = 0;
  Dims extent, stride; // outermost first
  int64_t span = 0;    // max element - offset

  int64_t lo() const { return offset; }
  int64_t hi() const { return offset + span; }
};

Lattice normalize(const View& v) {
  Lattice l;
  l.offset = v.offset;
  std::vector<std::pair<int64_t, int64_t>> dims; // (stride, extent)
  for (size_t k = 0; k < v.shape.size(); ++k) {
    int64_t e = v.shape[k], s = v.stride[k];
    if (e == 1 || s == 0) continue;
    if (s < 0) {
      l.offset += s * (e - 1);
      s = -s;
    }
    dims.emplace_back(s, e);
  }
  std::sort(dims.begin(), dims.end(), [](auto& a, auto& b) { return a.first > b.first; });
  for (auto [s, e] : dims) {
    if (!l.stride.empty() && l.stride.back() == s * e) { // the outer one continues this one
      l.extent.back() *= e;
      l.stride.back() = s;
      continue;
    }
    l.stride.push_back(s);
    l.extent.push_back(e);
  }
  for (size_t k = 0; k < l.stride.size(); ++k) l.span += l.stride[k] * (l.extent[k] - 1);
  return l;
}

// Floor and ceiling division for possibly negative numerators (denominator > 0).
__int128 floor_div(__int128 a, __int128 b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
__int128 ceil_div(__int128 a, __int128 b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// Extended gcd: returns g and x, y with a*x + b*y = g.
__int128 ext_gcd(__int128 a, __int128 b, __int128& x, __int128& y) {
  if (b == 0) {
    x = 1;
    y = 0;
    return a;
  }
  __int128 x1, y1;
  __int128 g = ext_gcd(b, a % b, x1, y1);
  x = y1;
  y = x1 - (a / b) * y1;
  return g;
}

// Do {a0 + s*i : 0<=i<n} and {b0 + t*j : 0<=j<m} meet? (s, t > 0; n, m >= 1)
bool progressions_meet(int64_t a0, int64_t s, int64_t n, int64_t b0, int64_t t, int64_t m) {
  __int128 x, y;
  __int128 g = ext_gcd(s, t, x, y);
  __int128 d = __int128(b0) - a0; // need s*i - t*j = d
  if (d % g != 0) return false;
  __int128 i0 = x * (d / g), j0 = -y * (d / g); // s*i0 - t*j0 = d
  __int128 di = t / g, dj = s / g;              // i = i0 + di*k, j = j0 + dj*k
  __int128 klo = std::max(ceil_div(-i0, di), ceil_div(-j0, dj));
  __int128 khi = std::min(floor_div(n - 1 - i0, di), floor_div(m - 1 - j0, dj));
  return klo <= khi;
}

Lattice drop_outer(const Lattice& l, int64_t i) {
  Lattice r;
  r.offset = l.offset + i * l.stride[0];
  r.extent.assign(l.extent.begin() + 1, l.extent.end());
  r.stride.assign(l.stride.begin() + 1, l.stride.end());
  r.span = l.span - l.stride[0] * (l.extent[0] - 1);
  return r;
}

bool lattices_meet(const Lattice& a, const Lattice& b) {
  if (a.hi() < b.lo() || b.hi() < a.lo()) return false;
  if (a.extent.size() <= 1 && b.extent.size() <= 1) {
    int64_t s = a.extent.empty() ? 1 : a.stride[0], n = a.extent.empty() ? 1 : a.extent[0];
    int64_t t = b.extent.empty() ? 1 : b.stride[0], m = b.extent.empty() ? 1 : b.extent[0];
    return progressions_meet(a.offset, s, n, b.offset, t, m);
  }
  // Split the view with more dimensions along its outer one; visit only the slices whose
  // interval meets the other view's interval.
  bool split_a = a.extent.size() > b.extent.size() ||
                 (a.extent.size() == b.extent.size() && a.stride[0] >= b.stride[0]);
  const Lattice& x = split_a ? a : b;
  const Lattice& y = split_a ? b : a;
  int64_t s0 = x.stride[0];
  int64_t rest = x.span - s0 * (x.extent[0] - 1);
  __int128 ilo = std::max<__int128>(0, ceil_div(__int128(y.lo()) - x.offset - rest, s0));
  __int128 ihi = std::min<__int128>(x.extent[0] - 1, floor_div(__int128(y.hi()) - x.offset, s0));
  for (__int128 i = ilo; i <= ihi; ++i)
    if (lattices_meet(drop_outer(x, int64_t(i)), y)) return true;
  return false;
}

} // namespace

bool overlaps(const View& a, const View& b) {
  if (a.base != b.base || a.size() == 0 || b.size() == 0) return false;
  if (a.max_index() < b.min_index() || b.max_index() < a.min_index()) return false;
  return lattices_meet(normalize(a), normalize(b));
}

} // namespace hassium
