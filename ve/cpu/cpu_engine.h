// The CPU vector engine: fused blocks become LLVM-JIT-compiled, vectorized, OpenMP-parallel
// kernels.
#pragma once

#include <memory>
#include <string>

#include "core/registry.h"
#include "ve/cpu/blas.h"
#include "ve/cpu/interpreter.h"
#include "ve/cpu/openmp.h"
#include "ve/engine.h"

namespace hassium {

// Where compiled kernels are kept between blocks and between processes.
enum class KernelCacheMode { NONE, MEMORY, DISK };

struct CpuOptions {
  int threads = 0; // OpenMP threads per kernel; 0 = omp_get_max_threads()
  // The optimizing code generator's level, 0..3 (0: no IR optimization, only the fast code
  // generator; see ve/cpu/jit_compiler.h).
  int opt_level = 3;
  // Tiered compilation: a new kernel is compiled by the fast code generator and runs at once;
  // a background thread compiles it again with the optimizing one, and the engine switches to
  // that code at the kernel's next launch after it is ready (both compute the same bits).
  // Needs a kernel cache (memory or disk). false: every kernel is compiled optimized first.
  bool tiered_compile = true;
  // With tiered compilation (FIRST), a new block whose instructions the interpreter runs with
  // its kernel's bits runs at once on shared step kernels (ve/cpu/interpreter.h), not on a
  // fast-tier kernel compiled first; a block's kernel already loaded or on disk runs instead.
  // ALWAYS: every such block is interpreted, always (to check the interpreter).
  // Off by default: its step kernels compile on a fresh cache like any kernel, so a first run
  // gains nothing yet (benchmarks/cold_start.py), and interpreted blocks run slower.
  cpu::InterpreterMode interpreter = cpu::InterpreterMode::NONE;
  // Where step kernels built ahead of time are read (`hassium build-steps`); "auto": the build
  // tree's step-kernels directory; empty: nowhere.
  std::string step_dir;
  // Tiered, with the disk cache: the kernels still waiting for the optimizing code generator
  // when the process exits are compiled by a detached, lowest-priority child process that
  // writes them to the disk cache (the process itself does not wait), so the next run finds
  // them optimized. false: they are dropped.
  bool optimize_at_exit = true;
  // A kernel of more LLVM IR instructions than this is only compiled by the fast code
  // generator (a column sweep fused into one block: seconds in the optimizing one's register
  // allocator, see jit_compiler.h); 0 = never.
  int64_t large_kernel = 4000;
  KernelCacheMode cache = KernelCacheMode::MEMORY;
  std::string cache_dir; // object files when cache == DISK (created if missing)
  // How idle OpenMP threads wait; applied when the first engine of the process loads libgomp,
  // unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set (ve/cpu/openmp.h).
  WaitPolicy wait_policy = WaitPolicy::PASSIVE;
  // After a flush that compiled or loaded kernels: drop_code_pages() (ve/cpu/code_pages.h).
  bool drop_compiler_pages = true;
  // A kernel free to cut runs on one thread or all as its launches measured, per size class
  // (ve/cpu/parallel_choice.h); false: all threads from kParallelMin elements on.
  bool adaptive_threads = true;
  // Which BLAS runs MATMUL (ve/cpu/blas.h): the process's NumPy OpenBLAS, else the linked one.
  cpu::BlasChoice blas = cpu::BlasChoice::AUTO;
  // Two matrix-vector products of one matrix in a flush run as one pass over it
  // (ve/cpu/paired_matvec.h). Only where this engine prepares every block of the flush and the
  // arrays live in host memory: a GPU engine's CPU engine (which sees only the blocks it runs,
  // with their own operands brought to the host) never pairs.
  bool pair_matvecs = true;
};

// The registry of kernel cache modes (id "cpu.kernel_cache"): none, memory, disk.
const Registry<KernelCacheMode>& kernel_cache_registry();

std::unique_ptr<Engine> make_cpu_engine(const CpuOptions& options);

} // namespace hassium
