// Emitter: the IRBuilder context the codegen and the per-family op emitters share.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "core/dtype.h"
#include "core/opcode.h"
#include "ve/cpu/kernel_abi.h"

namespace hassium::cpu {

// A value in registers: one LLVM value of the dtype's register type, or two (re, im) for the
// complex dtypes. Bools are i1; integers iN (signedness lives in the DType); floats float/double.
struct Val {
  llvm::Value* re = nullptr;
  llvm::Value* im = nullptr; // complex only
};

class Emitter {
public:
  Emitter(llvm::Module& module, llvm::IRBuilder<>& builder)
      : m(module), b(builder), ctx(module.getContext()) {}

  llvm::Module& m;
  llvm::IRBuilder<>& b;
  llvm::LLVMContext& ctx;

  // Where `check` sends a kernel on bad data: the error record and the current function.
  llvm::Value* error_record = nullptr;

  // Register type (complex: the type of one part) and memory element type (bool: i8).
  llvm::Type* type(DType t);
  llvm::Type* storage(DType t);

  // Element `index` of an array whose element 0 is at `ptr` (complex elements are two parts).
  Val load(DType t, llvm::Value* ptr, llvm::Value* index);
  void store(DType t, llvm::Value* ptr, llvm::Value* index, Val v);

  llvm::Value* i64(int64_t v) { return b.getInt64(uint64_t(v)); }
  llvm::Value* i32(int32_t v) { return b.getInt32(uint32_t(v)); }
  // A constant of a real or integer dtype (bool: v != 0). Complex: of the part type.
  llvm::Value* constant(DType t, double v);
  llvm::Value* int_constant(DType t, int64_t v);
  Val constant_val(DType t, double re, double im = 0);

  // Calls an overloaded LLVM intrinsic, overloaded on the type of args[0].
  llvm::Value* intrinsic(llvm::Intrinsic::ID id, std::initializer_list<llvm::Value*> args);
  // Calls the C math library function `name` (double) or `name`f (float32), declared pure.
  llvm::Value* libm(std::string_view name, DType t, std::initializer_list<llvm::Value*> args);
  // A call of a pure function (a runtime helper, runtime_helpers.h) returning `ret`.
  llvm::Value* helper(std::string_view name, llvm::Type* ret,
                      std::initializer_list<llvm::Value*> args);
  // Calls a hassium runtime helper `double-pair name(double...)` (see runtime_helpers.h).
  Val complex_helper(std::string_view name, DType t, std::initializer_list<llvm::Value*> args);

  // x != 0 as i1 (complex: either part nonzero; NaN counts as nonzero, as in NumPy).
  llvm::Value* truthy(DType t, Val v);

  // On `bad`, the kernel stores (code, value, bound) into its error record and returns code.
  void check(llvm::Value* bad, KernelErrorCode code, llvm::Value* value, llvm::Value* bound);
};

} // namespace hassium::cpu
