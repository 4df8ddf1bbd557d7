// The GPU vector engine over one GpuDevice (OpenCL: ve/opencl, CUDA: ve/cuda): each block's kernel
// generated (ve/gpu/kernel_source.h), compiled once per source (ve/gpu/program_cache.h) and
// launched on the device; bases stay resident on the device across flushes (DeviceMemory);
// blocks the generator does not support run on an embedded CPU engine, their data moved as needed.
#pragma once

#include <memory>
#include <string>

#include "ve/cpu/cpu_engine.h"
#include "ve/engine.h"
#include "ve/gpu/gpu_device.h"

namespace hassium {

struct GpuOptions {
  // Compiled programs: MEMORY (per process) or DISK (also `cache_dir`, shared); NONE compiles
  // every block again (tests).
  KernelCacheMode cache = KernelCacheMode::MEMORY;
  std::string cache_dir;
  // The CPU engine for the blocks the GPU does not run (BLAS, sorting, unsupported ops).
  CpuOptions cpu;
};

// `name`: what name() reports ("opencl", "cuda").
std::unique_ptr<Engine> make_gpu_engine(std::unique_ptr<gpu::GpuDevice> device,
                                        const GpuOptions& options, std::string name = "gpu");

} // namespace hassium
