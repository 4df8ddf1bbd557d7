// Distribution: which rank owns which elements of a base, and the rows of a view each rank
// computes and needs.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/view.h"

namespace hassium::cluster {

// A base cut into contiguous pieces: rank r owns elements [bounds[r], bounds[r + 1]). The cuts
// fall on multiples of `row` elements (the base's rows, for an n-D array the frontend created
// n-D; 1 for a flat split); `block` rows form one reduction chunk (below), and the cuts fall on
// block boundaries too.
struct Dist {
  int64_t row = 1;
  int64_t block = 1;
  std::vector<int64_t> bounds;

  int owner(int64_t index) const;
  int64_t lo(int r) const { return bounds[size_t(r)]; }
  int64_t hi(int r) const { return bounds[size_t(r) + 1]; }
};

// The blocks a base is cut into: at most kBlocks, each a whole number of rows and (where the
// row allows) of 64 elements, so a vector loop's tail falls on the same elements for every P.
// They depend on the base alone, never on the rank count: reductions chunk by them.
constexpr int64_t kBlocks = 256;
// The distribution of a base of `nelem` elements with rows of `row` elements over `ranks`:
// whole blocks, as even as they go.
Dist block_dist(int64_t nelem, int64_t row, int ranks);
// The row length the cuts of `base` should follow, from the views of it in `views` (the first
// n-D view whose rows lie within the base's rows; 1 when there is none).
int64_t row_length(const Base& base, const std::vector<const View*>& views);

// A view as rows: dim 0 (n0 rows, s0 apart) over the rest; a row spans [start + rmin,
// start + rmax] of the base, start = offset + i * s0. A 0-d view is one row.
struct Rows {
  int64_t offset, n0, s0, rmin, rmax;
  explicit Rows(const View& v, int dim = 0);
  int64_t first(int64_t i) const { return offset + i * s0 + rmin; }
  int64_t last(int64_t i) const { return offset + i * s0 + rmax; }
};

// The rows of `out` each rank computes (owner computes): rank r gets rows [first, second) of
// dim 0, all of whose elements it owns. Empty when a row would straddle two owners, or when
// the rows repeat (stride 0): such an instruction runs on rank 0 (a fallback).
std::optional<std::vector<std::pair<int64_t, int64_t>>> owned_rows(const View& out,
                                                                   const Dist& dist, int ranks);

// An element range [lo, hi) of a base, on `owner`.
struct Span {
  int owner;
  int64_t lo, hi;
};
// The elements of `v` (its dim `dim` cut to rows [a, b)) that rank `me` does not own, by owner:
// whole rows, a run of more than kRowsApart rows as one span (elements between the rows come
// along: the receiver does not own them, so their values are never read).
constexpr int64_t kRowsApart = 16;
void remote_spans(const View& v, int dim, int64_t a, int64_t b, const Dist& dist, int me,
                  std::vector<Span>& out);
// The bounding range of `v`'s elements that `me` does not own, by owner (fallbacks).
void remote_bounds(const View& v, const Dist& dist, int me, std::vector<Span>& out);

} // namespace hassium::cluster
