// Overlap: a phase's local program split into the rows that need no remote element (run while
// the phase's messages travel) and the rest (run after the wait).
#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "core/program.h"
#include "vem/cluster/plan.h"

namespace hassium::cluster {

// One instruction of a rank's local program in a phase: rows [a, b) of dim 0 of `ins` (owner
// computes: the rows of the output it owns, the inputs cut alike), or with rows = false the
// instruction as is (FREE, SYNC, a fallback on rank 0). min_rows: a piece of a reduction, scan
// or sort along a later axis has at least this many rows (the engine's order of summation).
struct LocalItem {
  Instruction ins;
  bool rows = false;
  int64_t a = 0, b = 0;
  int64_t min_rows = 1;
};

// Rows [a, b) of `ins` as the instructions a rank runs: its views cut along dim 0 (RANGE and
// RANDOM shifted to the rows' first position).
void append_rows(const Instruction& ins, int64_t a, int64_t b, std::vector<Instruction>& out);

struct PhaseSplit {
  Program before, after;                           // run before / after the wait
  int64_t before_elements = 0, after_elements = 0; // output elements (phases that receive)
  int64_t elements = 0;                            // output elements of all its rows
};

// Where a rank's local program of a phase runs relative to the wait for its messages.
enum class Wait : uint8_t {
  none, // the rank receives nothing: all of it before the wait
  all,  // it receives, unsplit (overlap off, a small phase): all of it after the wait
  rows, // it receives, split: the rows that need no remote element before the wait
};

// Splits rank `me`'s items of a phase. Wait::none: the whole program runs before the wait;
// Wait::all: after it (before_elements 0). Wait::rows: per instruction in order, the before
// part is the largest interval of rows whose inputs the rank owns and that neither reads what
// an earlier after part writes nor writes what an earlier after part reads or writes (so moving
// the after parts behind the before parts keeps every value); the rest of the rows, and FREE
// and SYNC, go after. A reduction's piece keeps min_rows rows; where the vector loop of an inexact
// operation (sin, exp, ...) could run over the cut, it falls on 64-element multiples of the
// view. A temporary the phase creates and FREEs, accessed through one view by instructions cut
// alike, is FREEd at the end of the before part (the node VEM can keep contracting it) and the
// after part uses a base of its own; bases in `settled` (exchanged in the phase, used in an
// earlier one) never are.
PhaseSplit split_phase(const std::vector<LocalItem>& items, Wait wait, const Directory& dir, int me,
                       const std::unordered_set<const Base*>& settled);

} // namespace hassium::cluster
