// The CPU vector engine: fused blocks become LLVM-JIT-compiled, vectorized, OpenMP-parallel
// kernels.
#pragma once

#include <memory>
#include <string>

#include "ve/cpu/blas.h"
#include "ve/cpu/openmp.h"
#include "ve/engine.h"

namespace hassium {

// Where compiled kernels are kept between blocks and between processes.
enum class KernelCacheMode { NONE, MEMORY, DISK };

struct CpuOptions {
  int threads = 0;   // OpenMP threads per kernel; 0 = omp_get_max_threads()
  int opt_level = 3; // LLVM optimization level, 0..3
  // A kernel of more LLVM IR instructions than this compiles at opt_level 1 with LLVM's fast
  // code generator (a column sweep fused into one block: seconds at O3, see jit_compiler.h);
  // 0 = never.
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
};

// Parses "none", "memory" or "disk"; throws UserError naming the valid ones otherwise.
KernelCacheMode parse_kernel_cache_mode(const std::string& name);

std::unique_ptr<Engine> make_cpu_engine(const CpuOptions& options);

} // namespace hassium
