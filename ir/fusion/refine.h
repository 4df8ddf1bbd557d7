// Local improvement of a partition: move a temporary's creator into the block of its other
// accesses, with the temporary's FREE, when that lowers the cost (used after greedy).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/fusion/wsp_graph.h"

namespace hassium {

// Improves the legal partition `blocks` (instruction indices, any block order) under g's cost
// model by single-instruction moves; returns a legal partition that costs strictly less or
// the same blocks. Instructions for which `movable` is false (when it is not empty) never
// move, nor their blocks' FREEs, so blocks of a start partition stay together.
//
// The move: a base t created by f in block X (new[f]) and FREEd by r, with X not holding r,
// is not contracted (Def. 13), so each block touching it pays for its external reads and
// writes. Moving f, and r when it is elsewhere, into a block Y holding another access of t
// makes t contracted in Y when Y then holds every access of t; the move is taken when it is
// legal (Def. 5: the moved instructions are fusible with Y's, and the block graph stays
// acyclic) and cost(X') + cost(Y') + cost(Z') < cost(X) + cost(Y) + cost(Z), Z being r's old
// block. Greedy misses these when a creator's edge to a block sharing one of its reads weighs
// as much as the edge to its consumer (a pairwise weight cannot see the contraction, which
// also needs the FREE): the tie merges it away from its consumer, leaving the temporary in
// memory (ir/README.md, SOR).
// Passes repeat while a move was taken (at most 8). The acyclicity test searches the block
// graph from the changed blocks; a search scanning more than 2^14 dependency edges rejects
// the move, and all searches together stop at a budget proportional to the program's
// dependency edges. Blocks of more than 256 instructions neither give nor take (a move's cost
// is recomputed from the blocks' instructions), which keeps greedy's time at scale unchanged
// (ir/README.md).
std::vector<std::vector<uint32_t>> refine_by_moves(const WspGraph& g,
                                                   std::vector<std::vector<uint32_t>> blocks,
                                                   const std::vector<bool>& movable = {});

} // namespace hassium
