// Dialect: the thin layer in which CUDA C and OpenCL C differ (qualifiers, index builtins,
// barriers, type names); the kernel generator (ve/gpu/kernel_source.h) writes everything else once.
#pragma once

#include <string>

namespace hassium::gpu {

enum class Language { CUDA, OPENCL };

struct Dialect {
  Language language = Language::OPENCL;
  std::string kernel;       // before a kernel's return type: `extern "C" __global__` / `__kernel`
  std::string global;       // pointer to device memory: `` / `__global`
  std::string shared;       // group memory: `__shared__` / `__local`
  std::string barrier;      // group barrier: `__syncthreads()` / `barrier(CLK_LOCAL_MEM_FENCE)`
  std::string group_id;     // printf-style with the dimension: `blockIdx.%c` / `get_group_id(%d)`
  std::string local_id;     // `threadIdx.%c` / `get_local_id(%d)`
  std::string group_size;   // `blockDim.%c` / `get_local_size(%d)`
  std::string groups;       // `gridDim.%c` / `get_num_groups(%d)`
  std::string int64;        // `long long` / `long`
  std::string uint64;       // `unsigned long long` / `ulong`
  std::string prelude;      // text before every kernel (pragmas, typedefs, helpers)

  static Dialect cuda();
  static Dialect opencl();
};

} // namespace hassium::gpu
