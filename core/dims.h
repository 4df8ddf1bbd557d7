// Dims: the shape and stride vectors of views (inline for up to 4 dimensions).
#pragma once

#include <cstdint>

#include <boost/container/small_vector.hpp>

namespace hassium {

// Shape and stride vectors: inline for up to 4 dimensions, so recording allocates little.
using Dims = boost::container::small_vector<int64_t, 4>;

} // namespace hassium
