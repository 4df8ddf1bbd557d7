// install_llvm_fatal_error_handler, new_llvm_context, take_llvm_errors.
#include "ve/cpu/llvm_errors.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>

#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/raw_ostream.h>

namespace hassium::cpu {

namespace {

void on_fatal_error(void*, const char* reason, bool) {
  std::fprintf(stderr, "hassium: internal error in LLVM: %s\n", reason);
  std::fflush(stderr);
  std::abort();
}

// Keeps errors; lets warnings and remarks through to LLVM's default (printed, nothing else).
// (A context, and so its handler, is used by one thread at a time: no lock.)
struct KeepingHandler : llvm::DiagnosticHandler {
  std::string errors;
  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override {
    if (info.getSeverity() != llvm::DS_Error) return false;
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info.print(printer);
    if (!errors.empty()) errors += '\n';
    errors += os.str();
    return true;
  }
};

} // namespace

void install_llvm_fatal_error_handler() {
  static std::once_flag once;
  std::call_once(once, [] { llvm::install_fatal_error_handler(on_fatal_error, nullptr); });
}

std::unique_ptr<llvm::LLVMContext> new_llvm_context() {
  auto ctx = std::make_unique<llvm::LLVMContext>();
  ctx->setDiagnosticHandler(std::make_unique<KeepingHandler>());
  return ctx;
}

std::string take_llvm_errors(llvm::LLVMContext& ctx) {
  // (The context hands its handler out const; new_llvm_context() made it, not const.)
  auto* h =
      const_cast<KeepingHandler*>(dynamic_cast<const KeepingHandler*>(ctx.getDiagHandlerPtr()));
  if (!h) return {};
  return std::exchange(h->errors, {});
}

} // namespace hassium::cpu
