// Row gather on the host, for both frontends: x[idx] along axis 0 when the values are at hand.
#pragma once

#include "core/view.h"

namespace hassium::frontend {

// Copies NumPy's x[idx] into `out` (row-major, room for idx.size() rows of x.shape[1:] of x's
// dtype): for each index of the integer view idx, in row-major order, row idx of x (a negative
// index counts from the end once). Both bases' memory holds their values. Returns false,
// leaving `out` partly written, when an index is outside [-n, n) (n = x.shape[0]): the caller
// raises NumPy's error its own way.
bool gather_rows(const View& x, const View& idx, void* out);

} // namespace hassium::frontend
