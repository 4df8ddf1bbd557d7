// Code generation: a KernelPlan -> one LLVM module holding the block's kernel (one loop nest)
// and, when the block reduces, the function that combines per-chunk partial results.
#pragma once

#include <cstdint>
#include <memory>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "ve/cpu/kernel_abi.h"
#include "ve/cpu/plan.h"

namespace hassium::cpu {

// Builds the module. It reads only the plan's structure, never its per-call values.
std::unique_ptr<llvm::Module> generate_module(const KernelPlan& plan, llvm::LLVMContext& ctx);

} // namespace hassium::cpu
