// split_blocks: long fused blocks cut into pieces that share kernels (compile time bounded).
#pragma once

#include <cstddef>
#include <vector>

#include "core/program.h"

namespace hassium {

// Cuts every block of more than `max_size` compute instructions (FREE and SYNC not counted)
// into consecutive pieces of at most `max_size`. When the block's instruction sequence repeats
// with a period p <= max_size (the same opcodes and operand dtypes every p instructions: the
// body of a loop), from the loop's canonical start on a piece is the largest multiple of p
// that fits, so the pieces of a loop are alike and their kernels one, in every flush. Blocks keep
// program order inside and their place in the list; a piece of a legal block is legal and so is the
// new order (nothing outside a block depends on a later piece of it and is needed by an earlier
// one). 0 = no cut.
std::vector<std::vector<size_t>>
split_long_blocks(const Program& program, std::vector<std::vector<size_t>> blocks, size_t max_size);

// A repetition in a sequence: from `start` on, every element equals the one `period` later
// (period 0: none found).
struct Periodic {
  size_t period = 0;
  size_t start = 0;
};
// The period p <= max_period whose repetition covers the longest suffix of sig (at least two
// periods; the shortest such p), with `start` moved to the canonical phase: the rotation of
// one period that compares smallest. So every run of the same loop body is cut at the same
// place within the body, whatever instruction the run starts with.
Periodic sequence_period(const std::vector<uint64_t>& sig, size_t max_period);

} // namespace hassium
