// GpuDevice: what the GPU engine (ve/gpu/gpu_engine.h) needs of one device, implemented once per
// API: CUDA Driver API + NVRTC (ve/cuda), OpenCL 1.2 (ve/opencl; PoCL on these machines).
//
// Everything the engine derives (kernel source, launch geometry, residency, transfers counted) is
// API-neutral and lives in ve/gpu; a device only allocates, copies, compiles and launches. Work
// is queued in order on one stream/queue: copies to the device and launches return at once,
// copy_to_host() and synchronize() wait. Errors are thrown as hassium::UserError (bad program,
// e.g. a compile log) or hassium::InternalError (the API failed), with the API's error name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ve/gpu/dialect.h"

namespace hassium::gpu {

// Device memory, opaque to the engine: a CUdeviceptr or a cl_mem.
struct DeviceBuffer {
  uintptr_t handle = 0;
  size_t bytes = 0;
  explicit operator bool() const { return handle != 0; }
};

// One entry of a compiled program (a CUfunction, a cl_kernel), owned by its program.
class DeviceKernel {
public:
  virtual ~DeviceKernel() = default;
};

// A compiled program (a CUmodule, a cl_program) and its kernels.
class DeviceProgram {
public:
  virtual ~DeviceProgram() = default;
  // Its entry `name` (created at the first call, kept by the program); throws when absent.
  virtual DeviceKernel& kernel(const std::string& name) = 0;
  // The compiled binary (cubin/PTX, the OpenCL program binary) for the disk cache; empty when
  // the device cannot give one back.
  virtual std::vector<char> binary() const = 0;
};

// Grid of a launch: `global` work items in up to 3 dimensions, in groups of `local` (CUDA:
// gridDim = global / local blocks of blockDim = local threads; OpenCL: global and local work
// sizes). global[d] is a multiple of local[d].
struct LaunchGeometry {
  int dims = 1;
  size_t global[3] = {1, 1, 1};
  size_t local[3] = {1, 1, 1};
  size_t shared_bytes =
      0; // dynamic shared/local memory per group (argument `shared` of the kernel)
};

// Arguments of a generated kernel, in the generator's order (ve/gpu/kernel_source.h): the
// buffers, then the int64 parameter block: one by-value argument of params.size() * 8 bytes
// when `params_by_value` (the source was generated so), else a buffer the device uploads. A
// buffer with handle 0 passes a null pointer (an argument the kernel does not use).
struct KernelArgs {
  std::vector<DeviceBuffer> buffers;
  std::vector<int64_t> params;
  bool params_by_value = false;
};

struct DeviceInfo {
  std::string name;     // "NVIDIA H100 80GB HBM3", "pthread-cpu" (PoCL)
  std::string arch;     // "sm_90", PoCL's device/LLVM target
  std::string versions; // driver and compiler versions: part of every kernel cache key
  size_t global_memory = 0;
  size_t max_group_size = 0; // threads per block / work-group
  size_t shared_memory = 0;  // bytes of shared/local memory per group
  int compute_units = 0;
  size_t max_param_bytes = 0; // kernel argument space (bytes); 0: params always in a buffer
};

class GpuDevice {
public:
  virtual ~GpuDevice() = default;
  virtual const DeviceInfo& info() const = 0;
  virtual const Dialect& dialect() const = 0;

  // --- memory --------------------------------------------------------------------------------
  virtual DeviceBuffer allocate(size_t bytes) = 0; // throws when the device is full
  virtual void release(DeviceBuffer buffer) = 0;
  virtual void fill_zero(DeviceBuffer buffer) = 0;
  // Queued; `src` may be reused when the call returns (the device stages it).
  virtual void copy_to_device(DeviceBuffer dst, size_t offset, const void* src, size_t bytes) = 0;
  // Waits for the queue, then for the copy.
  virtual void copy_to_host(void* dst, DeviceBuffer src, size_t offset, size_t bytes) = 0;

  // --- kernels -------------------------------------------------------------------------------
  // Compiles `source` (the dialect's language: CUDA C++ for NVRTC with --fmad=false, OpenCL C
  // with -cl-fp32-correctly-rounded-divide-sqrt and no fast-math: the generated code relies on
  // IEEE rounding of + - * / sqrt and no contraction into fused multiply-adds). UserError with the
  // compiler's log when it does not compile. Called from several threads at once
  // (ProgramCache::get_all compiles a flush's new programs in parallel): thread-safe.
  virtual std::unique_ptr<DeviceProgram> compile(const std::string& source) = 0;
  // A program from binary() of an earlier compile with the same info().versions and arch; null
  // when the binary is not usable (the caller compiles from source).
  virtual std::unique_ptr<DeviceProgram> load(const std::vector<char>& binary) = 0;
  // Queued.
  virtual void launch(DeviceKernel& kernel, const LaunchGeometry& geometry,
                      const KernelArgs& args) = 0;
  // Waits for everything queued; reports a failed launch.
  virtual void synchronize() = 0;
};

} // namespace hassium::gpu
