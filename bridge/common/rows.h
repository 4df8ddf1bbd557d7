// Row walks on the host: the rows (last axis) of one shape over two views, in row-major order.
#pragma once

#include "core/view.h"

namespace hassium::frontend {

// Calls row(a_offset, b_offset) for each row (the last axis) of the views' common shape, in
// row-major order: the offsets, in elements, of the row's first element in each view (nothing
// when an extent is 0; once for 0-d and 1-d views). `b` may be `a` itself (one view's walk).
template <class Row> void for_each_row(const View& a, const View& b, Row&& row) {
  const size_t nd = a.shape.size();
  for (int64_t e : a.shape)
    if (e == 0) return;
  if (nd <= 1) return row(a.offset, b.offset);
  Dims index(nd - 1, 0);
  int64_t p = a.offset, q = b.offset;
  for (;;) {
    row(p, q);
    size_t d = nd - 1;
    for (;;) { // the next row: the odometer over the outer axes
      --d;
      p += a.stride[d];
      q += b.stride[d];
      if (++index[d] < a.shape[d]) break;
      p -= a.stride[d] * a.shape[d];
      q -= b.stride[d] * b.shape[d];
      index[d] = 0;
      if (d == 0) return;
    }
  }
}

} // namespace hassium::frontend
