// Fusibility: which instructions may run in one fused block (one loop nest).
//
// Two instructions f and g (f first in the program) are fusible when all of these hold:
// 1. FREE and SYNC fuse with anything (they read and write no elements).
// 2. SOLO instructions, i.e. indexing (GATHER, SCATTER, COND_SCATTER), scans and extension
//    methods (MATMUL), fuse with nothing but FREE/SYNC: their elements depend on elements
//    other than their own position.
// 3. Same loop shape (Instruction::loop_shape()): the output's shape for element-wise
//    operations and generators, the INPUT's shape for a reduction, so a reduction fuses with
//    the element-wise producers of its input (the engine accumulates in registers).
// 4. Two reductions fuse only if they also reduce the same axis.
// 5. Views identical-or-disjoint (the paper's Def. 12, data parallelism preserved): every view
//    f writes is identical to or disjoint from every view g reads or writes, and every view g
//    writes is identical to or disjoint from every view f reads. Two reads may overlap freely.
//
// Rules 1-4 depend only on a "loop class" per instruction, aggregated per block; rule 5 on
// the views, checked on block summaries through the precomputed overlap lists. All rules are
// pairwise, so a block is fusible when every pair of its instructions is.
#pragma once

#include <cstdint>

#include "ir/fusion/access_table.h"
#include "ir/fusion/block_summary.h"

namespace hassium {

// Rules 1-4 for a block: the loop class of its non-system instructions.
struct LoopClass {
  bool compute = false; // has a non-system instruction
  bool solo = false;    // has a SOLO instruction
  int32_t shape = -1;   // loop shape id of its non-system instructions
  int32_t axis = -1;    // axis of its reductions, -1 when it has none

  static LoopClass of(const AccessTable& t, uint32_t instr);
  // The classes of two blocks allow fusing them (rules 1-4).
  bool compatible(const LoopClass& o) const;
  // The class of the union of two compatible blocks.
  LoopClass merged(const LoopClass& o) const;
};

// Rules 1-5 for a pair of instructions, from their definitions (the reference the block-level
// tests are checked against).
bool fusible(const AccessTable& t, uint32_t f, uint32_t g);

// Rule 5 for two disjoint blocks: no view written in one overlaps, without being identical, a
// view of the other.
bool views_fusible(const AccessTable& t, const BlockSummary& a, const BlockSummary& b);

} // namespace hassium
