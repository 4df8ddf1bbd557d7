// split_blocks: long fused blocks cut into pieces that share kernels (compile time bounded).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/program.h"

namespace hassium {

// Cuts every block of more than `max_size` compute instructions (FREE and SYNC not counted)
// and fewer than `max_bytes` bytes per compute instruction (its array operands: for larger data
// a long block's kernel pays for its compile, and a cut costs memory traffic) into consecutive
// pieces of at most `max_size`. When the block's instruction sequence repeats with a period
// p <= max_size (the same opcodes and operand dtypes every p instructions: the body of a loop),
// from the loop's canonical start on a piece is the largest multiple of p that fits, then
// pieces of 2^k periods, and the partial periods at either end are single instructions, so the
// pieces of a loop are alike and their kernels few, in every flush. Blocks keep program order
// inside and their place in the list; a piece of a legal block is legal and so is the new order
// (nothing outside a block depends on a later piece of it and is needed by an earlier one).
// max_size 0 = no cut.
std::vector<std::vector<size_t>> split_long_blocks(const Program& program,
                                                   std::vector<std::vector<size_t>> blocks,
                                                   size_t max_size, double max_bytes);

// A repetition in a sequence: in [begin, end) every element equals the one `period` later
// (period 0: none found); `start` is its canonical phase (begin <= start < begin + period).
struct Periodic {
  size_t period = 0;
  size_t begin = 0;
  size_t start = 0;
  size_t end = 0;
};
// The longest stretch of sig that repeats with a period p <= max_period (at least two periods;
// the shortest such p, the first such stretch), with its canonical phase: the rotation of one
// period that compares smallest. So every run of the same loop body is cut at the same place
// within the body, whatever instruction the run starts with.
Periodic sequence_period(std::span<const uint64_t> sig, size_t max_period);

} // namespace hassium
