// The GPU kernel generator: a KernelPlan (ve/plan/kernel_plan.h) -> one program of kernel source
// in a Dialect (CUDA C or OpenCL C), with the entries the engine launches.
//
// Grid mapping (64-bit index math throughout):
//   hs_elements  blocks without reduction or scan: the loop nest flattened, one element per work
//                item in a grid-stride loop (consecutive items: consecutive innermost elements).
//                A block writing at indexed positions (SCATTER, *_AT) runs on one work item, in
//                order (duplicates: the last write wins, as on the CPU).
//   hs_rows      reductions and scans: one work item per output row (the non-axis levels
//                flattened) and chunk of the axis (scans: one chunk), the chunk walked in order,
//                the accumulators in registers; consecutive items take consecutive rows (coalesced
//                when the axis is an outer loop). Several chunks: partials, then hs_combine.
//   hs_groups    reductions over a long axis: one group of kGroupSize items per (row, chunk of
//                the axis); each item accumulates a strided share of the chunk in registers, the
//                group folds them in local memory (a fixed tree, barriers), item 0 writes the
//                chunk's partial (or the output when the row has one chunk).
//   hs_combine   one group of kGroupSize items per row folds the row's partials: item t the
//                partials t, t + kGroupSize, ... in order, then the group in a fixed tree.
// Results depend only on the sizes, never on timing: no float atomics.
//
// Kernel arguments, in order: one buffer per non-contracted plan array (plan order), the scratch
// buffer (partials), the error record (6 x int32), the params: by value (a struct of int64, in
// the device's argument space: CUDA keeps it in the constant bank, so the kernel's constants,
// strides and extents take no registers) when it fits the device's max_param_bytes together
// with the buffers' pointers, else a buffer. Params: plan.params; then per non-contracted plan
// array its view's offset in elements; then the launch block (LaunchSlot).
#pragma once

#include <string>
#include <vector>

#include "ve/gpu/dialect.h"
#include "ve/plan/kernel_plan.h"

namespace hassium::gpu {

inline constexpr const char* kElementsEntry = "hs_elements";
inline constexpr const char* kRowsEntry = "hs_rows";
inline constexpr const char* kGroupsEntry = "hs_groups";
inline constexpr const char* kCombineEntry = "hs_combine";
// The other names a program defines: the struct type of by-value params and the macro that reads
// them as `params[k]` (program_batch.h renames and undefines them when programs share a source).
inline constexpr const char* kParamsType = "hs_params";
inline constexpr const char* kParamsMacro = "params";
// Work items of a hs_groups group (a power of two; every device has at least this many).
inline constexpr int kGroupSize = 128;

// The launch block after the offsets: index of each slot.
enum LaunchSlot : int {
  LAUNCH_N = 0,      // elements (hs_elements) or output rows M (the others)
  LAUNCH_K = 1,      // extent of the axis
  LAUNCH_CHUNKS = 2, // chunks per row (hs_groups), 1 = no partials
  LAUNCH_CHUNK = 3,  // axis elements per chunk
  LAUNCH_SCRATCH = 4 // then per reduction (plan instruction order): byte offset of its partials
};

// Error codes in the error record (as ve/cpu/kernel_abi.h).
inline constexpr int kErrorIndex = 1;
inline constexpr int kErrorNegativePower = 2;

struct KernelSource {
  std::string source;
  std::vector<std::string> entries; // hs_elements; or hs_rows (+ hs_groups, hs_combine)
  bool reduction = false;           // has hs_groups and hs_combine
  bool sequential = false;          // runs on one work item (indexed writes)
  bool params_by_value = false;     // the params are one by-value argument, else a buffer
  size_t param_count = 0;           // int64 params (param_count(plan))
};

// Whether the generator supports the block; when not, `why` says what (the block then runs on
// the CPU engine).
bool supported(const plan::KernelPlan& plan, std::string* why);
// The program of a supported plan. Reads only the plan's structure (its spec), never per-call
// values: plans of one spec give the same source. `max_param_bytes`: the device's kernel
// argument space (DeviceInfo::max_param_bytes; 0: params always in a buffer).
KernelSource generate_source(const plan::KernelPlan& plan, const Dialect& dialect,
                             size_t max_param_bytes = 0);

// Non-contracted arrays: the kernel's buffer arguments and offset slots.
size_t buffer_arrays(const plan::KernelPlan& plan);
// Index of the first offset slot and of the launch block in the params of a plan.
inline size_t offset_slots(const plan::KernelPlan& plan) {
  return plan.params.size();
}
inline size_t launch_slots(const plan::KernelPlan& plan) {
  return plan.params.size() + buffer_arrays(plan);
}
// Every param: the launch block ends with one scratch offset per live reduction.
size_t param_count(const plan::KernelPlan& plan);

} // namespace hassium::gpu
