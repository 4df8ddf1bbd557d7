// Distribution: block cuts of a base, owner-computes rows of a view, the remote spans it needs.
#include "vem/cluster/distribution.h"

#include <algorithm>
#include <numeric>

namespace hassium::cluster {

namespace {
int64_t ceil_div(int64_t x, int64_t y) { // y > 0
  return x >= 0 ? (x + y - 1) / y : -((-x) / y);
}

// Adds the parts of [x, y] (inclusive) to `out`, one span per owner, leaving out `me`'s.
void split_by_owner(int64_t x, int64_t y, const Dist& d, int me, std::vector<Span>& out) {
  if (x > y) return;
  for (int q = d.owner(x); q < int(d.bounds.size()) - 1 && d.lo(q) <= y; ++q) {
    const int64_t lo = std::max(x, d.lo(q)), hi = std::min(y + 1, d.hi(q));
    if (q != me && lo < hi) out.push_back({q, lo, hi});
  }
}

// The same after taking out [lo, hi) (me's own elements).
void add_outside(int64_t x, int64_t y, const Dist& d, int me, std::vector<Span>& out) {
  split_by_owner(x, std::min(y, d.lo(me) - 1), d, me, out);
  split_by_owner(std::max(x, d.hi(me)), y, d, me, out);
}
} // namespace

int Dist::owner(int64_t index) const {
  auto it = std::upper_bound(bounds.begin(), bounds.end(), index);
  int r = int(it - bounds.begin()) - 1;
  // Empty pieces share a bound: the owner is the last rank whose piece starts at or before.
  return std::clamp(r, 0, int(bounds.size()) - 2);
}

Dist block_dist(int64_t nelem, int64_t row, int ranks) {
  if (row <= 0 || nelem % row) row = 1;
  Dist d;
  d.row = row;
  const int64_t rows = nelem / row;
  const int64_t align = 64 / std::gcd(row, int64_t(64)); // rows per 64 elements
  d.block = std::max<int64_t>(1, ceil_div(ceil_div(rows, kBlocks), align) * align);
  const int64_t blocks = ceil_div(rows, d.block);
  d.bounds.resize(size_t(ranks) + 1);
  for (int r = 0; r <= ranks; ++r)
    d.bounds[size_t(r)] = std::min((blocks * r + ranks - 1) / ranks * d.block, rows) * row;
  return d;
}

int64_t row_length(const Base& base, const std::vector<const View*>& views) {
  for (const View* v : views) {
    if (v->base.get() != &base || v->ndim() < 2 || v->stride[0] <= 0) continue;
    const int64_t s0 = v->stride[0];
    if (base.nelem % s0) continue;
    Rows r(*v);
    const int64_t at = v->offset % s0;
    if (at + r.rmin >= 0 && at + r.rmax < s0) return s0;
  }
  return 1;
}

Rows::Rows(const View& v, int dim) : offset(v.offset), n0(1), s0(0), rmin(0), rmax(0) {
  for (int d = 0; d < v.ndim(); ++d) {
    if (d == dim) {
      n0 = v.shape[size_t(d)];
      s0 = v.stride[size_t(d)];
      continue;
    }
    const int64_t reach = (v.shape[size_t(d)] - 1) * v.stride[size_t(d)];
    (reach < 0 ? rmin : rmax) += reach;
  }
}

std::optional<std::vector<std::pair<int64_t, int64_t>>> owned_rows(const View& out,
                                                                   const Dist& dist, int ranks) {
  std::vector<std::pair<int64_t, int64_t>> rows(size_t(ranks), {0, 0});
  Rows g(out);
  if (out.size() == 0) return rows;
  if (g.n0 == 1) {
    const int o = dist.owner(g.first(0));
    if (dist.owner(g.last(0)) != o) return std::nullopt;
    rows[size_t(o)] = {0, 1};
    return rows;
  }
  if (g.s0 == 0) return std::nullopt;
  const bool mirrored = g.s0 < 0;
  if (mirrored) {
    g.offset += (g.n0 - 1) * g.s0;
    g.s0 = -g.s0;
  }
  std::vector<int64_t> a(size_t(ranks) + 1);
  for (int r = 0; r <= ranks; ++r)
    a[size_t(r)] =
        r == ranks ? g.n0
                   : std::clamp(ceil_div(dist.lo(r) - g.offset - g.rmin, g.s0), int64_t(0), g.n0);
  for (int r = 0; r < ranks; ++r) {
    int64_t lo = a[size_t(r)], hi = std::max(lo, a[size_t(r) + 1]);
    if (lo < hi && (g.first(lo) < dist.lo(r) || g.last(hi - 1) >= dist.hi(r))) return std::nullopt;
    rows[size_t(r)] = mirrored ? std::pair{g.n0 - hi, g.n0 - lo} : std::pair{lo, hi};
  }
  return rows;
}

void remote_spans(const View& v, int dim, int64_t a, int64_t b, const Dist& dist, int me,
                  std::vector<Span>& out) {
  if (b <= a || v.size() == 0) return;
  Rows g(v, dim);
  g.offset += a * g.s0;
  g.n0 = b - a;
  if (g.s0 < 0) {
    g.offset += (g.n0 - 1) * g.s0;
    g.s0 = -g.s0;
  }
  if (g.s0 == 0) g.n0 = 1;
  if (g.n0 == 1 || g.rmax - g.rmin + 1 >= g.s0) {
    add_outside(g.first(0), g.last(g.n0 - 1), dist, me, out);
    return;
  }
  auto add_rows = [&](int64_t i0, int64_t i1) {
    if (i1 - i0 > kRowsApart) {
      add_outside(g.first(i0), g.last(i1 - 1), dist, me, out);
      return;
    }
    for (int64_t i = i0; i < i1; ++i) add_outside(g.first(i), g.last(i), dist, me, out);
  };
  const int64_t below =
      std::clamp(ceil_div(dist.lo(me) - g.offset - g.rmin, g.s0), int64_t(0), g.n0);
  const int64_t above =
      std::clamp(ceil_div(dist.hi(me) - g.offset - g.rmax, g.s0), int64_t(0), g.n0);
  add_rows(0, below);
  add_rows(std::max(above, below), g.n0);
}

void remote_bounds(const View& v, const Dist& dist, int me, std::vector<Span>& out) {
  if (v.size() == 0) return;
  add_outside(v.min_index(), v.max_index(), dist, me, out);
}

} // namespace hassium::cluster
