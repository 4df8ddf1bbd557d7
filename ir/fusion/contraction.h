// Contraction (the paper's array contraction): which bases of a flushed program may live in
// registers only, never allocated, when one block holds all their accesses. The one rule the
// cost models count (ir/fusion/block_summary.h kCreated) and the node VEM applies
// (vem/node/contraction.h).
//
// A base is contractible when
//   - it has no memory before the flush (no data, no allocation, no foreign owner),
//   - its first access is a write, the program FREEs it and never SYNCs it,
//   - every access is by an element-wise or generator instruction, or is the input of a
//     reduction, through one and the same view, and that view visits each element at most once.
// The access rule is what makes one register per loop iteration hold the base's value (a
// reduction of it accumulates straight from that register: sum(exp(a) * b) never stores
// exp(a) * b): a reduction's output, a scan, gather or scatter, a second differently shaped
// view, or a broadcast (stride-0) write would need the memory. It is contracted in the block
// that holds its first write and its FREE: legality then puts every access of it there (each
// access depends on the write, the FREE on each access).
#pragma once

#include "core/instruction.h"

namespace hassium {

// The view visits each of its elements at most once (sufficient test: sorted by |stride|,
// every stride exceeds the span of the dimensions inside it).
bool visits_each_element_once(const View& v);

// What one pass over a program learns of one base, instruction by instruction.
class BaseUse {
public:
  // An operand of instruction `ins` (not a system instruction) on the base, through `v`.
  void access(const View& v, bool write, Family family);
  // A FREE or SYNC of the base.
  void system(Opcode op);
  bool contractible(const Base& base) const;

private:
  bool seen_ = false;
  bool written_first_ = false;
  bool freed_ = false;
  bool synced_ = false;
  bool per_element_ = true;    // every access is one element per loop iteration
  const View* view_ = nullptr; // the first view; every other must be identical
  bool one_view_ = true;
};

} // namespace hassium
