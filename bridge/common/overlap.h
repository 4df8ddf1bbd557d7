// NumPy's copy rule for an operation that writes a view it also reads: when an input overlaps
// the output without being identical to it (`a[1:] = a[:-1]`), the input is copied first.
#pragma once

#include "core/view.h"

namespace hassium::frontend {

// The input `in` (already broadcast to the output's shape) must be copied before an
// instruction writing `out` reads it: they share an element without being the same view. An
// identical view is read and written element by element in place (the bytecode's rule).
inline bool must_copy_input(const View& in, const View& out) {
  return !in.identical(out) && overlaps(in, out);
}

} // namespace hassium::frontend
