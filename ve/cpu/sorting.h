// SORT, ARGSORT, SEARCHSORTED_LEFT/RIGHT: NumPy's sort order on views of any strides.
#pragma once

#include "core/instruction.h"

namespace hassium::cpu {

// Runs one of the sorting extensions (the instruction alone in its block). Every lane along the
// axis is sorted on its own (stable: ties keep their order; NaN after every number, as NumPy
// orders floats); lanes are spread over `threads` when there are several and enough elements.
void run_sorting(const Instruction& in, int threads);

} // namespace hassium::cpu
