// Array: the C++ object behind hassium.ndarray (a view of a co-owned base), and view geometry.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "bridge/common/broadcast.h"
#include "bridge/common/overlap.h"
#include "bridge/common/views.h"
#include "bridge/python/session.h"
#include "core/view.h"

namespace hassium::python {

struct Array {
  OwnerPtr owner;
  View view;
  // NumPy would have returned a scalar here (a full integer index, a full reduction, a ufunc
  // of scalars): repr prints it as one (np.float64(2.5)). The value is still lazy.
  bool scalar = false;

  DType dtype() const { return view.base->dtype; }
  int ndim() const { return view.ndim(); }
  int64_t size() const { return view.size(); }
  const Dims& shape() const { return view.shape; }
};

// A fresh contiguous array (its base has exactly shape's elements).
Array new_array(DType t, const Dims& shape);
// Another view of the same base.
inline Array view_of(const Array& a, View v) {
  return Array{a.owner, std::move(v), false};
}

// The geometry is bridge/common's (broadcast.h, views.h); these raise NumPy's errors.
// NumPy's broadcast of the shapes; raises ValueError "operands could not be broadcast together
// with shapes (3,) (4,) " naming every shape when they do not broadcast.
Dims broadcast_shapes(std::span<const Dims> shapes);
bool shapes_broadcast(std::span<const Dims> shapes, Dims& out);
using frontend::broadcast_view;
using frontend::permute;
using frontend::reshape_strides;
// Resolves the one unknown (negative) dim and checks the size, with NumPy's messages ("cannot
// reshape array of size 6 into shape (2,2)").
Dims reshape_target(int64_t size, std::span<const int64_t> shape);
// Normalizes an axis for an array of `ndim` dims; raises numpy.exceptions.AxisError.
int normalize_axis(int64_t axis, int ndim);

// Records out = in (cast to out's dtype), through a temporary when the two overlap without
// being identical (NumPy's copy semantics for `a[1:] = a[:-1]`). in's shape broadcasts to out's.
void record_copy(const View& out, const View& in);
void record_fill(const View& out, const Scalar& value);
// A fresh contiguous copy of the view, cast to t.
Array copy_as(const View& v, DType t);
// The lazy form of the scalar NumPy returns for a[i, j] (all integer indices), for an element
// whose value is not ready: a fresh 0-d array marked scalar, recorded as a copy of v's element.
Array element_copy(const View& v);
// The array itself when it is contiguous from its base's start and covers exactly its size;
// else a contiguous copy (used where an instruction wants plain row-major data).
Array contiguous(const Array& a);

// NumPy's shape text in its C-level messages: "(3,4)", "(3,)", "()".
std::string shape_text(const Dims& d);

} // namespace hassium::python
