// Contraction: which bases of each block live only in registers and are never allocated.
#pragma once

#include <vector>

#include "core/program.h"
#include "ir/partition.h"

namespace hassium {

// For every block of the partition, the bases the engine may contract (the paper's array
// contraction): created and FREEd inside the block. Concretely, a base is contracted in block
// B when
//   - it has no data before the flush (not external, not written by an earlier flush),
//   - every instruction that names it (FREE included) is in B, and one of them FREEs it,
//   - its first access is a write, and no SYNC names it,
//   - every access is by an element-wise or generator instruction, or is the input of a
//     reduction, through one and the same view, and that view visits each element at most once.
// The last rule is what makes one register per loop iteration hold the base's value (a
// reduction of it accumulates straight from that register: sum(exp(a) * b) never stores
// exp(a) * b): a reduction's output, a scan, gather or scatter, a second differently shaped
// view, or a broadcast (stride-0) write would need the memory. The fuser's cost models count
// contraction more loosely (created and FREEd in the block); a base they count but this rule
// refuses is simply allocated, which is always correct.
std::vector<std::vector<const Base*>> contracted_bases(const Program& program,
                                                       const Partition& partition);

// The view visits each of its elements at most once (sufficient test: sorted by |stride|,
// every stride exceeds the span of the dimensions inside it).
bool visits_each_element_once(const View& v);

} // namespace hassium
