// Tests of ve/cpu/llvm_errors.cpp: LLVM's errors never end in exit(), whose hooks hang a flush.
#include <catch2/catch.hpp>

#include <csignal>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/ErrorHandling.h>

#include "ve/cpu/llvm_errors.h"

using namespace hassium::cpu;

namespace {
// A module defining `i32 f()`.
std::unique_ptr<llvm::Module> module_defining_f(llvm::LLVMContext& ctx, const char* name) {
  auto m = std::make_unique<llvm::Module>(name, ctx);
  auto* i32 = llvm::Type::getInt32Ty(ctx);
  auto* f = llvm::Function::Create(llvm::FunctionType::get(i32, false),
                                   llvm::Function::ExternalLinkage, "f", *m);
  llvm::ReturnInst::Create(ctx, llvm::ConstantInt::get(i32, 1),
                           llvm::BasicBlock::Create(ctx, "entry", f));
  return m;
}
} // namespace

TEST_CASE("a link error is kept by its context: no message printed, no exit", "[ve][cpu]") {
  auto ctx = new_llvm_context();
  auto a = module_defining_f(*ctx, "a");
  CHECK(take_llvm_errors(*ctx).empty());
  // Under LLVM's default diagnostic handler this printed "error: ..." and called exit(1).
  CHECK(llvm::Linker::linkModules(*a, module_defining_f(*ctx, "b")));
  const std::string errors = take_llvm_errors(*ctx);
  CHECK(errors.find("symbol multiply defined") != std::string::npos);
  CHECK(errors.find("'f'") != std::string::npos);
  CHECK(take_llvm_errors(*ctx).empty()); // taken once
  // A plain context has nothing to take.
  llvm::LLVMContext plain;
  CHECK(take_llvm_errors(plain).empty());
}

TEST_CASE("an LLVM fatal error prints hassium's message and aborts: no exit hooks", "[ve][cpu]") {
  int out[2];
  REQUIRE(::pipe(out) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(out[0]);
    ::dup2(out[1], 2);
    install_llvm_fatal_error_handler();
    install_llvm_fatal_error_handler(); // once per process; a second call changes nothing
    llvm::report_fatal_error("a broken invariant, for the test");
    ::_exit(0); // not reached
  }
  ::close(out[1]);
  std::string text;
  char buf[256];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) text.append(buf, size_t(n));
  ::close(out[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGABRT);
  CHECK(text.find("hassium: internal error in LLVM: a broken invariant, for the test") !=
        std::string::npos);
}
