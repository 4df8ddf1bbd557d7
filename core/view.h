// View: (base, offset, shape, stride) in elements; any ndim, stride 0 and negative strides.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/base.h"
#include "core/dims.h"

namespace hassium {

// A shape as NumPy prints it: "(3, 4)", "(3,)", "()"; NumPy's C-level messages use sep ",".
std::string dims_text(const int64_t* d, size_t n, std::string_view sep = ", ");
inline std::string dims_text(const Dims& d, std::string_view sep = ", ") {
  return dims_text(d.data(), d.size(), sep);
}

struct View {
  BasePtr base;
  int64_t offset = 0;
  Dims shape;
  Dims stride;

  // The whole base as a 1-D contiguous view.
  static View whole(const BasePtr& base);
  // A contiguous row-major view of the given shape starting at offset.
  static View contiguous(const BasePtr& base, const Dims& shape, int64_t offset = 0);

  int ndim() const { return int(shape.size()); }
  int64_t size() const; // number of elements (1 for 0-d, 0 if any extent is 0)
  // The bytes of its elements, in a double (a broadcast view of a huge shape does not overflow).
  double bytes() const;
  DType dtype() const { return base->dtype; }
  // Smallest and largest element index touched (only meaningful when size() > 0).
  int64_t min_index() const;
  int64_t max_index() const;
  // Every element lies inside [0, base->nelem).
  bool in_bounds() const;
  // Row-major contiguous from offset.
  bool is_contiguous() const;
  // The view is the whole base, 1-D, offset 0, stride 1 (what a bare NAME means in text).
  bool is_whole_base() const;
  // The base element index of the element at the given row-major flat position.
  int64_t index_of_flat(int64_t flat) const;

  // Same base object, offset, shape and stride (the paper's "identical").
  bool identical(const View& o) const {
    return base == o.base && offset == o.offset && shape == o.shape && stride == o.stride;
  }
  bool operator==(const View& o) const { return identical(o); }
};

// Overlap test: the views share a base and at least one element index. A cheap interval
// test first; when intervals meet, an exact integer-equation search (core/view.cpp). Only if
// that search exceeds its budget (100000 nodes, crafted views with many unrelated strides)
// does it answer "overlap" without proof: the safe answer for dependencies and fusion.
bool overlaps(const View& a, const View& b);

} // namespace hassium
