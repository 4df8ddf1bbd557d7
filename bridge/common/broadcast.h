// NumPy broadcasting, for both frontends: the common shape of operands, a view read as a shape.
#pragma once

#include <cstdint>
#include <span>

#include "core/view.h"

namespace hassium::frontend {

// A shape or stride vector of either frontend (core's Dims, the C++ API's std::vector).
using Extents = std::span<const int64_t>;
inline Extents extents(const Dims& d) {
  return {d.data(), d.size()};
}

// Broadcasts `shape` into `acc` (NumPy's rule: right-aligned, an extent 1 stretches); false when
// they do not broadcast (acc is then unspecified). Folding every operand's shape into an empty
// acc gives their broadcast shape.
bool broadcast_into(Dims& acc, Extents shape);

// The strides that read a view of (shape, stride) as `to`: extra leading and stretched dims get
// stride 0. False when the shape does not broadcast to `to` (then `out` is unspecified).
bool broadcast_strides(Extents shape, Extents stride, Extents to, Dims& out);

// The view read as `shape`, which its shape must broadcast to (the caller checked it).
View broadcast_view(const View& v, const Dims& shape);

} // namespace hassium::frontend
