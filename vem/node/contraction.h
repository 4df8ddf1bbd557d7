// Contraction: which bases of each block live only in registers and are never allocated.
#pragma once

#include <vector>

#include "core/program.h"
#include "ir/fusion/partition.h"

namespace hassium {

// For every block of the partition, the bases the engine contracts: those the rule of
// ir/fusion/contraction.h allows (the rule the fuser's cost models count) whose every access is in
// the block.
std::vector<std::vector<const Base*>> contracted_bases(const Program& program,
                                                       const Partition& partition);

} // namespace hassium
