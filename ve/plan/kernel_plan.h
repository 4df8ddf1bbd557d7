// KernelPlan: a fused block reduced to the structure its kernel is compiled from (the spec, the
// memory-cache key) and the values that change from call to call (pointers and int64 params).
// Shared by the engines that compile blocks: the CPU engine (ve/cpu) and the GPU kernel
// generator (ve/gpu). Fields only the CPU launcher uses are marked "CPU launcher"; the GPU
// engine ignores them (it maps the loop nest to a grid itself, ve/gpu/launch_geometry.h).
//
// The loop nest runs over the block's loop shape with its dimensions reordered (largest
// strides outermost), extent-1 dimensions dropped and adjacent dimensions merged where every
// array allows it. Array offsets, strides, extents and constants are parameters, so one
// kernel serves every shape of the same structure; only the innermost stride class of each
// array (0, 1 or other) is structural, so the innermost loop vectorizes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "core/instruction.h"
#include "ve/engine.h"

namespace hassium::plan {

enum class StrideClass : uint8_t { ZERO, ONE, ANY };

enum class ArrayRole : uint8_t {
  LOOP,    // addressed by the loop nest: one stride per loop level
  REDUCED, // a reduction output: LOOP with stride 0 along the axis; may go to per-chunk partials
  FLAT,    // addressed by a row-major flat position (GATHER source, SCATTER target)
};

// One array (view) the kernel touches. Identical views of a base the block writes are one array;
// a view of a base it only reads is one array per appearance.
struct PlanArray {
  const View* view = nullptr; // the first occurrence (not part of the spec); set by bind_plan
  uint32_t instr = 0;         // ... which is operand `operand` of program instruction `instr`
  uint8_t operand = 0;
  DType dtype = DType::BOOL;
  ArrayRole role = ArrayRole::LOOP;
  bool contracted = false; // lives in registers only (its base is created and freed in the block)
  bool read = false;
  bool written = false;
  StrideClass inner = StrideClass::ANY; // LOOP, REDUCED: class of the innermost loop stride
  int flat_ndim = 0;                    // FLAT: dimensions of its own (collapsed) shape
  int ptr = -1;       // pointer slot (-1 when contracted); REDUCED: where the kernel writes
  int final_ptr = -1; // REDUCED: the real output's slot (the combine step writes it)
  int param = -1;     // first parameter slot; layout by role, see KernelPlan
};

struct PlanOperand {
  bool is_array = true;
  int index = 0; // into arrays or constants
};

struct PlanInstr {
  Opcode op;
  DType in; // the signature's free type T
  DType out;
  // Output first; a reduction's axis is not an operand. Inline: planning allocates little.
  boost::container::small_vector<PlanOperand, 4> operands;
};

// Constant operands with the same dtype and bits are one constant: a fused block repeats its
// literals (the main job's first flush, eight Black-Scholes maturities: 282 constant operands,
// 46 values), and each constant is a parameter the kernel loads and keeps (the fast code
// generator's time, its registers).
struct PlanConstant {
  DType dtype;
  int param;          // two slots: the value's bits (complex: re, im)
  uint32_t instr = 0; // operand `operand` of program instruction `instr` (its first use)
  uint8_t operand = 0;
};

// A later use of a constant: the plan holds for a program only where its value is still the
// constant's (bind_plan checks).
struct PlanConstantUse {
  uint32_t instr = 0;
  uint8_t operand = 0;
  int constant = 0;
};

// Parameter layout (int64 slots):
//   [0, ndim)                  loop extents, outermost first
//   LOOP array at p:           ndim strides
//   REDUCED array at p:        ndim kernel strides (0 along the axis), the chunk stride
//                              (elements between two chunks' partials; 0 = no partials),
//                              ndim strides of the real output (for the combine step)
//   FLAT array at p:           flat_ndim extents, flat_ndim strides, size
//   position_param:            ndim strides of the row-major position (RANGE, RANDOM)
//   constant at p:             2 slots
struct KernelPlan {
  // --- structure: what the generated code depends on ---
  int ndim = 1;
  int axis = -1;        // loop level of the reduction/scan axis, -1 if none
  int source_axis = -1; // ... its dimension in the block's loop shape (not in the spec)
  int split = 0;        // CPU launcher: loop level whose range is the kernel's [begin, end)
  bool has_scan = false;
  bool has_reduction = false;
  bool writes_flat = false; // SCATTER: runs on one thread (duplicates: the last write wins)
  StrideClass position_inner = StrideClass::ANY;
  int position_param = -1;
  std::vector<PlanArray> arrays;
  std::vector<PlanConstant> constants;
  std::vector<PlanConstantUse> constant_uses; // (the sharing is in the instrs' operands)
  std::vector<PlanInstr> instrs;
  std::string spec; // canonical text of the structure: the memory-cache key

  // --- per call (never read by the code generator) ---
  std::vector<int64_t> params;
  // Host pointers (offset folded in) per pointer slot; REDUCED arrays with partials: the CPU
  // launcher fills `ptr`. A GPU engine addresses bases by its own buffers and view offsets.
  std::vector<void*> ptrs;
  bool empty = false;                         // nothing to compute
  const Instruction* empty_min_max = nullptr; // a minimum/maximum over an empty axis: an error
  // CPU launcher: how the split level is cut: 0 = any way (the launcher splits it over the
  // threads); n >= 1 = exactly n equal chunks, whatever the thread count (a reduction split along
  // its axis goes through n partial results combined in chunk order, so the sum does not depend on
  // the number of threads).
  int64_t chunks = 0;
  int64_t partial_elems = 0; // CPU launcher: elements of one chunk's partial per REDUCED array

  int64_t extent(int level) const { return params[size_t(level)]; }
  int64_t total() const; // product of the extents
};

// Builds the plan of a block (every base except the contracted ones has data).
KernelPlan plan_block(const KernelBlock& block);
// The same into `plan`, reusing its buffers (the engine plans every block it executes).
// With bind_data false the bases need no data and the pointers stay null: a plan to find or
// compile the kernel with (CpuEngine's prepare), not to launch.
void plan_block(const KernelBlock& block, KernelPlan& plan, bool bind_data = true);

// Plans `plan`, built by plan_block for a block of the same structure (the same instructions,
// arrays, constants and contraction: a flush plan replayed for other extents or strides), again
// for `block`'s geometry: loop order and collapse, split, chunks, parameters and pointers. True
// when the structure the kernel is compiled from came out the same, constant sharing included
// (the spec is unchanged and left as it was, possibly empty: its kernel runs the block); false
// when it did not, and `plan` is then plan_block's for `block` (spec included).
bool replan_block(const KernelBlock& block, KernelPlan& plan, bool bind_data = true);

// (Re)binds a plan built for a block of the same structure and layout (same instructions,
// operand geometry and contraction; the program may be another with other bases and constant
// values): each array's view and pointer, and each constant's parameter slots, from `block`'s
// program. plan_block ends with it. False when the program's constants no longer share as the
// plan's do (an operand of a shared constant has another value now): the plan's kernel does not
// compute this block, which must be planned again (plan_block).
[[nodiscard]] bool bind_plan(const KernelBlock& block, KernelPlan& plan, bool bind_data = true);

// Below this many loop iterations a kernel runs on one thread.
inline constexpr int64_t kParallelMin = int64_t(1) << 15;

} // namespace hassium::plan
