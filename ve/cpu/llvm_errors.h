// LLVM's errors as hassium's: diagnostics kept per context, fatal errors reported, never exit().
#pragma once

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
}

namespace hassium::cpu {

// Once per process: an LLVM fatal error (report_fatal_error: an unselectable instruction, a
// broken invariant) prints "hassium: internal error in LLVM: <reason>" and aborts. LLVM's own
// handling calls exit(1), whose exit hooks then wait for the flush that is compiling: a hang.
void install_llvm_fatal_error_handler();

// A context whose error diagnostics (a failed module link, an unsupported construct in the
// code generator) are kept for take_llvm_errors(); LLVM's default prints them and calls exit(1).
std::unique_ptr<llvm::LLVMContext> new_llvm_context();

// The error diagnostics `ctx` (made by new_llvm_context()) received since the last call, one per
// line; empty if none.
std::string take_llvm_errors(llvm::LLVMContext& ctx);

} // namespace hassium::cpu
