// View geometry: sizes, bounds, identity and the exact overlap test.

#include "core/view.h"

#include <algorithm>
#include <numeric>

#include <boost/container/small_vector.hpp>

namespace hassium {

std::string dims_text(const int64_t* d, size_t n, std::string_view sep) {
  std::string s = "(";
  for (size_t k = 0; k < n; ++k) {
    if (k) s += sep;
    s += std::to_string(d[k]);
  }
  return s + (n == 1 ? ",)" : ")");
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

double View::bytes() const {
  double n = double(dtype_size(dtype()));
  for (auto e : shape) n *= double(e);
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

namespace {

// Overlap as an integer equation. With a's dimensions as +stride terms and b's as -stride
// terms, the views meet iff  sum_m c_m * x_m = b.offset - a.offset  has a solution with every
// 0 <= x_m < extent_m. Terms whose coefficients have the same magnitude merge into one
// variable ranging over a contiguous interval (sums of bounded integers fill their range), so
// views with the same strides (shifted views, the common case) reduce to one variable per
// stride. The search then fixes the largest coefficient first, keeping only values that leave
// the rest able to reach the target (interval bound) and that are congruent modulo the gcd of
// the rest; two variables are solved exactly with the extended gcd.
struct Term {
  __int128 coef; // > 0
  __int128 lo, hi;
};

// Floor and ceiling division (denominator > 0).
__int128 floor_div(__int128 a, __int128 b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
__int128 ceil_div(__int128 a, __int128 b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

__int128 gcd128(__int128 a, __int128 b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    __int128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Extended gcd: returns g and x, y with a*x + b*y = g (a, b >= 0).
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

// Does p*u + q*w = d have a solution with u in [ulo, uhi], w in [wlo, whi]? (p, q > 0)
bool solve_two(const Term& t1, const Term& t2, __int128 d) {
  __int128 x, y;
  __int128 g = ext_gcd(t1.coef, t2.coef, x, y);
  if (d % g != 0) return false;
  __int128 u0 = x * (d / g), w0 = y * (d / g); // one solution
  __int128 du = t2.coef / g, dw = t1.coef / g; // u = u0 + du*k, w = w0 - dw*k
  __int128 klo = std::max(ceil_div(t1.lo - u0, du), ceil_div(w0 - t2.hi, dw));
  __int128 khi = std::min(floor_div(t1.hi - u0, du), floor_div(w0 - t2.lo, dw));
  return klo <= khi;
}

// Inline room for the terms of two views of up to 4 dimensions each: no allocation then.
template <typename T> using TermVector = boost::container::small_vector<T, 8>;

struct Solver {
  TermVector<Term> terms;                          // coefficients strictly decreasing
  TermVector<__int128> rest_lo, rest_hi, rest_gcd; // of terms[m+1..]
  int64_t budget = 100000;                         // search nodes before giving up

  // Can terms[m..] reach d?
  bool solve(size_t m, __int128 d) {
    if (m == terms.size()) return d == 0;
    const Term& t = terms[m];
    if (m + 1 == terms.size()) return d % t.coef == 0 && d / t.coef >= t.lo && d / t.coef <= t.hi;
    if (m + 2 == terms.size()) return solve_two(t, terms[m + 1], d);
    __int128 zlo = std::max(t.lo, ceil_div(d - rest_hi[m], t.coef));
    __int128 zhi = std::min(t.hi, floor_div(d - rest_lo[m], t.coef));
    if (zlo > zhi) return false;
    // c*z = d (mod g): z = z0 (mod g/g2) with g2 = gcd(c, g).
    __int128 g = rest_gcd[m], g2 = gcd128(t.coef, g);
    if (d % g2 != 0) return false;
    __int128 mod = g / g2, x, y;
    ext_gcd(t.coef / g2 % mod, mod, x, y); // inverse of c/g2 modulo mod
    __int128 z0 = ((d / g2) % mod * (x % mod) % mod + mod) % mod;
    __int128 first = zlo + ((z0 - zlo) % mod + mod) % mod;
    for (__int128 z = first; z <= zhi; z += mod) {
      if (--budget < 0) return true; // too hard: answer conservatively (they may overlap)
      if (solve(m + 1, d - t.coef * z)) return true;
    }
    return false;
  }
};

} // namespace

bool overlaps(const View& a, const View& b) {
  if (a.base != b.base || a.size() == 0 || b.size() == 0) return false;
  if (a.max_index() < b.min_index() || b.max_index() < a.min_index()) return false;
  // Gather the terms (one per distinct |stride|, largest first); negative strides are flipped
  // by moving the offset to the low end.
  Solver solver;
  TermVector<Term>& terms = solver.terms;
  __int128 d = __int128(b.min_index()) - a.min_index();
  auto add = [&](const View& v, int sign) {
    for (size_t k = 0; k < v.shape.size(); ++k) {
      int64_t e = v.shape[k], s = v.stride[k] < 0 ? -v.stride[k] : v.stride[k];
      if (e == 1 || s == 0) continue;
      auto it =
          std::find_if(terms.begin(), terms.end(), [&](const Term& t) { return t.coef == s; });
      if (it == terms.end()) it = terms.insert(terms.end(), Term{s, 0, 0});
      if (sign > 0)
        it->hi += e - 1;
      else
        it->lo -= e - 1;
    }
  };
  add(a, +1);
  add(b, -1);
  std::sort(terms.begin(), terms.end(),
            [](const Term& x, const Term& y) { return x.coef > y.coef; });
  size_t n = terms.size();
  solver.rest_lo.assign(n, 0);
  solver.rest_hi.assign(n, 0);
  solver.rest_gcd.assign(n, 0);
  for (size_t m = n; m-- > 1;) {
    const Term& t = solver.terms[m];
    solver.rest_lo[m - 1] = solver.rest_lo[m] + t.coef * t.lo;
    solver.rest_hi[m - 1] = solver.rest_hi[m] + t.coef * t.hi;
    solver.rest_gcd[m - 1] = gcd128(solver.rest_gcd[m], t.coef);
  }
  return solver.solve(0, d);
}

} // namespace hassium
