// Boolean-mask selection on the host, for both frontends: x[mask] with a mask of x's shape.
#pragma once

#include <cstdint>

#include "core/view.h"

namespace hassium::frontend {

// The number of true elements of a bool view whose base's memory holds its values.
int64_t count_selected(const View& mask);

// Copies the elements of `x` where `mask` (a bool view of x's shape) is true into `out`, in
// row-major order: NumPy's x[mask]. `out` has room for `count` elements of x's dtype, `count`
// being count_selected(mask); both bases' memory holds their values.
void compress(const View& x, const View& mask, void* out, int64_t count);

} // namespace hassium::frontend
