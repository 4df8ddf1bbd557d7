// JitCompiler: LLVM modules -> machine code in this process (ORC LLJIT for the host CPU, the O3
// pipeline with libmvec, an on-disk object cache keyed by a content hash).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>

#include "ve/cpu/kernel_abi.h"
#include "ve/cpu/kernel_plan.h"

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

// What one compile() call did.
enum class CompileOutcome { COMPILED, LOADED_FROM_DISK, ALREADY_LOADED };

struct CompileResult {
  CompiledKernel fns;
  CompileOutcome outcome = CompileOutcome::COMPILED;
  double seconds = 0;
  std::string key; // hash of the IR, CPU, features, LLVM version and options
};

class JitCompiler {
public:
  // `disk_dir` empty: no disk cache. `transient`: every module is loaded under its own
  // resource tracker and unloaded by release() (kernel cache mode "none"). A module of more
  // than `large_kernel` IR instructions (0: no limit) is optimized at level min(opt_level, 1)
  // and compiled by the fast code generator (CodeGenOpt::None: the fast register allocator):
  // LLVM's greedy allocator and scheduler grow faster than linearly in a huge loop body.
  JitCompiler(int opt_level, const std::string& disk_dir, bool transient, int64_t large_kernel = 0);
  ~JitCompiler();
  JitCompiler(const JitCompiler&) = delete;
  JitCompiler& operator=(const JitCompiler&) = delete;

  // Compiles the plan's module, or loads it from disk, or finds it already loaded.
  CompileResult compile(const KernelPlan& plan);
  // Unloads what the last compile() loaded, in transient mode (no-op otherwise).
  void release();

  // The disk cache (its directory and counters); null without one.
  const DiskObjectCache* disk_cache() const;

  const std::string& cpu() const { return cpu_; }
  const std::string& features() const { return features_; }
  // The IR a plan compiles from, before (optimized = false) or after the O3 pipeline.
  std::string ir_text(const KernelPlan& plan, bool optimized);
  // The assembly of a plan's optimized module, for checking what the vectorizer did.
  std::string asm_text(const KernelPlan& plan);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string cpu_, features_;
};

} // namespace hassium::cpu
