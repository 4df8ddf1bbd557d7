// The interpreter tier: a new block runs at once, before its own kernel is compiled, as a sequence
// of step kernels (one instruction over 1-D arrays) over tiles of its innermost loop, its
// contracted arrays in tile buffers. Step kernels are kernels of the same code generator (so an
// interpreted block computes its kernel's bits), few (an opcode, its dtypes, which operands are
// constants, which arrays are contiguous) and shared by every block: a new block whose steps are
// known runs with nothing compiled while its own kernel compiles in the background.
#pragma once

#include <cstdint>
#include <vector>

#include "core/registry.h"
#include "ve/cpu/jit_compiler.h"
#include "ve/cpu/plan.h"

namespace hassium::cpu {

// When the CPU engine interprets a block ([cpu] interpreter).
enum class InterpreterMode : uint8_t {
  NONE,   // never: a new block waits for its fast-tier kernel
  FIRST,  // a new block runs interpreted until its kernel is compiled (tiered compilation)
  ALWAYS, // every block it can run (to check it against the kernels)
};
const Registry<InterpreterMode>& interpreter_registry();

// Whether the interpreter computes the plan's block with its kernel's bits: element-wise
// instructions only (no reduction, scan, generator or indexing), none whose result depends on
// where a vector loop's tail falls (vector math: libmvec and libm differ in the last bits).
bool interpretable(const KernelPlan& plan);

// The step kernels built ahead of time (`hassium build-steps`, into the build's step-kernels
// directory): every element-wise opcode the interpreter takes, over bool, int32, int64, float32
// and float64, each input a contiguous array, an array of any stride or a constant (all
// constants: a fill), the output contiguous or of any stride. Other steps compile when first
// needed.
std::vector<KernelPlan> prebuilt_step_plans();

class InterpretedKernel {
public:
  // The steps of a plan's block (interpretable(plan) must hold). The plan's geometry may change
  // between runs (a replayed flush plan planned again), not its structure.
  explicit InterpretedKernel(const KernelPlan& plan);

  // The step kernels it runs, each a plan with its spec (to find or compile), in step order;
  // steps of the same kernel appear once.
  const std::vector<KernelPlan>& step_plans() const { return step_plans_; }
  // Their compiled code, in step_plans() order; the pointers stay valid while the kernel does,
  // and what they point to may change between runs (optimized code replacing fast code).
  void link(std::vector<const CompiledKernel*> kernels) { kernels_ = std::move(kernels); }

  // Runs levels [begin, end) of the plan's split level and every other level in full, as the
  // block's kernel would (the same arguments; a KernelErrorCode back, *err filled).
  int32_t run(int64_t begin, int64_t end, void* const* ptrs, const int64_t* params,
              KernelError* err) const;

  // Elements of the innermost loop per step call.
  static constexpr int64_t kTile = 512;
  // Innermost extents below this are not worth interpreting first (mode FIRST): each step call
  // costs tens of ns, so short rows (a 27-point stencil's 78) ran several times slower than
  // the block's kernel.
  static constexpr int64_t kMinRow = 256;

private:
  // Where a step operand is: an array in memory (the block's pointer slot and stride params), a
  // tile buffer, or a constant (the block's two param slots).
  struct Operand {
    enum Kind : uint8_t { MEMORY, TILE, CONSTANT } kind = MEMORY;
    int index = 0;   // MEMORY: the block array's index; TILE: the buffer; CONSTANT: param slot
    int ptr = -1;    // the step kernel's pointer slot (arrays)
    int stride = -1; // ... its stride param
    int value = -1;  // ... its constant's param slots (CONSTANT)
    int size = 0;    // element bytes
  };
  struct Step {
    int kernel = 0; // into kernels_
    // Where its pointer and parameter slots start in a run's arrays of them (all steps' slots).
    size_t ptrs_at = 0, params_at = 0;
    std::vector<Operand> operands; // output first
  };
  int ndim_ = 1, split_ = 0;
  int buffers_ = 0; // tile buffers (contracted arrays, reused once an array is dead)
  size_t ptr_slots_ = 0, param_slots_ = 0;                // of all steps
  std::vector<int> array_ptr_, array_param_, array_size_; // per block array
  std::vector<Step> steps_;
  std::vector<KernelPlan> step_plans_;
  std::vector<const CompiledKernel*> kernels_;
};

} // namespace hassium::cpu
