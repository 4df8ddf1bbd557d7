// defer_writes: moves a write out of a fused block when it would allocate a big base long
// before that base's next use (a VEM-side repair of the fuser's partition, for memory).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/program.h"
#include "ir/fusion/partition.h"

namespace hassium {

// Why: the VEM allocates a base at the first block that writes any of it. A fuser may put a
// small write into a big base (one row of a padded array) in a block that runs far earlier
// than anything else touching that base, e.g. water_ice's greedy partition computes the air
// row of every time step's padded temperature in one block; then every step's padded array
// is allocated there at once.
//
// The repair: a compute instruction i in block B, writing base O, is moved to a new block of
// its own placed right before C, the first later block that accesses O, when all hold:
//  - O has no data yet, no block before B accesses it, and in B only i does (so B is where
//    O would be allocated, for i alone); O is `min_bytes` or more;
//  - C >= B + 2 (O would sit unused through at least one block);
//  - i does not read O; nothing after i in B, nor in blocks B+1..C-1, writes a base i reads
//    or accesses it other than its FREE (so reading it later sees the same values);
//  - the bases the move keeps longer total at most 1/8 of O's bytes: those i reads that B
//    writes (they stop being contracted) and those whose last use is i (FREEd later).
// The FREEs of the bases i reads that sit in B or in B+1..C-1 move along, after i. Blocks
// left with no instruction are dropped. The partition stays a legal execution order; its
// cost is not recomputed. Returns the number of compute instructions moved.
// Complexity: O(instructions + accesses) plus O(blocks) per moved instruction.
size_t defer_early_writes(const Program& program, Partition& partition, int64_t min_bytes);

} // namespace hassium
