// Launcher: runs a compiled kernel over its plan: one call for small work, else the split level
// cut into chunks run by OpenMP threads; split reductions go through partial results that the
// combine step folds in chunk order.
#pragma once

#include <vector>

#include "ve/cpu/interpreter.h"
#include "ve/cpu/jit_compiler.h"

namespace hassium::cpu {

// Runs the kernel. Returns the first nonzero error a chunk reported (all chunks finish first).
KernelError launch(KernelPlan& plan, const CompiledKernel& fns, int threads,
                   std::vector<double>& scratch);
// Runs an interpreted block (ve/cpu/interpreter.h) cut as its kernel would be.
KernelError launch(KernelPlan& plan, const InterpretedKernel& kernel, int threads);

} // namespace hassium::cpu
