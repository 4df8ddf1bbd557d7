// View boxes: a base seen as rows of `row` elements, each view's elements inside a box of rows and
// columns. Views whose boxes do not meet share no element (the exact test is only needed where
// boxes meet): a matrix's columns, interleaved in memory, have disjoint boxes. Used by the access
// table's overlap sweep and the merge cache's overlap-free test.
#pragma once

#include <cstdint>
#include <vector>

#include "core/view.h"

namespace hassium {

// Every element index of the view is r * row + c with r in [r_lo, r_hi], c in [c_lo, c_hi].
struct Box {
  int64_t r_lo, r_hi, c_lo, c_hi;
  bool meets(const Box& o) const {
    return r_lo <= o.r_hi && o.r_lo <= r_hi && c_lo <= o.c_hi && o.c_lo <= c_hi;
  }
  // The interval along rows (axis 0) or columns (axis 1).
  int64_t lo(int axis) const { return axis == 0 ? r_lo : c_lo; }
  int64_t hi(int axis) const { return axis == 0 ? r_hi : c_hi; }
};

// The view's box: dimensions whose stride is a multiple of `row` move r, the others move c; when
// c never leaves [0, row) that is exact per axis, otherwise the flat interval's rows with every
// column.
Box box_of(const View& v, int64_t row);

// The row length that cuts the views of one base into the tightest boxes: the most common stride
// (> 1, by absolute value) of their dimensions, the larger one on ties; 1 when all are contiguous.
int64_t row_length(const std::vector<const View*>& views);

// The axis to sweep boxes along: the one where they cover the least of their range on average
// (columns for a matrix's columns, rows for its rows). `boxes` not empty.
int sweep_axis(const std::vector<Box>& boxes);

// True when no two of `views` (distinct views of one base) have meeting boxes, found by a sweep
// along sweep_axis() in at most about `budget` box comparisons; false when two meet or the budget
// runs out (the caller then decides another way).
bool boxes_disjoint(const std::vector<const View*>& views, size_t budget);

} // namespace hassium
