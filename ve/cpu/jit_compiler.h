// JitCompiler: LLVM modules -> machine code in this process (ORC LLJIT for the host CPU, hassium's
// kernel pipeline with libmvec, two code generators: fast and optimizing), an on-disk object
// cache keyed by a content hash.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ve/cpu/kernel_abi.h"
#include "ve/cpu/plan.h"

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm
namespace llvm::orc {
class LLJIT;
class ResourceTracker;
} // namespace llvm::orc

namespace hassium::cpu {

class DiskObjectCache;

struct CompiledKernel {
  KernelFn kernel = nullptr;
  CombineFn combine = nullptr; // null when the block has no reduction
};

// The code generator machine code comes from. Both run on the same optimized IR (the kernel
// pipeline), so a kernel computes the same bits at either tier; they differ in compile time
// and speed. FAST: LLVM's fast instruction selector and register allocator (a small kernel in
// ~1-2 ms; loops keep their vector width but spill more). OPTIMIZED: the full code generator
// at [cpu] opt_level (several times the compile time, 1-3x faster loops).
enum class Tier : uint8_t { FAST, OPTIMIZED };

// What one compile() call did.
enum class CompileOutcome { COMPILED, LOADED_FROM_DISK, ALREADY_LOADED };

struct CompileResult {
  CompiledKernel fns;
  CompileOutcome outcome = CompileOutcome::COMPILED;
  Tier tier = Tier::OPTIMIZED; // of the machine code in fns
  // True when no better machine code exists for this kernel: it is OPTIMIZED, or it can only
  // be FAST (a huge kernel past large_kernel, or opt_level 0).
  bool final = true;
  double seconds = 0;
  // Hash of the kernel's structure (the plan's spec), the CPU and its features, the versions of
  // LLVM, the kernel pipeline and hassium's code generator sources, and the code generator.
  std::string key;
};

class JitCompiler {
public:
  // `disk_dir` empty: no disk cache. `transient`: every module is loaded under its own
  // resource tracker and unloaded by release() (kernel cache mode "none"). `opt_level` 0..3:
  // the optimizing code generator's level (0: no IR pipeline either, and both tiers are the
  // fast one). A module of more than `large_kernel` IR instructions (0: no limit) is only ever
  // compiled by the fast code generator: the optimizing one's register allocator and
  // scheduler grow faster than linearly in a huge loop body.
  JitCompiler(int opt_level, const std::string& disk_dir, bool transient, int64_t large_kernel = 0);
  ~JitCompiler();
  JitCompiler(const JitCompiler&) = delete;
  JitCompiler& operator=(const JitCompiler&) = delete;

  // The plan's kernel at `tier` or better: its OPTIMIZED machine code when loaded or on disk;
  // else (tier FAST) its FAST machine code loaded or compiled; else (OPTIMIZED) compiled by the
  // optimizing code generator. Final code (optimized, or fast for a kernel that gets nothing
  // better) goes to the disk cache; fast code an optimized compile will replace does not
  // (compiling it again costs less than storing and loading it).
  // Thread-safe: a background thread may compile while the engine's thread does (ve/cpu/
  // background_compiler.h); not in transient mode.
  CompileResult compile(const KernelPlan& plan, Tier tier = Tier::OPTIMIZED);
  // compile(plan, FAST) for each plan, the kernels that are compiled all in one module: one run
  // of the kernel pipeline and the fast code generator for a flush's new kernels (their fixed
  // costs, most of a small kernel's ~2 ms, paid once). Results in plan order; a plan that
  // repeats an earlier one's kernel shares its code. Not in transient mode.
  std::vector<CompileResult> compile_fast(const std::vector<const KernelPlan*>& plans);
  // The plan's machine code when it is at hand without a compile: loaded in this process (at
  // either tier), or final code in the disk cache (then loaded). False: it must be compiled.
  bool find(const KernelPlan& plan, CompileResult& r);
  // Unloads what the last compile() loaded, in transient mode (no-op otherwise).
  void release();
  // Runs the optimizing code generator on the plan's module, past the caches (nothing is
  // looked up, kept or stored), and unloads it: LLVM creates its lazily made statics.
  void warm_up(const KernelPlan& plan);

  // Also looks for final machine code in `dir`, read only, after the disk cache (the step
  // kernels built ahead of time, ve/cpu/interpreter.h); nothing there is written or removed.
  // A directory that does not exist is ignored.
  void add_library(const std::string& dir);

  // The disk cache (its directory and counters); null without one.
  const DiskObjectCache* disk_cache() const;

  const std::string& cpu() const { return cpu_; }
  const std::string& features() const { return features_; }
  // The IR a plan compiles from, before (optimized = false) or after the kernel pipeline.
  std::string ir_text(const KernelPlan& plan, bool optimized);
  // The assembly of a plan's kernel at a tier, for checking what the vectorizer did.
  std::string asm_text(const KernelPlan& plan, Tier tier = Tier::OPTIMIZED);

private:
  struct Impl;
  std::string key_prefix(const KernelPlan& plan) const;
  bool find_existing(const KernelPlan& plan, const std::string& prefix, Tier tier,
                     CompileResult& r);
  std::vector<CompiledKernel> look_up(const std::vector<std::string>& names,
                                      const std::vector<bool>& reductions);
  std::vector<CompiledKernel> add_and_look_up(std::unique_ptr<llvm::Module> m,
                                              std::unique_ptr<llvm::LLVMContext> ctx,
                                              const std::vector<std::string>& names,
                                              const std::vector<bool>& reductions);
  std::unique_ptr<Impl> impl_;
  std::string cpu_, features_;
};

} // namespace hassium::cpu
